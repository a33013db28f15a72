"""ARIA's own backends pointed at a real ``llama-server`` (the code under test, not doubles)."""

from __future__ import annotations

from aria_desktop.adapters.llm import Timeouts
from aria_desktop.adapters.llm.anthropic import AnthropicBackend
from aria_desktop.adapters.llm.openai_compat import OpenAICompatBackend
from aria_desktop.domain.chat import ToolSpec
from tests.llama.server import LlamaServer

#: A CPU model on a shared 2-core machine: generous for the first token, tight enough that a
#: hung server fails a test in seconds rather than minutes.
LLAMA_TIMEOUTS = Timeouts(connect_s=2.0, first_token_s=30.0, stall_s=15.0, total_s=60.0)
#: The model name sent; llama-server serves the one model it loaded whatever the name says.
MODEL = "smollm2-135m"


def openai_backend(server: LlamaServer, *, name: str = "llama") -> OpenAICompatBackend:
    """The OpenAI-compatible backend on ``server`` (``/v1/chat/completions``)."""
    return OpenAICompatBackend(
        base_url=server.url, model=MODEL, api_key=None, timeouts=LLAMA_TIMEOUTS, name=name
    )


def anthropic_backend(server: LlamaServer, *, name: str = "llama_messages") -> AnthropicBackend:
    """The Anthropic backend on ``server`` (llama-server's ``/v1/messages``)."""
    return AnthropicBackend(
        api_key="no-key-needed",
        model=MODEL,
        base_url=server.url,
        timeouts=LLAMA_TIMEOUTS,
        capabilities=frozenset({"tools"}),
        name=name,
    )


#: The tool the real-model tests offer (a model must fill ``city``; nothing else is allowed).
WEATHER = ToolSpec(
    name="get_weather",
    description="Get the current weather for a city",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
)
