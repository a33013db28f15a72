"""Doctor checks of voice.

Sound devices (a machine without them is normal), the runtimes and models of the wake word,
speech-to-text and text-to-speech stages, and Wyoming servers (the speech-to-text one is
probed, in ``speech_server``).
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable

from aria_desktop import paths
from aria_desktop.doctor.result import CheckResult, ok, warn
from aria_desktop.domain.errors import AriaError
from aria_desktop.settings import Settings

__all__ = ["check_audio", "check_voice_models"]

_RUNTIMES = {
    "whisper runtime": "faster_whisper",
    "text-to-speech runtime": "piper",
    "wake word runtime": "openwakeword",
}
"""What each voice stage runs on -> the module that must be installed for it."""


def check_audio(settings: Settings) -> list[CheckResult]:
    """Sound devices, and whether the configured microphone and speaker exist."""
    if importlib.util.find_spec("sounddevice") is None:
        return [
            warn(
                "audio",
                "sounddevice not installed",
                "pip install 'aria-desktop[voice]' (and apt-get install libportaudio2)",
            )
        ]
    from aria_desktop.adapters.voice.devices import find_device, list_devices

    try:
        devices = list_devices()
    except AriaError as exc:  # PortAudio missing or no audio system: a normal state
        return [warn("audio", exc.message, exc.hint)]
    inputs = [d for d in devices if d.inputs > 0]
    outputs = [d for d in devices if d.outputs > 0]
    if not devices:
        return [
            warn(
                "audio",
                "no sound device (no microphone, no speaker)",
                "connect a headset or speakers and a microphone to talk to ARIA; typed chat "
                "works without them",
            )
        ]
    if not inputs:
        return [
            warn(
                "audio",
                f"no microphone ({len(outputs)} output devices)",
                "connect a microphone to talk to ARIA; typed chat works without one",
            )
        ]
    results = []
    for spec, output in (
        (settings.voice.input_device, False),
        (settings.voice.output_device, True),
    ):
        kind = "speaker" if output else "microphone"
        try:
            device = find_device(spec, output=output)
        except AriaError as exc:
            results.append(warn(kind, exc.message, exc.hint))
        else:
            results.append(ok(kind, device.name))
    return results


def _model_checks(settings: Settings) -> list[tuple[str, str, Callable[[], object]]]:
    """(stage, model, find its files) for each stage that runs in-process."""
    from aria_desktop.adapters.voice.piper_tts import piper_voice_path
    from aria_desktop.adapters.voice.wakeword import resolve_wake_model
    from aria_desktop.adapters.voice.whisper_models import describe_whisper_model, is_english_only

    voice = settings.voice
    checks: list[tuple[str, str, Callable[[], object]]] = []
    if voice.wake.enabled and voice.wake.engine == "local":
        for model in (voice.wake.model, *voice.wake.custom_models):
            checks.append(("wake word", model, functools.partial(resolve_wake_model, model)))
    if voice.stt.engine == "local":
        language = voice.stt.language or (
            "English" if is_english_only(voice.stt.model) else "detected per command"
        )
        checks.append(
            (
                "speech-to-text",
                f"{voice.stt.model} (language: {language})",
                lambda: describe_whisper_model(voice.stt.model, cache_dir=paths.model_cache_dir()),
            )
        )
    if voice.tts.engine == "local":
        checks.append(
            (
                "text-to-speech",
                voice.tts.voice or "packaged",
                lambda: piper_voice_path(voice.tts.voice),
            )
        )
    return checks


def check_voice_models(settings: Settings) -> list[CheckResult]:
    """The voice runtimes are installed and each in-process stage finds its model."""
    results = [
        warn(
            "voice models",
            f"{label} ({module}) is not installed",
            "pip install 'aria-desktop[voice]'",
        )
        for label, module in _RUNTIMES.items()
        if importlib.util.find_spec(module) is None
    ]
    for label, model, check in _model_checks(settings):
        try:
            path = check()
        except AriaError as exc:
            results.append(warn(label, exc.message, exc.hint))
        else:
            results.append(ok(label, f"{model}: {path}"))
    voice = settings.voice
    for stage, engine, uri in (
        ("wake word", voice.wake.engine, voice.wake.wyoming_uri),
        ("text-to-speech", voice.tts.engine, voice.tts.wyoming_uri),
    ):
        if engine == "wyoming":
            results.append(ok(stage, f"Wyoming server {uri}"))
    return results
