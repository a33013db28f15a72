"""The one table from error classes to HTTP statuses, resolved along the class hierarchy."""

from __future__ import annotations

import pytest

from aria_desktop.api.server.errors import (
    DEFAULT_STATUS,
    STATUS_BY_ERROR,
    STOPPING_STATUS,
    status_for,
)
from aria_desktop.domain import errors
from aria_desktop.domain.errors import AriaError

# The status of each concrete error class (a model that cannot answer is 503 or 504, not 502).
EXPECTED: dict[type[AriaError], int] = {
    errors.NotFoundError: 404,
    errors.TargetNotFoundError: 404,
    errors.DisplayUnavailableError: 503,
    errors.OcrUnavailableError: 503,
    errors.InputUnavailableError: 503,
    errors.MonitorNotFoundError: 422,
    errors.ComputerControlOffError: 409,
    errors.ComputerBusyError: 409,
    errors.TargetAmbiguousError: 409,
    errors.TargetChangedError: 409,
    errors.ActionAbortedError: 409,
    errors.ComputerError: 400,
    errors.ConfirmationError: 409,
    errors.ConfigError: 422,
    errors.AutomationError: 422,
    errors.MemoryInvalidError: 422,
    errors.AudioFormatError: 422,
    errors.LanguageNotSupportedError: 422,
    errors.StorageError: 503,
    errors.SchemaTooNewError: 503,
    errors.MemoryUnavailableError: 503,
    errors.VoiceError: 503,
    errors.AudioDeviceError: 503,
    errors.VoiceModelError: 503,
    errors.SpeechRecognitionError: 503,
    errors.SpeechSynthesisError: 503,
    errors.WyomingError: 503,
    errors.VoiceUnavailableError: 503,
    errors.LLMError: 502,
    errors.ContextOverflowError: 400,
    errors.BackendUnreachableError: 503,
    errors.NoBackendError: 503,
    errors.CircuitOpenError: 503,
    errors.BadRequestError: 400,
    errors.ModelNotFoundError: 502,
    errors.ToolError: 400,
    errors.ToolDeniedError: 400,
    errors.SecretStoreError: 400,
    errors.TurnDeadlineError: 504,
    errors.OwnerUnreachableError: 400,
}


@pytest.mark.parametrize("cls", list(EXPECTED), ids=lambda cls: cls.__name__)
def test_each_error_class_keeps_its_status(cls: type[AriaError]) -> None:
    assert status_for(cls("x")) == EXPECTED[cls]


def test_a_timeout_of_the_model_is_a_gateway_timeout() -> None:
    assert status_for(errors.LLMTimeoutError("x", kind="first_token")) == 504


def test_a_plain_aria_error_means_aria_is_stopping() -> None:
    assert status_for(AriaError("ARIA is shutting down.")) == STOPPING_STATUS == 503


def test_a_new_subclass_takes_the_status_of_its_nearest_listed_base() -> None:
    class SlowClickError(errors.ComputerBusyError):
        code = "slow_click"

    class OddError(AriaError):
        code = "odd"

    assert status_for(SlowClickError("x")) == 409
    assert status_for(OddError("x")) == DEFAULT_STATUS == 400


def test_every_computer_error_subclass_has_its_own_entry() -> None:
    # A plain ComputerError is 400; its subclasses must each say what they are.
    subclasses = [
        cls
        for cls in vars(errors).values()
        if isinstance(cls, type)
        and issubclass(cls, errors.ComputerError)
        and cls is not errors.ComputerError
    ]
    assert subclasses
    assert [cls.__name__ for cls in subclasses if cls not in STATUS_BY_ERROR] == []
