"""Doctor checks of the language-model backends.

Each configured server answers and has the model (with its context window and capabilities as
the server reports them), a cloud key exists, and at least one backend is usable.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from aria_desktop import keystore
from aria_desktop.doctor.result import PROBE_TIMEOUT_S, CheckResult, judged, ok, warn
from aria_desktop.domain.errors import AriaError
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.adapters.llm.router import ChatBackend

__all__ = ["check_backends"]


async def _model_facts(name: str, backend: ChatBackend) -> CheckResult:
    """The window prompts are fitted to and what the model can do (``model_facts.py``)."""
    facts = await backend.model_facts()
    can = ", ".join(sorted(facts.capabilities)) or "nothing reported"
    detail = f"{facts.context_tokens}-token window (from {facts.source}); can: {can}"
    if "tools" in facts.capabilities:
        return ok(f"{name} model", detail)
    return warn(
        f"{name} model",
        f"{detail}; no tool calls, so ARIA cannot act with it",
        f"pick a model with tools for llm.{name}.model (`ollama show MODEL` lists them)",
    )


async def check_backends(settings: Settings) -> list[CheckResult]:
    """Ollama and the OpenAI-compatible server (asked for their models), the Anthropic key."""
    from aria_desktop.compose.llm import build_router

    router = build_router(settings)
    results: list[CheckResult] = []
    reachable = 0
    try:
        for name in ("ollama", "openai"):
            backend = router.backend(name)
            if backend is None:
                continue
            try:
                async with asyncio.timeout(PROBE_TIMEOUT_S):
                    models = await backend.list_models()
            except (AriaError, TimeoutError) as exc:
                url = settings.llm.ollama.url if name == "ollama" else settings.llm.openai.url
                results.append(
                    warn(
                        name,
                        f"not reachable at {url}: {exc or 'timed out'}",
                        "start Ollama on your GPU machine (`ollama serve`, with "
                        "OLLAMA_HOST=0.0.0.0 for remote use) and run "
                        f"`aria config set llm.{name}.url http://HOST:PORT`",
                    )
                )
                continue
            reachable += 1
            names = [m.name for m in models]
            wanted = backend.model
            results.append(
                judged(
                    name,
                    wanted in names or f"{wanted}:latest" in names,
                    f"reachable; models: {', '.join(names[:8]) or 'none'}",
                    f"model {wanted!r} is missing: `ollama pull {wanted}` on that machine, "
                    f"or `aria config set llm.{name}.model NAME`",
                )
            )
            results.append(await _model_facts(name, backend))
        key_status = keystore.secret_status("anthropic_api_key")
        if key_status == "missing":
            results.append(
                warn(
                    "anthropic",
                    "no API key: no cloud fallback",
                    "aria config set-secret anthropic_api_key",
                )
            )
        else:
            reachable += 1
            results.append(
                ok(
                    "anthropic",
                    f"API key from {key_status}; model {settings.llm.anthropic.model}",
                )
            )
    finally:
        await router.aclose()
    if reachable == 0:
        results.append(
            CheckResult(
                name="llm",
                status="FAIL",
                detail="no language model backend is usable",
                fix="point ARIA at Ollama (`aria config set llm.ollama.url http://HOST:11434`) "
                "or add a cloud key (`aria config set-secret anthropic_api_key`)",
            )
        )
    return results
