"""MCP events: a connected server asks the user something (elicitation), and how it ended.

A server may ask in the middle of a tool call: a form (a few typed fields, described by a flat
JSON schema) or a page to open (URL mode, for what must not pass through ARIA: a payment, a
password). The question carries a nonce only an answer from the person's side can echo
(``AnswerMcpQuestion``), like a confirmation; no answer before the timeout means "decline".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from aria_desktop.domain.events import Event

__all__ = ["McpQuestion", "McpQuestionAnswered", "McpQuestionMode"]

McpQuestionMode = Literal["form", "url"]


@dataclass(frozen=True, kw_only=True)
class McpQuestion(Event):
    """A tool server asks the user (front-ends show it; the answer goes back with the nonce).

    Attributes:
        request_id: identifies the question.
        nonce: must be echoed by ``AnswerMcpQuestion``; neither the model nor the server sees it.
        server: the server's name in the settings.
        message: the server's question (untrusted text, shown as such).
        mode: form (fill in ``fields``) or url (agree to open ``url``).
        fields: the form's JSON schema (``properties``, ``required``), defaults included.
        url / domain: the page to open and its domain, shown before the person agrees.
        timeout_s: seconds until no answer counts as "decline".
    """

    type: ClassVar[str] = "mcp-question"
    request_id: str
    nonce: str
    server: str
    message: str
    mode: McpQuestionMode = "form"
    fields: dict[str, Any] = field(default_factory=dict)
    url: str = ""
    domain: str = ""
    timeout_s: float = 300.0


@dataclass(frozen=True, kw_only=True)
class McpQuestionAnswered(Event):
    """A server's question ended: ``accept`` (with the form's values), ``decline`` or ``cancel``.

    ``timed_out``: nobody answered (counted as decline). The values are not repeated here.
    """

    type: ClassVar[str] = "mcp-question-answered"
    request_id: str
    server: str
    action: Literal["accept", "decline", "cancel"]
    timed_out: bool = False
