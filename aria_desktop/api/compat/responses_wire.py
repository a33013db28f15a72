"""OpenAI's Responses API request (``POST /v1/responses``) -> ARIA's ``ClientTurn``.

OpenAI's newer clients and agent frameworks speak the Responses API instead of chat
completions: ``input`` is text or a list of items (messages with ``input_text`` /
``input_image`` parts, the ``function_call`` items of an earlier answer and the client's
``function_call_output`` items), ``instructions`` is the system message of this request only,
function tools are flat (``{"type": "function", "name", "parameters"}``) and
``previous_response_id`` continues a conversation ARIA kept (``responses_store``). Parsing is
lenient like the chat-completions endpoint (``openai_wire``): unknown fields and item types
ARIA has no use for (reasoning items, hosted tools) are ignored, never a 400.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from aria_desktop.api.compat.openai_wire import image_bytes
from aria_desktop.api.compat.turn import CompatTurn
from aria_desktop.api.compat.wire import Lenient, arguments, with_examples
from aria_desktop.domain.chat import ChatMessage, ResponseFormat, ToolCall, ToolChoice, ToolSpec
from aria_desktop.domain.commands import ClientTurn, GenerationOptions
from aria_desktop.domain.errors import ClientRequestError

__all__ = ["ResponsesIn", "function_tools", "input_messages", "to_command"]


class InputPart(Lenient):
    type: str = Field(max_length=64)
    text: str | None = None
    image_url: str | None = Field(default=None, max_length=20_000_000)


class InputItem(Lenient):
    """One item of ``input``: a message, a function call, or a function call's output."""

    type: str = Field(default="message", max_length=64)
    role: Literal["system", "developer", "user", "assistant"] | None = None
    content: str | list[InputPart] | None = None
    call_id: str = Field(default="", max_length=256)
    name: str = Field(default="", max_length=256)
    arguments: str = Field(default="", max_length=1_000_000)
    output: str | list[InputPart] | None = None


class FunctionToolIn(Lenient):
    type: str = Field(default="function", max_length=64)
    name: str = Field(default="", max_length=256)
    description: str | None = Field(default=None, max_length=100_000)
    parameters: dict[str, Any] | None = None


class TextFormatIn(Lenient):
    type: Literal["text", "json_object", "json_schema"] = "text"
    name: str = Field(default="response", max_length=256)
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")
    strict: bool | None = None


class TextIn(Lenient):
    format: TextFormatIn | None = None


class ReasoningIn(Lenient):
    effort: Literal["none", "minimal", "low", "medium", "high", "xhigh"] | None = None


class ResponsesIn(Lenient):
    """``POST /v1/responses``: the fields ARIA acts on."""

    model_config = with_examples(
        {"model": "aria", "input": "Hello"},
        {"model": "aria", "instructions": "Answer briefly.", "input": "Hello", "stream": True},
    )

    model: str = Field(min_length=1, max_length=256)
    input: str | list[InputItem] = Field(min_length=1, max_length=1_000)
    instructions: str | None = Field(default=None, max_length=1_000_000)
    previous_response_id: str | None = Field(default=None, max_length=256)
    store: bool = True
    stream: bool = False
    tools: list[FunctionToolIn] | None = Field(default=None, max_length=512)
    tool_choice: str | dict[str, Any] | None = None
    max_output_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)
    text: TextIn | None = None
    reasoning: ReasoningIn | None = None
    metadata: dict[str, str] | None = None


def _text_and_images(content: str | list[InputPart] | None) -> tuple[str, tuple[bytes, ...]]:
    if content is None or isinstance(content, str):
        return content or "", ()
    texts: list[str] = []
    images: list[bytes] = []
    for part in content:
        if part.type in ("input_text", "output_text", "text") and part.text:
            texts.append(part.text)
        elif part.type == "input_image" and part.image_url:
            images.append(image_bytes(part.image_url))
    return "\n".join(texts), tuple(images)


def _call_message(messages: list[ChatMessage], call: ToolCall) -> None:
    """Add a function call to the assistant message before it (as chat completions has it)."""
    last = messages[-1] if messages else None
    if last is not None and last.role == "assistant":
        messages[-1] = ChatMessage(
            role="assistant", content=last.content, tool_calls=(*last.tool_calls, call)
        )
    else:
        messages.append(ChatMessage(role="assistant", content="", tool_calls=(call,)))


def input_messages(
    items: str | Sequence[InputItem], earlier: Sequence[ChatMessage] = ()
) -> list[ChatMessage]:
    """The request's ``input`` as chat messages, after ``earlier`` ones (a previous response).

    Raises:
        ClientRequestError: a function call's output names no call.
    """
    if isinstance(items, str):
        return [ChatMessage(role="user", content=items)]
    names = {call.id: call.name for message in earlier for call in message.tool_calls}
    messages: list[ChatMessage] = []
    for item in items:
        if item.type == "message" and item.role is not None:
            text, images = _text_and_images(item.content)
            role = "system" if item.role == "developer" else item.role
            messages.append(ChatMessage(role=role, content=text, images=images))
        elif item.type == "function_call" and item.name:
            call = ToolCall(id=item.call_id, name=item.name, arguments=arguments(item.arguments))
            names[call.id] = call.name
            _call_message(messages, call)
        elif item.type == "function_call_output":
            if not item.call_id:
                raise ClientRequestError(
                    "A function_call_output item needs the call_id of its function call.",
                    hint="Send the call_id the function_call item carried.",
                )
            output, _ = _text_and_images(item.output)
            name = names.get(item.call_id)
            messages.append(
                ChatMessage(role="tool", content=output, tool_call_id=item.call_id, name=name)
            )
    return messages


def function_tools(body: ResponsesIn) -> tuple[ToolSpec, ...]:
    """The client's function tools (hosted tools such as web search are not ARIA's to run)."""
    if body.tool_choice == "none":
        return ()
    tools = tuple(
        ToolSpec(
            name=tool.name,
            description=tool.description or "",
            parameters=tool.parameters or {"type": "object"},
        )
        for tool in body.tools or ()
        if tool.type == "function" and tool.name
    )
    choice = body.tool_choice
    if isinstance(choice, dict) and choice.get("type") == "function":
        return tuple(tool for tool in tools if tool.name == choice.get("name")) or tools
    return tools


def _tool_choice(body: ResponsesIn, tools: Sequence[ToolSpec]) -> ToolChoice | None:
    choice = body.tool_choice
    if not tools:
        return None
    if choice == "required":
        return ToolChoice(mode="required")
    if isinstance(choice, dict) and choice.get("name") in {tool.name for tool in tools}:
        return ToolChoice(mode="tool", name=str(choice["name"]))
    return None


def _response_format(body: ResponsesIn) -> ResponseFormat | None:
    fmt = body.text.format if body.text is not None else None
    if fmt is None or fmt.type == "text":
        return None
    if fmt.type == "json_object" or fmt.json_schema is None:
        return ResponseFormat()
    return ResponseFormat(schema=fmt.json_schema, name=fmt.name, strict=bool(fmt.strict))


def to_command(
    body: ResponsesIn, turn: CompatTurn, earlier: Sequence[ChatMessage] = ()
) -> tuple[ClientTurn, list[ChatMessage]]:
    """The ``ClientTurn`` a Responses request asks for, and the conversation it continues.

    ``earlier`` is the stored conversation of ``previous_response_id`` (its instructions are
    not carried over, as OpenAI's are not). Returns the command and the conversation without
    this request's instructions (what a later ``previous_response_id`` continues).
    """
    conversation = [*earlier, *input_messages(body.input, earlier)]
    if not any(message.role == "user" for message in conversation) and not any(
        message.role == "tool" for message in conversation
    ):
        raise ClientRequestError(
            "The input holds no user message.",
            hint="Send input as text or as items with a user message.",
        )
    system = [ChatMessage(role="system", content=body.instructions)] if body.instructions else []
    messages = (*system, *conversation)
    last_user = next((m.content for m in reversed(messages) if m.role == "user"), "")
    tools = function_tools(body)
    effort = body.reasoning.effort if body.reasoning is not None else None
    command = ClientTurn(
        text=last_user,
        source="client",
        messages=messages,
        client_tools=tools,
        client=turn.client,
        private=turn.private,
        agent=turn.model.agent,
        options=GenerationOptions(
            max_tokens=body.max_output_tokens,
            temperature=body.temperature,
            response_format=_response_format(body),
            tool_choice=_tool_choice(body, tools),
            think=None if effort is None else ("off" if effort == "none" else "auto"),
        ),
    )
    return command, conversation
