"""Commands: imperatives with exactly one handler, ``Orchestrator.handle``.

Front-ends (CLI, GUI, API, voice) never call adapters; they send these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aria_desktop.domain.chat import ChatMessage, ResponseFormat, ThinkMode, ToolChoice, ToolSpec


@dataclass(frozen=True, kw_only=True)
class Command:
    """Base of all commands."""


@dataclass(frozen=True, kw_only=True)
class StartTurn(Command):
    """Start a turn with the user's text.

    Attributes:
        text: the user's message.
        conversation_id: continue this conversation; None starts a new one.
        backend: force one backend ("ollama", "anthropic", ...) instead of the fallback chain.
        source: where the text came from (text, voice, api, automation).
        attachments: content the user attached (tool servers' resources), given to the model
            as untrusted data.
    """

    text: str
    conversation_id: str | None = None
    backend: str | None = None
    source: str = "text"
    attachments: tuple[TurnAttachment, ...] = ()


@dataclass(frozen=True, kw_only=True)
class TurnAttachment:
    """Content the user attached to a turn (a tool server's resource).

    The model gets it as untrusted data, fenced like a tool result, never as the user's words.

    Attributes:
        source: where it came from, shown to the model ("notes: file:///todo.md").
        text: the content.
    """

    source: str
    text: str


@dataclass(frozen=True, kw_only=True)
class GenerationOptions:
    """How a client wants its reply generated (the OpenAI/Ollama request options ARIA keeps).

    Attributes:
        max_tokens: cap on tokens per model reply; None for ARIA's setting.
        temperature: sampling temperature; None for the backend's default.
        stop: sequences that end the reply.
        response_format: JSON output (and its schema); None for free text.
        tool_choice: the client's tool must be called (OpenAI ``tool_choice`` ``required`` or a
            named function); then only the client's tools are offered. None: the model decides.
        context_tokens: context window asked of the backend (Ollama ``num_ctx``); None: default.
        think: whether the model should reason first (Ollama's ``think``); None for ``llm.think``.
    """

    max_tokens: int | None = None
    temperature: float | None = None
    stop: tuple[str, ...] = ()
    tool_choice: ToolChoice | None = None
    response_format: ResponseFormat | None = None
    context_tokens: int | None = None
    think: ThinkMode | None = None


@dataclass(frozen=True, kw_only=True)
class ClientTurn(StartTurn):
    """A turn for a program speaking OpenAI's or Ollama's chat protocol (a stateless request).

    The client sends the whole conversation every time; ARIA finds the stored conversation
    whose messages are a prefix of it (so only the new messages are stored), adds memory
    recall and runs the turn through the routing chain of ``agent``. The client's own tools
    are offered to the model but never run by ARIA: a step that calls one ends the turn with
    ``client-tool-call`` events, and the client's next request carries the results. Of ARIA's
    tools only read-only ones are offered (ARCHITECTURE.md: safety).

    Attributes:
        text: the newest user text (recall, title, memory extraction); may be "" when the
            request ends with tool results.
        messages: the client's messages, oldest first (system messages included).
        client_tools: the client's tools.
        client: who is asking, e.g. ``ollama/home-assistant`` (the conversation's label).
        private: never mine this turn for long-term memories.
        agent: the routing chain to use.
        options: generation options from the request.
    """

    messages: tuple[ChatMessage, ...] = ()
    client_tools: tuple[ToolSpec, ...] = ()
    client: str = "client"
    private: bool = False
    agent: str = "chat"
    options: GenerationOptions = field(default_factory=GenerationOptions)


@dataclass(frozen=True, kw_only=True)
class CancelTurn(Command):
    """Cancel one running turn, or every running turn when ``run_id`` is None."""

    run_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class ConfirmAction(Command):
    """The user's answer to an ``action-confirm-request`` (must carry the request's nonce)."""

    request_id: str
    nonce: str
    approved: bool


@dataclass(frozen=True, kw_only=True)
class StopEverything(Command):
    """The kill switch: stop everything ARIA is doing now.

    Cancels every turn, denies pending confirmations, stops speech and any computer action in
    flight (each capability registers a stop hook).
    """


@dataclass(frozen=True, kw_only=True)
class StopRinging(Command):
    """Silence a ringing timer or alarm now (the tray's "Stop ringing"); returns whether one rang.

    Only the ring: turns, speech and computer actions go on (the kill switch stops those too).
    """


@dataclass(frozen=True, kw_only=True)
class PushToTalk(Command):
    """Push-to-talk from the hotkey, the tray or the API (voice capability).

    ``action`` is ``press``/``release`` for hold mode, ``toggle`` for toggle mode, and
    ``listen`` to start listening now and end at the next pause (what ``POST /listen`` sends).
    ``purpose`` is ``ask`` (the words are a turn) or ``dictate`` (they are typed into the
    focused window).
    """

    action: str = "toggle"
    purpose: str = "ask"


@dataclass(frozen=True, kw_only=True)
class SetMicrophoneMuted(Command):
    """Mute (close the capture stream) or unmute the microphone (voice capability)."""

    muted: bool


@dataclass(frozen=True, kw_only=True)
class SetComputerControl(Command):
    """Turn computer control (mouse, keyboard) on or off (computer-use capability)."""

    enabled: bool


@dataclass(frozen=True, kw_only=True)
class Speak(Command):
    """Say ``text`` with the configured voice (voice capability).

    Returns the synthesized ``SpeechAudio`` (mono 16-bit PCM at the voice's rate); with
    ``play`` it is also played on the output device (and can be stopped by the kill switch).
    """

    text: str
    play: bool = True


@dataclass(frozen=True, kw_only=True)
class Transcribe(Command):
    """Transcribe a WAV file's bytes (voice capability); returns a ``Transcript``."""

    wav: bytes
    language: str | None = None


@dataclass(frozen=True, kw_only=True)
class RunAutomation(Command):
    """Run a named automation from the settings now (webhooks, the API, the CLI).

    Attributes:
        name: the automation's name.
        payload: values for the prompt template's ``{placeholders}`` (a webhook's JSON body).
        trigger: what started it (webhook, schedule, manual).

    The handler returns a ``domain.automation.AutomationRun``.
    """

    name: str
    payload: dict[str, Any] = field(default_factory=dict)
    trigger: str = "manual"


@dataclass(frozen=True, kw_only=True)
class ReportUsage(Command):
    """Model calls since ``since`` (UNIX seconds), per backend and model.

    Returns a list of ``domain.usage.UsageTotal``, costliest first (``aria usage``,
    ``GET /usage``).
    """

    since: float


@dataclass(frozen=True, kw_only=True)
class ListAutomations(Command):
    """The configured automations (returns a list of ``domain.automation.AutomationSpec``)."""


@dataclass(frozen=True, kw_only=True)
class RunComputerTask(Command):
    """Let ARIA operate the desktop for a task (computer-use capability).

    Returns a ``TurnStarted``-like handle (``ComputerTaskHandle``); the task's events carry its
    ``run_id`` and end with ``computer-task-end``.

    Attributes:
        text: what to do, in the user's words.
        dry_run: decide and record every action but perform none.
        backend: use this LLM backend (no silent fallback either way).
    """

    text: str
    dry_run: bool = False
    backend: str | None = None


@dataclass(frozen=True, kw_only=True)
class CaptureScreen(Command):
    """Take a screenshot (returns ``domain.computer.Screenshot``); ``monitor`` 0 = all."""

    monitor: int = 0


@dataclass(frozen=True, kw_only=True)
class ReadScreen(Command):
    """OCR the screen or a region (returns ``domain.computer.ScreenText``).

    ``region`` is ``(x, y, width, height)`` in physical pixels, or None for the whole screen.
    ``unless_protected`` (for other programs: MCP clients): the whole screen, refused with
    ``ScreenProtectedError`` while a window the computer policy protects is visible.
    """

    region: tuple[int, int, int, int] | None = None
    unless_protected: bool = False


@dataclass(frozen=True, kw_only=True)
class FindOnScreen(Command):
    """Find text on the screen (returns ``domain.computer.Grounding``)."""

    text: str
    region: tuple[int, int, int, int] | None = None


@dataclass(frozen=True, kw_only=True)
class ClickText(Command):
    """Click the text on screen, through the safety policy (returns ``ComputerActionOutcome``).

    Consequential targets ask for confirmation; ambiguous or missing text is an error.
    """

    text: str
    dry_run: bool = False


@dataclass(frozen=True, kw_only=True)
class TypeText(Command):
    """Type text at the focused field, through the safety policy (``ComputerActionOutcome``).

    ``source`` names who asked (``dictation``): the audit log and the events carry it.
    Password fields and protected windows refuse it.
    """

    text: str
    source: str = "dictation"
    dry_run: bool = False


@dataclass(frozen=True, kw_only=True)
class ForgetMemory(Command):
    """Forget a memory once the user confirms it out of band (returns True when forgotten).

    For requests that do not come from the user (an MCP client): the user is asked through the
    usual ``action-confirm-request``; no answer before the timeout means no.
    """

    memory_id: str
    requested_by: str = "an MCP client"


@dataclass(frozen=True, kw_only=True)
class ListMcp(Command):
    """The MCP servers and their tools (returns ``domain.mcp.McpOverview``)."""


@dataclass(frozen=True, kw_only=True)
class SetMcpToolPolicy(Command):
    """Set one MCP tool's policy now (``always``, ``ask`` or ``never``; the settings keep it)."""

    tool: str
    policy: str


@dataclass(frozen=True, kw_only=True)
class ApproveMcpTool(Command):
    """The user reviewed an MCP tool: pin its current definition (it is enabled again)."""

    tool: str


@dataclass(frozen=True, kw_only=True)
class ReadMcpResource(Command):
    """Read a server's resource (returns ``domain.mcp.McpCallResult``: its text, or the error)."""

    server: str
    uri: str


@dataclass(frozen=True, kw_only=True)
class GetMcpPrompt(Command):
    """A server's prompt filled with ``arguments`` (returns ``domain.mcp.McpPromptText``)."""

    server: str
    name: str
    arguments: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class AnswerMcpQuestion(Command):
    """The person's answer to an ``mcp-question`` (must carry the question's nonce).

    ``action``: accept (``values`` hold the form's fields; for a page: open it), decline, or
    cancel (dismissed). Values are checked against the question's fields; a field left out
    takes the default the server gave it.
    """

    request_id: str
    nonce: str
    action: str
    values: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class SignInMcpServer(Command):
    """Sign in to a remote MCP server (OAuth); returns "" when it runs, else what went wrong.

    ``browser``: open the server's sign-in page in the system browser (the person signs in
    there; this waits for them). False: only connect again with the sign-in already stored in
    the keyring (after ``aria mcp login`` signed in from another process).
    """

    server: str
    browser: bool = True


@dataclass(frozen=True, kw_only=True)
class SignOutMcpServer(Command):
    """Revoke and forget the sign-in to an MCP server (returns what happened, in words)."""

    server: str
