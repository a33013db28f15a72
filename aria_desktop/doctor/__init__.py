"""``aria doctor``: checks the set-up and says how to fix what is wrong.

Each check returns OK, WARN (works, with less) or FAIL (ARIA cannot work until fixed) and a
one-line fix (``result``); checks never raise, a check that crashes is itself reported as FAIL.
Like ``cli`` it may touch any adapter, built through ``compose``. The checks are grouped by
area (``storage``, ``llm``, ``model_load``, ``voice``, ``speech_server``, ``api``,
``computer``, ``desktop``, ``skills``, ``knowledge``, ``homeassistant``, ``mcp``); a new
capability adds its checks to its area's module and one line to :func:`run_checks`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from aria_desktop.doctor.api import check_api
from aria_desktop.doctor.computer import check_computer, check_tesseract
from aria_desktop.doctor.desktop import check_desktop_app, check_display
from aria_desktop.doctor.homeassistant import check_homeassistant
from aria_desktop.doctor.knowledge import check_knowledge
from aria_desktop.doctor.llm import check_backends
from aria_desktop.doctor.mcp import check_mcp
from aria_desktop.doctor.model_load import check_model_load
from aria_desktop.doctor.result import CheckResult
from aria_desktop.doctor.skills import check_desktop_skills
from aria_desktop.doctor.speech_server import check_speech_server
from aria_desktop.doctor.storage import (
    check_audit,
    check_config,
    check_keyring,
    check_memory,
    check_sqlite,
)
from aria_desktop.doctor.voice import check_audio, check_voice_models
from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.settings import Settings

__all__ = ["CheckResult", "run_checks"]

_LOGGER = logging.getLogger(__name__)


async def run_checks(
    settings: Settings, settings_problems: tuple[SettingsProblem, ...] = ()
) -> list[CheckResult]:
    """Run every check in report order; a check that crashes is reported as FAIL, never raised.

    ``settings_problems``: what the tolerant load could not use; they are the first rows.
    """
    results: list[CheckResult] = []

    async def guarded(name: str, check: Callable[[], Awaitable[list[CheckResult]]]) -> None:
        try:
            results.extend(await check())
        except Exception as exc:
            _LOGGER.exception("doctor check %s crashed", name)
            results.append(
                CheckResult(name=name, status="FAIL", detail=f"check failed: {exc}", fix="")
            )

    async def one(check: Callable[[], CheckResult]) -> list[CheckResult]:
        return [check()]

    await guarded("config", lambda: asyncio.to_thread(check_config, settings, settings_problems))
    await guarded("sqlite", lambda: asyncio.to_thread(check_sqlite, settings))
    await guarded("llm", lambda: check_backends(settings))
    await guarded("model load", lambda: check_model_load(settings))
    await guarded("keyring", lambda: one(check_keyring))
    await guarded("audit log", lambda: asyncio.to_thread(lambda: [check_audit()]))
    await guarded("display", lambda: one(check_display))
    await guarded("tesseract", lambda: one(check_tesseract))
    await guarded("audio", lambda: asyncio.to_thread(check_audio, settings))
    await guarded("voice models", lambda: asyncio.to_thread(check_voice_models, settings))
    await guarded("speech server", lambda: check_speech_server(settings))
    await guarded("memory", lambda: check_memory(settings))
    await guarded("knowledge", lambda: one(lambda: check_knowledge(settings)))
    await guarded("local API", lambda: asyncio.to_thread(check_api, settings))
    await guarded("computer use", lambda: asyncio.to_thread(check_computer, settings))
    await guarded("home assistant", lambda: check_homeassistant(settings))
    await guarded("desktop app", lambda: asyncio.to_thread(check_desktop_app))
    await guarded("desktop skills", check_desktop_skills)
    await guarded("MCP", lambda: check_mcp(settings))
    return results
