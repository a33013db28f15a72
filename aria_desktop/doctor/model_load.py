"""Doctor check: how long the local model takes to load (what the warm-up saves a command).

Only Ollama loads models on demand; the check asks it to load the chat model the same way the
owner's warm-up does (ARCHITECTURE.md: settings applied live) and times it. A model that is
already loaded answers at once, which is the point of the warm-up.
"""

from __future__ import annotations

import time

from aria_desktop.doctor.result import CheckResult, ok, warn
from aria_desktop.domain.errors import LLMError, ModelNotFoundError
from aria_desktop.settings import Settings

__all__ = ["LOAD_TIMEOUT_S", "check_model_load"]

LOAD_TIMEOUT_S = 120.0
"""The longest the doctor waits for a model to load, seconds (a cold 8B model on a CPU)."""


async def check_model_load(settings: Settings) -> list[CheckResult]:
    """``model llama3.2:3b loaded in 2.4 s``, or why it cannot load (nothing without Ollama)."""
    from aria_desktop.adapters.llm.ollama_load import load_ollama_model

    llm = settings.llm
    if "ollama" not in llm.chains.get("chat", ()) or not llm.ollama.url:
        return []
    model = llm.ollama.model
    started = time.perf_counter()
    try:
        await load_ollama_model(
            llm.ollama.url,
            model,
            keep_alive=llm.ollama.keep_alive or None,
            timeout_s=min(LOAD_TIMEOUT_S, llm.timeouts.total_s),
            connect_s=llm.timeouts.connect_s,
        )
    except ModelNotFoundError:
        return [
            warn(
                "model load",
                f"model {model} is not on the Ollama server at {llm.ollama.url}",
                f"ollama pull {model} (on that machine), or "
                "`aria config set llm.ollama.model NAME`",
            )
        ]
    except LLMError as exc:
        return [warn("model load", f"model {model} was not loaded: {exc.message}", exc.hint)]
    seconds = time.perf_counter() - started
    return [ok("model load", f"model {model} loaded in {seconds:.1f} s")]
