"""Endpointing rules, fed plain lists of speech flags (no audio, no clock)."""

from __future__ import annotations

import pytest

from aria_desktop.core.voice.endpointing import (
    CommandRecording,
    PreRoll,
    SegmentEvent,
    SpeechSegmenter,
    rms_dbfs,
)
from aria_desktop.core.voice.pipeline import FRAME_S, VoiceConfig

S, Q = True, False  # a speech frame, a quiet frame
STARTED, SILENCE = SegmentEvent.SPEECH_STARTED, SegmentEvent.SILENCE
MAX, NO_SPEECH = SegmentEvent.MAX_LENGTH, SegmentEvent.NO_SPEECH


def segmenter(**overrides: float | bool) -> SpeechSegmenter:
    """A segmenter with the default voice settings (0.7 s silence, 10 s, 5 s)."""
    config = VoiceConfig()
    settings: dict[str, float | bool] = {
        "silence_s": config.silence_s,
        "max_s": config.max_command_s,
        "no_speech_timeout_s": config.no_speech_timeout_s,
    }
    settings.update(overrides)
    return SpeechSegmenter(**settings)  # type: ignore[arg-type]


def run(seg: SpeechSegmenter, flags: list[bool]) -> list[tuple[int, SegmentEvent]]:
    """Feed 80 ms frames; returns (frame index, event) for everything that happened."""
    return [(i, event) for i, flag in enumerate(flags) for event in seg.process(FRAME_S, flag)]


def test_one_speech_frame_starts_the_command() -> None:
    assert run(segmenter(), [Q, Q, S]) == [(2, STARTED)]


def test_default_silence_of_0_7_s_ends_it_on_the_ninth_quiet_frame() -> None:
    # 8 quiet frames are 0.64 s, 9 are 0.72 s >= 0.7 s
    assert run(segmenter(), [S] + [Q] * 9) == [(0, STARTED), (9, SILENCE)]
    assert run(segmenter(), [S] + [Q] * 8) == [(0, STARTED)]


def test_speech_resets_the_silence() -> None:
    flags = [S] + [Q] * 8 + [S] + [Q] * 8 + [S] + [Q] * 9
    assert run(segmenter(), flags) == [(0, STARTED), (len(flags) - 1, SILENCE)]


def test_no_speech_ends_after_the_timeout() -> None:
    # 5 s = 62.5 frames: the 63rd frame ends it
    events = run(segmenter(), [Q] * 70)
    assert events == [(62, NO_SPEECH)]


def test_follow_up_wait_is_the_no_speech_timeout_it_is_given() -> None:
    assert run(segmenter(no_speech_timeout_s=0.4), [Q] * 10) == [(4, NO_SPEECH)]


def test_max_length_ends_a_command_that_never_pauses() -> None:
    # 10 s of speech: the 125th frame (125 x 0.08 s)
    assert run(segmenter(), [S] * 200) == [(0, STARTED), (124, MAX)]


def test_held_push_to_talk_ignores_silence_and_no_speech_but_not_max_length() -> None:
    seg = segmenter(hold=True, max_s=2.0)
    events = run(seg, [Q] * 10 + [S] + [Q] * 30)
    assert events[0] == (10, STARTED)
    assert [event for _i, event in events[1:]] == [MAX]
    assert seg.heard_s >= 2.0


def test_speech_start_and_max_length_in_the_same_frame() -> None:
    seg = segmenter(hold=True, max_s=0.16)
    assert seg.process(FRAME_S, Q) == ()
    assert seg.process(FRAME_S, S) == (STARTED, MAX)


def test_frames_after_the_end_are_ignored() -> None:
    seg = segmenter()
    run(seg, [S] + [Q] * 9)
    assert seg.ended is SILENCE
    assert seg.process(FRAME_S, S) == ()


def test_preroll_keeps_the_last_half_second() -> None:
    preroll = PreRoll(preroll_s=VoiceConfig().preroll_s, frame_s=FRAME_S)
    assert preroll.capacity == 6  # round(0.5 / 0.08)
    for n in range(10):
        preroll.append(bytes([n]))
    assert preroll.take() == [bytes([n]) for n in range(4, 10)]
    assert preroll.take() == []


def test_preroll_keeps_at_least_one_frame() -> None:
    preroll = PreRoll(preroll_s=0.0, frame_s=FRAME_S)
    preroll.append(b"a")
    preroll.append(b"b")
    assert preroll.take() == [b"b"]


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (b"", -100.0),
        (b"\0\0" * 4, -100.0),
        ((32767).to_bytes(2, "little", signed=True) * 4, 0.0),
        ((-32768).to_bytes(2, "little", signed=True) * 4, 0.0),
    ],
)
def test_rms_dbfs(frame: bytes, expected: float) -> None:
    assert rms_dbfs(frame) == pytest.approx(expected, abs=0.01)


def test_rms_of_a_quiet_frame_is_in_between() -> None:
    quiet = (328).to_bytes(2, "little", signed=True) * 8  # 1 % of full scale
    assert rms_dbfs(quiet) == pytest.approx(-40.0, abs=0.1)


def test_preroll_gives_each_trigger_its_own_length() -> None:
    config = VoiceConfig()
    preroll = PreRoll(preroll_s=config.longest_preroll_s, frame_s=FRAME_S)
    assert preroll.capacity == 19  # round(1.5 / 0.08): the whole wake phrase
    for n in range(30):
        preroll.append(bytes([n]))
    assert preroll.take(config.preroll_s) == [bytes([n]) for n in range(24, 30)]
    assert preroll.take(config.wake_preroll_s) == [], "taking empties the ring"


PAUSED = SegmentEvent.PAUSED


def test_a_pause_of_early_s_is_reported_once_before_the_silence_ends_the_command() -> None:
    # early_s 0.3 s: the 4th quiet frame (0.32 s); the 9th (0.72 s) ends the command
    assert run(segmenter(early_s=0.3), [S] + [Q] * 9) == [(0, STARTED), (4, PAUSED), (9, SILENCE)]


def test_speech_after_a_pause_allows_the_next_pause_to_be_reported() -> None:
    flags = [S] + [Q] * 5 + [S] + [Q] * 9
    assert run(segmenter(early_s=0.3), flags) == [
        (0, STARTED),
        (4, PAUSED),
        (10, PAUSED),
        (15, SILENCE),
    ]


@pytest.mark.parametrize("early_s", [0.0, 0.7, 1.0])
def test_no_pause_is_reported_when_early_s_is_off_or_not_before_the_end(early_s: float) -> None:
    assert run(segmenter(early_s=early_s), [S] + [Q] * 9) == [(0, STARTED), (9, SILENCE)]


def test_no_pause_is_reported_while_push_to_talk_is_held() -> None:
    assert run(segmenter(early_s=0.3, hold=True), [S] + [Q] * 20) == [(0, STARTED)]


def test_a_command_ended_by_silence_is_transcribed_up_to_its_last_pause() -> None:
    frames = [bytes([n]) * 2 for n in range(12)]
    recording = CommandRecording(trigger="wake", segmenter=segmenter(), frames=frames, cut=7)
    assert recording.audio("silence") == b"".join(frames[:7])
    assert recording.audio("max_length") == b"".join(frames)
    assert CommandRecording(trigger="wake", segmenter=segmenter(), frames=frames).audio(
        "silence"
    ) == b"".join(frames)
