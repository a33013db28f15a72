"""Voice adapters.

Audio devices and files, wake word, VAD, speech-to-text, text-to-speech and Wyoming clients.
They satisfy the ``core.ports`` voice protocols structurally.

Import the submodules directly; each one imports its heavy library lazily:

- ``voice.audio``: WAV/raw-PCM sources, the WAV sink, resampling (numpy)
- ``voice.resample``: the polyphase resampling filter (numpy)
- ``voice.devices``: microphone, speaker and device listing (sounddevice)
- ``voice.wakeword``: openWakeWord detector (openwakeword)
- ``voice.whisper``: faster-whisper speech-to-text and Silero VAD (faster_whisper)
- ``voice.whisper_models``: which Whisper model (tiny.en, multilingual base joined into the
  cache, a folder) and language (stdlib only)
- ``voice.piper_tts``: Piper text-to-speech (piper)
- ``voice.wyoming_client``: remote wake/STT/TTS (wyoming)
"""

from __future__ import annotations

__all__: list[str] = []
