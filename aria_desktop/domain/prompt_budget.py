"""Fitting a prompt into a model's context window: pure, clock-free, the same for every backend.

Why: a local model's window is small (Ollama's default ``num_ctx`` is a few thousand tokens) and a
server that gets a longer prompt silently drops its *start* — the system prompt and the tool rules
first. So ARIA fits every request to the window of the backend it goes to
(``adapters/llm/router.py`` calls :func:`fit_request` per backend; ARCHITECTURE.md: one chat turn)
and never sends more than fits.

What is kept, in order of importance:

1. the system prompt (the leading system messages) and the current turn (the newest user
   message and the tool calls and results after it) — never cut; when they alone do not fit
   beside the reply reserve, :class:`ContextOverflowError` (the router falls back to a backend
   with a larger window, or the user sees the error);
2. tool schemas, first held to three fifths of the room (ARIA's 25 built-in tools, the
   everyday skills' among them, take ~4,200 estimated tokens: all of them fit an 8k window's
   share, and a 4k window keeps its most
   relevant ones and still has room for the conversation), least relevant dropped first;
3. history, dropped oldest first in whole turns (a user message with the assistant replies, tool
   calls and tool results after it), so a tool call never loses its result;
4. recalled items (memories, document passages; ``domain.chat.Recalled``), lowest rank first;
5. whatever tools are left, if still over.

Token counts are estimates (see :data:`BYTES_PER_TOKEN`), applied uniformly to every part.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from aria_desktop.domain.chat import ChatMessage, ChatRequest, PromptBudgeted, ToolSpec
from aria_desktop.domain.errors import ContextOverflowError

__all__ = [
    "BYTES_PER_TOKEN",
    "FittedRequest",
    "estimate_message",
    "estimate_prompt",
    "estimate_text",
    "estimate_tool",
    "fit_request",
    "reply_reserve",
]

#: UTF-8 bytes per token, deliberately low so the estimate errs on the large side. Measured
#: with the real tokenizers (llama.cpp's libllama, vocabulary only) on ARIA's own prompt parts:
#: Llama 3, Qwen 2 and Gemma run at 3.6-4.7 bytes per token on the system prompt, English prose,
#: the 19 tool schemas (JSON) and German, so bytes/3 over-counts by 1.19-1.57x; SmolLM2's small
#: English vocabulary does 3.5-4.7 on English and JSON (1.16-1.56x) but 2.7 on German, where
#: bytes/3 is 11% short. That worst case still fits: a prompt is held to the window minus the
#: reply reserve (with the default reply cap an eighth of an 8k window, SmolLM2's largest), and
#: the router scales the estimate up for a model whose server reports more prompt tokens than
#: estimated (``Router``: calibration), so the prompt itself
#: is never cut; only the reply's room shrinks. Counting bytes, not characters, makes accented
#: and CJK text cost more, as it does in the tokenizers.
BYTES_PER_TOKEN = 3
#: Chat-template tokens around each message (role markers, separators): ChatML (Qwen, SmolLM2),
#: Llama 3 and Gemma spend 5 (measured with llama-server on SmolLM2: 130 short messages counted
#: 2006 tokens where 4 per message estimated 2001), so 6 keeps short-message chats on the safe side.
MESSAGE_OVERHEAD_TOKENS = 6
#: Template tokens around each tool schema.
TOOL_OVERHEAD_TOKENS = 10
#: What one image costs a vision model (LLaVA-style encoders use 576-1024 per image).
IMAGE_TOKENS = 1024
#: Largest reply reserve, and the share of the window it may take at most.
MAX_REPLY_RESERVE = 1024
_RESERVE_SHARE = 4
#: Tool schemas may take at most this share of the prompt room before history is touched.
_TOOL_SHARE = 0.6

_WORD = re.compile(r"[a-z0-9]{3,}")


@dataclass(frozen=True, kw_only=True)
class FittedRequest:
    """A request fitted to a window, and what had to be left out.

    Attributes:
        request: the fitted request (``context_tokens`` set to the window).
        reserve_tokens: tokens kept free for the reply.
        budget: the window, the estimated size and the counts left out.
    """

    request: ChatRequest
    reserve_tokens: int
    budget: PromptBudgeted

    @property
    def trimmed(self) -> bool:
        """Whether anything was left out."""
        budget = self.budget
        return bool(budget.dropped_messages or budget.dropped_recalled or budget.dropped_tools)


def estimate_text(text: str) -> int:
    """Estimated tokens of ``text`` (rounded up)."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


def estimate_message(message: ChatMessage) -> int:
    """Estimated tokens of one message, its tool calls, images and template overhead."""
    size = MESSAGE_OVERHEAD_TOKENS + estimate_text(message.content)
    for call in message.tool_calls:
        size += estimate_text(call.name) + estimate_text(json.dumps(call.arguments))
    return size + IMAGE_TOKENS * len(message.images)


def estimate_tool(tool: ToolSpec) -> int:
    """Estimated tokens of one tool schema as the chat template renders it."""
    spec = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    return TOOL_OVERHEAD_TOKENS + estimate_text(json.dumps(spec))


def estimate_prompt(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] = ()) -> int:
    """Estimated tokens of a whole prompt."""
    return sum(map(estimate_message, messages)) + sum(map(estimate_tool, tools))


def reply_reserve(window: int, max_tokens: int) -> int:
    """Tokens kept free for the reply: the reply cap, at most 1024 and a quarter of the window."""
    return max(0, min(max_tokens, MAX_REPLY_RESERVE, window // _RESERVE_SHARE))


def _turns(dialog: Sequence[ChatMessage]) -> list[list[ChatMessage]]:
    """History split into whole turns, each starting at a user message."""
    turns: list[list[ChatMessage]] = []
    for message in dialog:
        if message.role == "user" or not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def _tool_order(tools: Sequence[ToolSpec | None], pinned: Sequence[ChatMessage]) -> list[int]:
    """Indices of ``tools``, least relevant first (the order they are dropped in).

    Relevance: called in the current turn (kept longest: the model is using it), then the
    number of words its name and description share with the newest user message, then the
    order the registry gave (earlier is more relevant).
    """
    used = {call.name for message in pinned for call in message.tool_calls}
    newest = next((m.content for m in reversed(pinned) if m.role == "user"), "")
    words = set(_WORD.findall(newest.lower()))

    def score(index: int) -> tuple[int, int, int]:
        tool = tools[index]
        assert tool is not None
        text = f"{tool.name.replace('_', ' ')} {tool.description}".lower()
        overlap = len(words & set(_WORD.findall(text)))
        return (tool.name in used, overlap, -index)

    return sorted(range(len(tools)), key=score)


class _Budget:
    """The mutable state of one fitting: what is kept so far and its estimated size."""

    def __init__(self, request: ChatRequest) -> None:
        messages = list(request.messages)
        lead = 0
        while (
            lead < len(messages)
            and messages[lead].role == "system"
            and not (messages[lead].recalled)
        ):
            lead += 1
        self.head = messages[:lead]
        rest = messages[lead:]
        self.recalled = [m for m in rest if m.recalled is not None]
        dialog = [m for m in rest if m.recalled is None]
        last_user = max((i for i, m in enumerate(dialog) if m.role == "user"), default=None)
        cut = last_user if last_user is not None else max(len(dialog) - 1, 0)
        self.current = dialog[cut:]
        self.turns = _turns(dialog[:cut])
        self.tools: list[ToolSpec | None] = list(request.tools)
        self.dropped_messages = self.dropped_recalled = self.dropped_tools = 0
        self._tool_drop = _tool_order(self.tools, self.current)
        # Sizes are estimated once and kept as running totals: fitting stays linear in the
        # length of the conversation.
        self._fixed = estimate_prompt([*self.head, *self.current])
        self._turn_sizes = [sum(map(estimate_message, turn)) for turn in self.turns]
        self._history = sum(self._turn_sizes)
        self._recalled = sum(map(estimate_message, self.recalled))
        self._tool_sizes = [estimate_tool(t) for t in request.tools]
        self._tools = sum(self._tool_sizes)

    def fixed(self) -> int:
        return self._fixed

    def tools_size(self) -> int:
        return self._tools

    def size(self) -> int:
        return self._fixed + self._history + self._recalled + self._tools

    def drop_tool(self) -> bool:
        while self._tool_drop:
            index = self._tool_drop.pop(0)
            if self.tools[index] is not None:
                self.tools[index] = None
                self._tools -= self._tool_sizes[index]
                self.dropped_tools += 1
                return True
        return False

    def drop_turn(self) -> bool:
        if not self.turns:
            return False
        self.dropped_messages += len(self.turns.pop(0))
        self._history -= self._turn_sizes.pop(0)
        return True

    def drop_recalled(self) -> bool:
        """Drop the last item of the block holding the most items (later blocks on a tie)."""
        candidates = [
            (len(m.recalled.items), i)
            for i, m in enumerate(self.recalled)
            if m.recalled is not None and m.recalled.items
        ]
        if not candidates:
            return False
        _, index = max(candidates)
        old = self.recalled[index]
        block = old.recalled
        assert block is not None
        smaller = dataclasses.replace(block, items=block.items[:-1])
        new = dataclasses.replace(old, content=smaller.render(), recalled=smaller)
        self.recalled[index] = new
        self._recalled += (estimate_message(new) if smaller.items else 0) - estimate_message(old)
        self.dropped_recalled += 1
        return True

    def messages(self) -> tuple[ChatMessage, ...]:
        kept = [m for m in self.recalled if m.recalled is None or m.recalled.items]
        history = [m for turn in self.turns for m in turn]
        return (*self.head, *kept, *history, *self.current)


def fit_request(
    request: ChatRequest, window: int, *, backend: str = "", scale: float = 1.0
) -> FittedRequest:
    """``request`` fitted to a context window of ``window`` tokens.

    Args:
        request: the full prompt (leading system messages, recalled blocks, history, current
            turn) and tools.
        window: the backend's context window in tokens.
        backend: the backend's name, for the error.
        scale: real tokens per estimated token measured for this model (values below 1 are
            ignored): the estimate is scaled up by it.

    Raises:
        ContextOverflowError: the system prompt and the current turn alone, with the reply
            reserve, do not fit.
    """
    reserve = reply_reserve(window, request.max_tokens)
    scale = max(scale, 1.0)
    room = int((window - reserve) / scale)  # in estimated tokens
    budget = _Budget(request)
    needed = budget.fixed()
    if needed > room:
        raise ContextOverflowError(
            f"The prompt does not fit the model's context window: the system prompt and the "
            f"newest message need about {round(needed * scale)} tokens, and {window} tokens "
            f"minus {reserve} kept for the reply leave room for {max(window - reserve, 0)}.",
            backend=backend,
            hint="Shorten the message, or use a model with a larger context window (raise "
            "llm.max_context_tokens or the backend's context_tokens setting, or add a backend "
            "with a larger window to the chain).",
        )
    while budget.tools_size() > room * _TOOL_SHARE and budget.drop_tool():
        pass
    for drop in (budget.drop_turn, budget.drop_recalled, budget.drop_tool):
        while budget.size() > room and drop():
            pass
    tools = tuple(t for t in budget.tools if t is not None)
    # The reply may use what the prompt leaves of the window (never less than the reserve),
    # so a 2k model asked for 2048 tokens stops at the window instead of running into it.
    room_for_reply = max(reserve, window - math.ceil(budget.size() * scale))
    fitted = dataclasses.replace(
        request,
        messages=budget.messages(),
        tools=tools,
        context_tokens=window,
        max_tokens=min(request.max_tokens, room_for_reply),
    )
    return FittedRequest(
        request=fitted,
        reserve_tokens=reserve,
        budget=PromptBudgeted(
            backend=backend,
            context_tokens=window,
            estimated_tokens=round(budget.size() * scale),
            dropped_messages=budget.dropped_messages,
            dropped_recalled=budget.dropped_recalled,
            dropped_tools=budget.dropped_tools,
        ),
    )
