"""Voice adapters: audio in and out, wake word, VAD, speech to text and back.

They satisfy the voice ports of ``core.voice`` structurally: WAV and raw-PCM sources and sinks
(``audio``, ``resample``), sound devices (``devices``, sounddevice; ``pulse_devices``, the
sound server's own), the wake word (``wakeword``, openWakeWord, and the phrase check
``wake_check``), faster-whisper and Silero VAD
(``whisper``, with ``whisper_models`` and the name hints of ``vocabulary``), Piper
(``piper_tts``) and remote Wyoming services (``wyoming_client``). Import the submodules
directly: each imports its heavy library when it is used.
"""

from __future__ import annotations

__all__: list[str] = []
