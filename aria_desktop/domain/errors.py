"""The ``AriaError`` tree.

Every failure a user or a program can see is an ``AriaError`` with a stable ``code`` (used in
``error`` events, API responses and exit messages) and an actionable ``hint``. Adapters translate
library exceptions into these (``raise ... from exc``) so nothing above them needs to know which
library failed.
"""

from __future__ import annotations

from typing import ClassVar


class AriaError(Exception):
    """Base of all expected ARIA failures.

    Attributes:
        code: stable machine-readable identifier (snake_case), part of the public API.
        hint: one sentence telling the user what to do about it ("" when nothing helps).
    """

    code: ClassVar[str] = "internal"

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


# --- configuration and secrets ----------------------------------------------------------------


class ConfigError(AriaError):
    """A settings file or variable is unreadable, unknown or has a value of the wrong type."""

    code = "config_invalid"


class SecretStoreError(AriaError):
    """The system keyring is missing or locked, or a secret could not be stored."""

    code = "secret_store_unavailable"


# --- storage -----------------------------------------------------------------------------------


class StorageError(AriaError):
    """The SQLite database could not be opened, read or written."""

    code = "storage_error"


class SchemaTooNewError(StorageError):
    """The database was written by a newer ARIA; this version refuses to write it."""

    code = "schema_too_new"


class DatabaseOwnedError(StorageError):
    """Another ARIA process owns the database (see the owner lock file)."""

    code = "database_owned"

    def __init__(self, message: str, *, pid: int, port: int | None, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.pid = pid
        self.port = port


class NotFoundError(AriaError):
    """A conversation, message or other record does not exist."""

    code = "not_found"


# --- language models ---------------------------------------------------------------------------


class LLMError(AriaError):
    """A language-model backend failed.

    Attributes:
        backend: name of the backend that failed ("ollama", "anthropic", ...).
        retryable: whether the same request may succeed if sent again to the same backend.
        retry_after_s: server-requested delay before a retry, in seconds (None if not given).
        status: HTTP status code when the failure was an HTTP response, else None.
    """

    code = "llm_error"
    default_retryable: ClassVar[bool] = False

    def __init__(
        self,
        message: str,
        *,
        backend: str = "",
        hint: str = "",
        retryable: bool | None = None,
        retry_after_s: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.backend = backend
        self.retryable = self.default_retryable if retryable is None else retryable
        self.retry_after_s = retry_after_s
        self.status = status


class BackendUnreachableError(LLMError):
    """The backend's server could not be connected to."""

    code = "backend_unreachable"
    default_retryable = True


class LLMTimeoutError(LLMError):
    """A timeout elapsed: ``kind`` is one of connect, first_token, stall, total."""

    code = "llm_timeout"
    default_retryable = True

    def __init__(self, message: str, *, kind: str, **kwargs: object) -> None:
        super().__init__(message, **kwargs)  # type: ignore[arg-type]
        self.kind = kind


class RateLimitedError(LLMError):
    """The backend asked us to slow down (HTTP 429, Anthropic 529 overloaded)."""

    code = "llm_rate_limited"
    default_retryable = True


class ServerError(LLMError):
    """The backend answered with a 5xx status."""

    code = "llm_server_error"
    default_retryable = True


class AuthenticationError(LLMError):
    """The backend rejected our credentials (401/403)."""

    code = "llm_auth_failed"


class BadRequestError(LLMError):
    """The backend rejected the request itself (4xx other than the ones above)."""

    code = "llm_bad_request"


class ModelNotFoundError(LLMError):
    """The configured model does not exist on the backend."""

    code = "llm_model_not_found"


class ContextOverflowError(LLMError):
    """The prompt does not fit the model's context window."""

    code = "llm_context_overflow"


class CapabilityMissingError(LLMError):
    """The model cannot do what the request needs (tools, vision, ...)."""

    code = "llm_capability_missing"


class CloudBudgetError(LLMError):
    """A cloud call was refused because it would go over ``llm.cloud``'s cost limits."""

    code = "cloud_budget"


class MalformedResponseError(LLMError):
    """The backend sent something that does not follow its protocol."""

    code = "llm_malformed_response"
    default_retryable = True


class StreamInterruptedError(LLMError):
    """A reply stream broke after some of it had been delivered.

    Attributes:
        partial_text: the text delivered before the cut (kept as an ``interrupted`` message).
    """

    code = "llm_stream_interrupted"

    def __init__(self, message: str, *, partial_text: str = "", **kwargs: object) -> None:
        super().__init__(message, **kwargs)  # type: ignore[arg-type]
        self.partial_text = partial_text


class CircuitOpenError(LLMError):
    """The backend's circuit breaker is open: it failed repeatedly and is not tried for now."""

    code = "llm_circuit_open"


class InvalidToolCallError(LLMError):
    """The model kept writing tool calls ARIA cannot use (unknown tool, arguments off schema)."""

    code = "llm_invalid_tool_call"


class StructuredOutputError(LLMError):
    """The model's JSON did not match the schema asked for, even after one repair attempt."""

    code = "llm_invalid_structured_output"


class NoBackendError(LLMError):
    """No backend is configured, or every backend in the fallback chain failed."""

    code = "no_backend"


# --- tools and turns ---------------------------------------------------------------------------


class ToolError(AriaError):
    """Base for tool-call failures; reported back to the model as the tool's result."""

    code = "tool_error"


class ToolNotFoundError(ToolError):
    code = "tool_not_found"


class ToolArgumentsError(ToolError):
    """The model's arguments do not match the tool's JSON schema."""

    code = "tool_arguments_invalid"


class ToolDeniedError(ToolError):
    """The safety policy (or the user) refused the call."""

    code = "tool_denied"


class ToolFailedError(ToolError):
    """The tool ran and failed."""

    code = "tool_failed"


class WebFetchError(ToolError):
    """A web page could not be fetched or read (network, status, type, size)."""

    code = "web_fetch_failed"


class WebAddressRefusedError(WebFetchError):
    """The address is not one ARIA may fetch.

    Not http(s), or a loopback, private, link-local or other non-public address that no
    setting allows (or ARIA's own API).
    """

    code = "web_address_refused"


class McpServerError(ToolFailedError):
    """An MCP server could not be reached, crashed, hung or answered nonsense."""

    code = "mcp_server_error"


class McpToolChangedError(ToolDeniedError):
    """An approved MCP tool changed its name, description or schema: disabled until reviewed."""

    code = "mcp_tool_changed"


class TurnDeadlineError(AriaError):
    """A turn ran past its deadline or its step budget."""

    code = "turn_deadline"


class AuditLogError(AriaError):
    """The audit log could not be written or failed verification."""

    code = "audit_log_invalid"


class SubscriberLaggedError(AriaError):
    """An event subscriber fell too far behind; its subscription was closed, not the bus."""

    code = "subscriber_lagged"


class ConfirmationError(AriaError):
    """A confirmation answer was refused (unknown request or wrong nonce)."""

    code = "confirmation_invalid"


# --- long-term memory --------------------------------------------------------------------------


class MemoryInvalidError(AriaError):
    """A memory's content or fields are not acceptable (empty, too long, unknown kind)."""

    code = "memory_invalid"


class MemoryUnavailableError(AriaError):
    """Long-term memory is not set up in this process (or was switched off)."""

    code = "memory_unavailable"


class EmbedderError(AriaError):
    """The sentence-embedding model could not be loaded or run (search falls back to keywords)."""

    code = "embedder_error"


class KnowledgeError(AriaError):
    """A knowledge-base request cannot be carried out (bad path or URL, unknown source)."""

    code = "knowledge_invalid"


class KnowledgeUnavailableError(AriaError):
    """The knowledge base is not set up in this process."""

    code = "knowledge_unavailable"


class ListInvalidError(AriaError):
    """A list change that cannot be made: a bad name or entry, or deleting shopping or to-do."""

    code = "list_invalid"


class TimerError(AriaError):
    """A timer change that cannot be made: no duration, too long, or not in the right state."""

    code = "timer_invalid"


class ReminderError(AriaError):
    """A reminder that cannot be set: nothing to remind of, or a time that is not understood."""

    code = "reminder_invalid"


class DocumentError(AriaError):
    """One document cannot be indexed; the ingest reports it and goes on with the others."""

    code = "document_invalid"
    problem = "malformed"
    """Its kind: malformed, encrypted, too_large, binary, unsupported, no_text, unreadable or
    fetch_failed (``domain.knowledge.FileProblem.code``)."""


# --- voice -------------------------------------------------------------------------------------


class VoiceError(AriaError):
    """Base for voice failures (microphone, speaker, models, remote voice services)."""

    code = "voice_error"


class AudioDeviceError(VoiceError):
    """No usable microphone or speaker (a normal state on machines without a sound card)."""

    code = "audio_device_unavailable"


class AudioFormatError(VoiceError):
    """An audio file or upload is not audio ARIA can read (e.g. not a PCM WAV)."""

    code = "audio_format_invalid"


class VoiceModelError(VoiceError):
    """A voice model (wake word, Whisper, Piper) is missing or cannot be loaded."""

    code = "voice_model_unavailable"


class SpeechRecognitionError(VoiceError):
    """Speech-to-text failed."""

    code = "stt_failed"


class LanguageNotSupportedError(VoiceError):
    """The speech-to-text model cannot transcribe the requested language.

    An unknown language code, or an English-only model asked for another language: refused,
    because faster-whisper would silently transcribe the speech as English.
    """

    code = "stt_language_unsupported"


class SpeechSynthesisError(VoiceError):
    """Text-to-speech failed."""

    code = "tts_failed"


class WyomingError(VoiceError):
    """A remote Wyoming voice service (wake, STT, TTS) is unreachable or misbehaved."""

    code = "wyoming_unavailable"


class VoiceUnavailableError(VoiceError):
    """Voice is switched off, still loading, or the microphone is muted."""

    code = "voice_unavailable"


# --- local HTTP API and automations ------------------------------------------------------------


class ApiError(AriaError):
    """A running ARIA answered an API call with an error this client has no class for.

    Attributes:
        remote_code: the ``code`` the server sent.
        status: the HTTP status.
    """

    code = "api_error"

    def __init__(self, message: str, *, remote_code: str, status: int, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.remote_code = remote_code
        self.status = status


class OwnerUnreachableError(AriaError):
    """The running ARIA (daemon or tray app) could not be reached over its local API."""

    code = "owner_unreachable"


class ApiAuthError(AriaError):
    """The local API refused our token (it was rotated, or the token file is unreadable)."""

    code = "api_unauthorized"


class AutomationError(AriaError):
    """An automation could not run: bad template field, unknown name, webhook disabled."""

    code = "automation_invalid"


class ApiBindError(AriaError):
    """The local API could not listen on its address (port in use, remote bind not allowed)."""

    code = "api_bind_failed"


# --- computer use ------------------------------------------------------------------------------


class ComputerError(AriaError):
    """Base of computer-use failures (screen, OCR, input, safety checks)."""

    code = "computer_error"


class DisplayUnavailableError(ComputerError):
    """There is no graphical session to see or operate (no DISPLAY, or it refused us)."""

    code = "display_unavailable"


class OcrUnavailableError(ComputerError):
    """Tesseract is missing or failed, so the screen cannot be read."""

    code = "ocr_unavailable"


class InputUnavailableError(ComputerError):
    """Mouse and keyboard cannot be driven (input library missing or refused)."""

    code = "input_unavailable"


class ComputerControlOffError(ComputerError):
    """Computer control is switched off; nothing may be clicked or typed."""

    code = "computer_control_off"


class ScreenProtectedError(ComputerError):
    """A protected window is on screen: the screen is not read for another program."""

    code = "screen_protected"


class TargetNotFoundError(ComputerError):
    """The text or element to act on is not on the screen."""

    code = "target_not_found"


class TargetAmbiguousError(ComputerError):
    """The text appears in several places equally well; ARIA never guesses which."""

    code = "target_ambiguous"


class TargetChangedError(ComputerError):
    """The window or the target area changed between looking and acting; nothing was done."""

    code = "target_changed"


class ActionAbortedError(ComputerError):
    """The action was stopped by the kill switch (or pyautogui's corner fail-safe)."""

    code = "action_aborted"


class ComputerBusyError(ComputerError):
    """A computer-use task is already running; only one drives the mouse at a time."""

    code = "computer_busy"


class MonitorNotFoundError(ComputerError):
    """The monitor number asked for does not exist on this screen."""

    code = "monitor_not_found"


# --- hands: file and shell tools ---------------------------------------------------------------


class PathRefusedError(ToolError):
    """A path lies outside the allowed folders, in a secret store, or escapes by a link."""

    code = "path_refused"


class FileOperationError(ToolError):
    """A file tool could not do what was asked (missing, exists, binary, ambiguous edit)."""

    code = "file_operation_failed"


# --- Home Assistant ---------------------------------------------------------------------------


class HomeAssistantError(AriaError):
    """Home Assistant refused or failed a request (or ARIA is not set up to reach it)."""

    code = "homeassistant_error"


class HomeAssistantAuthError(HomeAssistantError):
    """Home Assistant answered 401/403: the long-lived access token is wrong or revoked."""

    code = "homeassistant_auth_failed"


class HomeAssistantUnreachableError(HomeAssistantError):
    """Home Assistant could not be connected to at the configured URL."""

    code = "homeassistant_unreachable"


class HomeAssistantTimeoutError(HomeAssistantError):
    """Home Assistant did not answer within ``homeassistant.timeout_s``."""

    code = "homeassistant_timeout"


class EntityNotFoundError(HomeAssistantError):
    """No Home Assistant entity has the id asked for."""

    code = "homeassistant_entity_not_found"


class ClientRequestError(AriaError):
    """A program's OpenAI- or Ollama-style request cannot be carried out as sent (HTTP 400)."""

    code = "client_request_invalid"
