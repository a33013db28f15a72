"""Voice: speak text, transcribe a WAV, listen now, push-to-talk from a remote button."""

from __future__ import annotations

from typing import Annotated, TypeVar

from fastapi import Query, Request, Response

from aria_desktop.api.routes._commands import execute_expecting
from aria_desktop.api.routes._router import capability_router
from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import AssistantDep
from aria_desktop.api.server.schemas.voice import (
    ListenOut,
    PushToTalkIn,
    PushToTalkOut,
    SpeakIn,
    TranscriptOut,
)
from aria_desktop.core.ports import Assistant
from aria_desktop.domain.audio import SpeechAudio, Transcript
from aria_desktop.domain.commands import PushToTalk, Speak, Transcribe
from aria_desktop.domain.errors import AudioFormatError, VoiceUnavailableError

router = capability_router("voice", docs.BODY, docs.VOICE)
"""Every voice route is a POST (its body is checked) and answers 503 when voice is not set up."""

_T = TypeVar("_T")


_VOICE_NOT_SET_UP = VoiceUnavailableError(
    "Voice is not set up in this ARIA.",
    hint="Set voice.enabled = true and restart ARIA; `aria doctor` checks the voice models.",
)
_LISTEN_FOLLOW_UP = (
    "Follow the turn on `GET /api/v1/events`: `stt-vad-start`/`stt-vad-end` while listening, "
    "`stt-start`/`stt-end` with the transcript, then the reply's `run-start`, `llm-delta`, "
    "`run-end` and, when spoken, `tts-start`/`tts-end`; `error` if it fails. Needs a "
    "microphone in the ARIA process (503 otherwise)."
)


async def _require_voice(assistant: Assistant) -> None:
    """Say that this ARIA has no voice at all (VoiceUnavailableError), unless it has."""
    if not any(c.name == "voice" for c in await assistant.capabilities()):
        raise _VOICE_NOT_SET_UP


async def _push_to_talk(assistant: Assistant, command: PushToTalk) -> None:
    """Send a push-to-talk key event, or say that this ARIA has no voice at all."""
    await _require_voice(assistant)
    await assistant.execute(command)


async def _voice(assistant: Assistant, command: Speak | Transcribe, result_type: type[_T]) -> _T:
    """Run a voice command; no voice capability (or an odd answer) means it is not set up."""
    await _require_voice(assistant)
    return await execute_expecting(assistant, command, result_type, _VOICE_NOT_SET_UP)


@router.post(
    "/speak",
    response_class=Response,
    summary="Say text with ARIA's voice: the speech as a WAV file (play=true also plays it)",
    responses=docs.responses(
        docs.INVALID,
        {
            200: {
                "description": "Mono 16-bit PCM WAV at the voice's sample rate",
                "content": docs.binary_content(docs.WAV_MEDIA_TYPE),
            }
        },
    ),
)
async def speak(body: SpeakIn, assistant: AssistantDep) -> Response:
    audio = await _voice(assistant, Speak(text=body.text, play=body.play), SpeechAudio)
    return Response(audio.to_wav(), media_type=docs.WAV_MEDIA_TYPE)


@router.post(
    "/transcribe",
    summary="Transcribe speech: send a 16-bit PCM WAV as the body (Content-Type audio/wav)",
    openapi_extra={
        "requestBody": {"required": True, "content": docs.binary_content(docs.WAV_MEDIA_TYPE)},
    },
    responses=docs.responses(docs.INVALID, {415: docs.error("The body is not audio/wav")}),
)
async def transcribe(
    request: Request,
    assistant: AssistantDep,
    language: Annotated[
        str | None,
        Query(
            min_length=2,
            max_length=16,
            pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$",
            description="Language code for multilingual models (default: the setting)",
        ),
    ] = None,
) -> TranscriptOut:
    wav = await request.body()
    if not wav:
        raise AudioFormatError(
            "The request has no audio.", hint="Send a 16-bit PCM WAV as the request body."
        )
    transcript = await _voice(assistant, Transcribe(wav=wav, language=language), Transcript)
    return TranscriptOut.of(transcript)


@router.post(
    "/listen",
    status_code=202,
    summary="Listen now (push-to-talk): the command ends at the next pause",
    description=_LISTEN_FOLLOW_UP,
)
async def listen(assistant: AssistantDep) -> ListenOut:
    await _push_to_talk(assistant, PushToTalk(action="listen"))
    return ListenOut()


@router.post(
    "/push-to-talk",
    status_code=202,
    summary="Push-to-talk from a remote button: press, release, toggle or listen",
    description=(
        "Hold-to-talk: `press` when the button goes down, `release` when it comes up (the "
        "command ends there; one never released ends at `voice.vad.max_s`). `toggle` starts "
        "or ends listening; `listen` ends at the next pause. Follow the turn on "
        "`GET /api/v1/events` as for `/listen`. With `purpose` `dictate` the words are typed "
        "into the focused window instead (through the computer-use safety policy: never into "
        "a password field or a protected window); `dictation-end` says what was typed. Needs "
        "a microphone in the ARIA process (503 otherwise)."
    ),
)
async def push_to_talk(body: PushToTalkIn, assistant: AssistantDep) -> PushToTalkOut:
    await _push_to_talk(assistant, PushToTalk(action=body.action, purpose=body.purpose))
    return PushToTalkOut(action=body.action)
