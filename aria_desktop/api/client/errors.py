"""How the API client turns HTTP failures back into the ``AriaError`` the owner raised.

Shared by ``ApiClient`` and its event stream (``api.subscription``), which is imported only by
a client that subscribes.
"""

from __future__ import annotations

import httpx

from aria_desktop.domain import errors as e
from aria_desktop.domain.errors import AriaError, LLMTimeoutError

__all__ = ["error_from", "unreachable"]

_ERRORS: dict[str, type[AriaError]] = {
    cls.code: cls
    for cls in (
        e.NotFoundError,
        e.ConfirmationError,
        e.ConfigError,
        e.AutomationError,
        e.MemoryInvalidError,
        e.MemoryUnavailableError,
        e.KnowledgeError,
        e.KnowledgeUnavailableError,
        e.ListInvalidError,
        e.TimerError,
        e.ReminderError,
        e.HomeAssistantError,
        e.HomeAssistantAuthError,
        e.HomeAssistantUnreachableError,
        e.HomeAssistantTimeoutError,
        e.VoiceError,
        e.AudioDeviceError,
        e.AudioFormatError,
        e.VoiceModelError,
        e.SpeechRecognitionError,
        e.SpeechSynthesisError,
        e.VoiceUnavailableError,
        e.ComputerError,
        e.DisplayUnavailableError,
        e.OcrUnavailableError,
        e.InputUnavailableError,
        e.ComputerControlOffError,
        e.ComputerBusyError,
        e.MonitorNotFoundError,
        e.TargetNotFoundError,
        e.TargetAmbiguousError,
        e.TargetChangedError,
        e.ActionAbortedError,
        # A whole reply that failed (``POST /chat`` with stream=false, the compat routes).
        e.LLMError,
        e.NoBackendError,
        e.BackendUnreachableError,
        e.LLMTimeoutError,
        e.RateLimitedError,
        e.ServerError,
        e.AuthenticationError,
        e.BadRequestError,
        e.ModelNotFoundError,
        e.ContextOverflowError,
        e.CapabilityMissingError,
        e.CloudBudgetError,
        e.CircuitOpenError,
        e.TurnDeadlineError,
    )
}


def error_from(response: httpx.Response) -> AriaError:
    """The ``AriaError`` an unsuccessful response stands for (its class found by its code)."""
    try:
        detail = response.json()["error"]
        code, message, hint = str(detail["code"]), str(detail["message"]), str(detail["hint"])
    except (ValueError, KeyError, TypeError):
        code, message, hint = "http_error", f"HTTP {response.status_code}", ""
    if response.status_code == 401:
        return e.ApiAuthError(
            "The running ARIA refused our API token.",
            hint="The token may have been rotated; check the token file (`aria token show`).",
        )
    cls = _ERRORS.get(code)
    if cls is LLMTimeoutError:
        return LLMTimeoutError(message, kind="total", hint=hint, status=response.status_code)
    if cls is not None and issubclass(cls, e.LLMError):
        return cls(message, hint=hint, status=response.status_code)
    if cls is not None:
        return cls(message, hint=hint)
    return e.ApiError(message, remote_code=code, status=response.status_code, hint=hint)


def unreachable(base_url: str, exc: Exception) -> e.OwnerUnreachableError:
    """The error for a request that found no ARIA answering at ``base_url``."""
    return e.OwnerUnreachableError(
        f"Could not reach the running ARIA at {base_url}: {exc.__class__.__name__}.",
        hint="Check that it still runs (`aria status`); it may be starting or stopping.",
    )
