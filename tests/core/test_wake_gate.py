"""Which wake detections count, with plain numbers for audio time and clock time."""

from __future__ import annotations

from aria_desktop.core.voice.wake_gate import GATE_AFTER_S, GATE_BEFORE_S, WakeGate


def armed_gate(refractory_s: float = 2.0) -> WakeGate:
    gate = WakeGate(refractory_s=refractory_s)
    assert gate.arm() is True
    return gate


def test_arming_and_disarming_report_changes_once() -> None:
    gate = WakeGate(refractory_s=2.0)
    assert gate.disarm() is False
    assert gate.arm() is True
    assert gate.arm() is False
    assert gate.disarm() is True
    assert gate.armed is False


def test_a_disarmed_gate_accepts_nothing() -> None:
    gate = WakeGate(refractory_s=2.0)
    assert not gate.accept(audio_s=10.0, now=10.0, speaking=False)


def test_an_accepted_detection_disarms_and_starts_the_refractory_time() -> None:
    gate = armed_gate()
    assert gate.accept(audio_s=10.0, now=100.0, speaking=False)
    assert gate.arm() is True, "accepting disarmed it"
    assert not gate.accept(audio_s=11.9, now=101.9, speaking=False)
    assert gate.disarm() is True, "a refused detection leaves the gate armed"
    gate.arm()
    assert gate.accept(audio_s=12.0, now=102.0, speaking=False)


def test_own_wake_word_is_ignored_around_where_the_scan_found_it() -> None:
    gate = armed_gate()
    gate.ignore_own_wake_words(play_at=50.0, offsets_s=[1.0])
    assert not gate.accept(audio_s=1.0, now=51.0 - GATE_BEFORE_S, speaking=True)
    assert not gate.accept(audio_s=1.0, now=51.0 + GATE_AFTER_S, speaking=True)
    assert gate.accept(audio_s=1.0, now=51.0 + GATE_AFTER_S + 0.01, speaking=True)


def test_windows_only_apply_while_aria_speaks() -> None:
    gate = armed_gate()
    gate.ignore_own_wake_words(play_at=50.0, offsets_s=[1.0])
    assert gate.accept(audio_s=1.0, now=51.0, speaking=False)


def test_unscannable_speech_is_ignored_for_its_whole_playback() -> None:
    gate = armed_gate()
    gate.ignore_playback(play_at=20.0, duration_s=3.0)
    assert not gate.accept(audio_s=1.0, now=20.0, speaking=True)
    assert not gate.accept(audio_s=1.0, now=23.0 + GATE_AFTER_S, speaking=True)
    assert gate.accept(audio_s=1.0, now=23.0 + GATE_AFTER_S + 0.01, speaking=True)


def test_detections_are_ignored_while_a_piece_not_yet_scanned_plays() -> None:
    gate = armed_gate()
    scan = gate.scan_started(play_at=5.0, duration_s=2.0)
    assert not gate.accept(audio_s=1.0, now=5.0, speaking=True)
    assert not gate.accept(audio_s=1.0, now=7.0 + GATE_AFTER_S, speaking=True)
    gate.scan_finished(scan)
    assert gate.accept(audio_s=1.0, now=5.0, speaking=True)


def test_a_pending_scan_of_a_later_piece_does_not_gate_the_one_playing() -> None:
    gate = armed_gate()
    first = gate.scan_started(play_at=5.0, duration_s=2.0)
    gate.scan_started(play_at=7.0, duration_s=3.0)  # queued behind it, not scanned yet
    gate.scan_finished(first)
    assert gate.accept(audio_s=1.0, now=5.5, speaking=True)
