"""The voice pipeline's states and the one place where they change.

A voice turn moves through waiting for the wake word, listening, transcribing, thinking and
speaking; muting or losing the microphone stops it. Each change goes through
:meth:`VoiceStateMachine.transition`, which refuses a change the pipeline never makes (a bug,
not a user error) and publishes the assistant state that clients show for it (tray icon,
``state-changed`` events). See ``aria_desktop/ARCHITECTURE.md``, "One voice turn".
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable

from aria_desktop.domain.events import AssistantState

__all__ = [
    "BUSY_STATES",
    "IllegalVoiceTransition",
    "StatePublisher",
    "TransitionObserver",
    "VoiceState",
    "VoiceStateMachine",
    "allowed_transitions",
]

_LOGGER = logging.getLogger(__name__)


class VoiceState(enum.Enum):
    """What the voice pipeline is doing."""

    STOPPED = "stopped"
    """No capture: not started yet, muted, the source ended or failed, or stopped."""
    WAKE = "wake"
    """The microphone is open; waiting for the wake word (or push-to-talk)."""
    LISTENING = "listening"
    """Recording a command until endpointing (or the push-to-talk release) ends it."""
    TRANSCRIBING = "transcribing"
    """Speech-to-text of the recorded command."""
    THINKING = "thinking"
    """The command's turn runs; no reply sentence has been spoken yet."""
    SPEAKING = "speaking"
    """The reply is being spoken, sentence by sentence, while it may still stream in."""


BUSY_STATES = frozenset({VoiceState.TRANSCRIBING, VoiceState.THINKING, VoiceState.SPEAKING})
"""States in which a voice turn task answers a command (the wake word interrupts it)."""

_S = VoiceState
_ALLOWED: dict[VoiceState, frozenset[VoiceState]] = {
    # opened capture (wake word, or a WAV file that holds only a command)
    _S.STOPPED: frozenset({_S.WAKE, _S.LISTENING}),
    # wake word or push-to-talk; the source ended, mute, stop
    _S.WAKE: frozenset({_S.LISTENING, _S.STOPPED}),
    # endpointing ended the command; nothing was said / kill switch; mute, source end, stop
    _S.LISTENING: frozenset({_S.TRANSCRIBING, _S.WAKE, _S.STOPPED}),
    # text -> turn; no text, failure or kill switch -> rest; push-to-talk interrupts
    _S.TRANSCRIBING: frozenset({_S.THINKING, _S.WAKE, _S.LISTENING, _S.STOPPED}),
    # first sentence; done or kill switch; wake word, push-to-talk or follow-up
    _S.THINKING: frozenset({_S.SPEAKING, _S.WAKE, _S.LISTENING, _S.STOPPED}),
    # another sentence (shows speaking again: a typed turn or a tool may have shown another
    # state meanwhile); done or kill switch; wake word, push-to-talk or follow-up; stop
    _S.SPEAKING: frozenset({_S.SPEAKING, _S.WAKE, _S.LISTENING, _S.STOPPED}),
}

_VISIBLE: dict[VoiceState, AssistantState | None] = {
    _S.STOPPED: "idle",
    _S.WAKE: "idle",
    _S.LISTENING: "listening",
    _S.TRANSCRIBING: "thinking",
    _S.THINKING: None,  # the turn shows "thinking" itself, with its run id
    _S.SPEAKING: "speaking",
}

StatePublisher = Callable[[AssistantState, str | None], None]
"""Publishes the visible assistant state (``Orchestrator.set_state``)."""

TransitionObserver = Callable[[VoiceState, VoiceState], None]
"""Told of every transition as ``(from, to)``, after it happened."""


def allowed_transitions(state: VoiceState) -> frozenset[VoiceState]:
    """The states the pipeline may move to from ``state``."""
    return _ALLOWED[state]


class IllegalVoiceTransition(RuntimeError):
    """The pipeline tried a state change it never makes: a programming error."""


class VoiceStateMachine:
    """The pipeline's current state, changed only by :meth:`transition`.

    ``muted`` is kept beside the state, not as one: it is the user's microphone switch, and a
    reply being answered when the user mutes is still thought through and spoken (so muted
    overlaps with thinking and speaking). It decides what an idle pipeline shows.

    Args:
        publish: shows the assistant state (``Orchestrator.set_state``).
    """

    def __init__(self, publish: StatePublisher) -> None:
        self._publish = publish
        self._state = VoiceState.STOPPED
        self._muted = False
        self.observer: TransitionObserver | None = None

    @property
    def state(self) -> VoiceState:
        """The current state."""
        return self._state

    @property
    def busy(self) -> bool:
        """Whether a voice turn is being answered (transcribing, thinking or speaking)."""
        return self._state in BUSY_STATES

    @property
    def muted(self) -> bool:
        """Whether the user muted the microphone."""
        return self._muted

    def transition(self, to: VoiceState, run_id: str | None = None) -> None:
        """Move to ``to`` and show the matching assistant state.

        Args:
            to: the new state; must be allowed from the current one.
            run_id: the turn the new state belongs to (shown with ``speaking``).

        Raises:
            IllegalVoiceTransition: ``to`` cannot follow the current state.
        """
        before = self._state
        if to not in _ALLOWED[before]:
            raise IllegalVoiceTransition(f"voice state {before.value} -> {to.value}")
        self._state = to
        _LOGGER.debug("Voice state %s -> %s", before.value, to.value)
        visible = self.visible_state(to)
        if visible is not None:
            self._publish(visible, run_id)
        if self.observer is not None:
            self.observer(before, to)

    def visible_state(self, state: VoiceState) -> AssistantState | None:
        """What clients are shown in ``state`` (None: the running turn decides)."""
        if self._muted and state in (VoiceState.STOPPED, VoiceState.WAKE):
            return "muted"
        return _VISIBLE[state]

    def set_muted(self, muted: bool) -> None:
        """Record the user's mute switch and show it (``muted``, or ``idle`` when unmuted).

        The state itself changes separately: the caller closes or opens the capture.
        """
        self._muted = muted
        self._publish("muted" if muted else "idle", None)
