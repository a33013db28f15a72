"""Test my voice in the wizard, on a real sound server: the sentences are spoken (Piper) into a
private PulseAudio whose monitor is the microphone, every packaged model hears them, the one
that heard best is offered, and Finish writes it. A silent recording asks again."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop.adapters.voice.audio import resample_pcm
from aria_desktop.adapters.voice.piper_tts import PiperTTS
from aria_desktop.compose.desktop_services import LocalSettingsService
from aria_desktop.domain.audio import PIPELINE_RATE_HZ, encode_wav
from aria_desktop.domain.voice_trial import TRIAL_SENTENCES
from aria_desktop.gui.views.wizard import FINISH_PAGE, VOICE_PAGE
from tests.gui.conftest import wait_for
from tests.gui.test_render import assert_fully_visible, screenshot, settle
from tests.gui.test_settings_and_hotkeys import settings_file
from tests.gui.test_wizard import closed_address
from tests.gui.wizard_steps import go_to
from tests.voice.pulse import PulseServer, pulse_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pulse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PulseServer]:
    with pulse_server(tmp_path_factory.mktemp("pulse")) as server:
        yield server


@pytest.fixture(scope="module")
def spoken(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Each trial sentence as a WAV (half a second of silence first), spoken by Piper."""
    tts = PiperTTS(varied=False)
    asyncio.run(tts.load())
    folder = tmp_path_factory.mktemp("trial-speech")
    files = []
    for index, sentence in enumerate(TRIAL_SENTENCES):
        pcm = b"\0\0" * (PIPELINE_RATE_HZ // 2)
        for piece in tts._synthesize(sentence):
            pcm += resample_pcm(piece.pcm, piece.sample_rate_hz, PIPELINE_RATE_HZ)
        path = folder / f"sentence{index}.wav"
        path.write_bytes(encode_wav(pcm, PIPELINE_RATE_HZ))
        files.append(path)
    return files


def _recorded(trial: Any, count: int) -> Any:
    """Whether ``count`` sentences are recorded (or the trial ended)."""
    return lambda: len(trial.recordings) >= count or trial.finished


def test_the_model_that_hears_the_voice_best_is_offered_and_saved(
    desktop_factory: Any, isolated_env: Path, pulse: PulseServer, spoken: list[Path], run: Any
) -> None:
    LocalSettingsService().apply({"llm.ollama.url": closed_address()})
    desktop = desktop_factory(None)
    wizard = desktop.wizard
    view = wizard.open()
    run(wait_for(lambda: wizard.model_page.probed))
    go_to(view, VOICE_PAGE)
    view.voice_trial_button.click()
    trial = wizard.voice_trial
    assert trial is not None
    assert trial.view is not None
    trial.record_seconds = 4.0
    assert trial.view.sentence.text() == f"“{TRIAL_SENTENCES[0]}”"

    # Nothing said: asked again, the same sentence.
    trial.record_seconds = 1.0
    trial.view.record_button.click()
    run(wait_for(lambda: trial.view is not None and trial.view.record_button.isEnabled()))
    assert "heard almost nothing" in trial.view.status.text()
    assert trial.recordings == []
    trial.record_seconds = 4.0

    for index, wav in enumerate(spoken):
        trial.view.record_button.click()
        run(wait_for(lambda: trial.listening))
        player = pulse.play(wav)
        try:
            run(wait_for(_recorded(trial, index + 1), 15))
        finally:
            player.wait(timeout=10)
    run(wait_for(lambda: trial.finished, 120))  # three models hear three recordings
    assert trial.winner is not None, trial.view.status.text()
    labels = [s.candidate.label for s in trial.scores]
    assert labels == ["tiny.en", "tiny.en (quick)", "base"]
    assert trial.winner.errors == min(s.errors for s in trial.scores)
    # The sentences were heard: fewer than a quarter of the words wrong (Piper through the
    # sound server, recorded from wherever the recording caught it: 3 or 4 of 27 here).
    assert trial.winner.errors * 4 < trial.winner.words, trial.view.results.text()
    assert "heard you best" in trial.view.status.text()
    assert trial.view.use_button.isVisibleTo(trial.view)
    settle(run, trial.view)
    screenshot("voice-trial", "light")
    assert_fully_visible(trial.view, [trial.view.results, trial.view.use_button])
    trial.view.use_button.click()
    assert trial.chosen == trial.winner.candidate
    assert "heard you best" in view.voice_trial_status.text()
    go_to(view, FINISH_PAGE)
    assert f"Speech model: {trial.winner.candidate.label}" in view.summary.text()
    view.accept()
    stt = settings_file(isolated_env)["voice"]["stt"]
    assert (stt["model"], stt["beam_size"]) == (
        trial.winner.candidate.model,
        trial.winner.candidate.beam_size,
    )


def test_the_voice_trial_window_renders(desktop_factory: Any, run: Any, theme: str) -> None:
    """Its two moments as a person sees them: a sentence to read, then the results."""
    from aria_desktop.domain.voice_trial import SpeechCandidate, TrialScore
    from aria_desktop.gui.controllers.voice_trial import result_lines
    from aria_desktop.gui.views.voice_trial import VoiceTrialView

    desktop = desktop_factory(None)
    view = VoiceTrialView(desktop.wizard._icon)
    view.move(300, 120)
    view.step.setText("Sentence 2 of 3")
    view.sentence.setText(f"“{TRIAL_SENTENCES[1]}”")
    view.say("Got it. Now the next one.", "success")
    view.show_level(-20.0)
    view.show()
    settle(run, view)
    screenshot("voice-trial-reading", theme)
    assert_fully_visible(view, [view.sentence, view.record_button])
    scores = [
        TrialScore(SpeechCandidate("tiny.en", 5), errors=2, words=27, seconds=0.4),
        TrialScore(SpeechCandidate("tiny.en", 1), errors=4, words=27, seconds=0.2),
        TrialScore(SpeechCandidate("base", 5), errors=0, words=27, seconds=1.1),
    ]
    view.step.setText("")
    view.sentence.setText("")
    view.record_button.hide()
    view.level.hide()
    view.results.setText(result_lines(scores, scores[2]))
    view.say("base heard you best.", "success")
    view.use_button.setText("Use base")
    view.use_button.show()
    settle(run, view)
    screenshot("voice-trial-results", theme)
    assert_fully_visible(view, [view.results, view.use_button, view.close_button])
    view.hide()
