"""Doctor check of the speech-to-text server: the GPU machine's Whisper through Wyoming.

With ``voice.stt.engine = wyoming`` it says whether the server answers and which model it
runs (and that this computer hears meanwhile, with the fallback on). With the local engine it
looks for a server on the machines that run the user's models and offers it when one
answers, since a large Whisper there hears far better than tiny.en here; where none answers
it says how to start one there.
"""

from __future__ import annotations

import asyncio

from aria_desktop.doctor.result import CheckResult, ok, warn
from aria_desktop.domain.errors import WyomingError
from aria_desktop.domain.speech_servers import server_host, speech_server_candidates
from aria_desktop.settings import Settings

__all__ = ["START_ON_GPU_MACHINE", "check_speech_server"]

NAME = "speech server"
PROBE_S = 2.0
"""How long one address may take to answer (they are probed at once)."""

START_ON_GPU_MACHINE = (
    "pip install wyoming-faster-whisper && wyoming-faster-whisper --uri tcp://0.0.0.0:10300 "
    "--model large-v3-turbo --device cuda --data-dir ~/.local/share/wyoming-whisper"
)
"""How to start the large model on the GPU machine; its first start downloads the model."""


async def _models(uri: str) -> tuple[str, ...] | WyomingError:
    from aria_desktop.adapters.voice.wyoming_client import speech_to_text_models

    try:
        return await speech_to_text_models(uri, timeout_s=PROBE_S)
    except WyomingError as exc:
        return exc


async def check_speech_server(settings: Settings) -> list[CheckResult]:
    """Whether the configured server answers, or whether a better one is there to use."""
    stt = settings.voice.stt
    if stt.engine == "wyoming":
        return [await _configured(settings)]
    model_urls = (settings.llm.ollama.url, settings.llm.openai.url)
    candidates = speech_server_candidates(stt.wyoming_uri, model_urls)
    answers = await asyncio.gather(*(_models(uri) for uri in candidates))
    here = f"speech-to-text on this computer ({stt.model})"
    for uri, answer in zip(candidates, answers, strict=True):
        if not isinstance(answer, WyomingError):
            return [
                warn(
                    NAME,
                    f"{here}, but a Wyoming speech-to-text server answers at {uri} "
                    f"({', '.join(answer)}) and likely hears better",
                    f"use it: `aria config set voice.stt.wyoming_uri {uri}` and "
                    "`aria config set voice.stt.engine wyoming` (this computer still hears "
                    "commands while it is off)",
                )
            ]
    remote = [uri for uri in candidates if uri != stt.wyoming_uri.strip()]
    if not remote:
        return [ok(NAME, here)]
    return [
        ok(
            NAME,
            f"{here}; none answers on {server_host(remote[0])}. To hear better, run there: "
            f"{START_ON_GPU_MACHINE}",
        )
    ]


async def _configured(settings: Settings) -> CheckResult:
    stt = settings.voice.stt
    answer = await _models(stt.wyoming_uri)
    behind = f"this computer's {stt.model}" if stt.fallback else ""
    if isinstance(answer, WyomingError):
        meanwhile = f"; {behind} hears commands meanwhile" if behind else ""
        return warn(
            NAME,
            f"{answer.message.rstrip('.')}{meanwhile}",
            f"start it on that computer: {START_ON_GPU_MACHINE}",
        )
    detail = f"{stt.wyoming_uri} answers ({', '.join(answer)})"
    return ok(NAME, f"{detail}; {behind} hears while it is off" if behind else detail)
