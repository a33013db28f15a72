"""Which model names ARIA offers to OpenAI- and Ollama-style clients, and how it treats them.

Independent of how settings are stored (``settings/schema_compat.py`` holds the user's side;
``owner.api_config`` translates). A name is what a client puts in ``model``; each maps to a
routing chain (an ARIA agent), and a name or a client may be private: its turns are never mined
for long-term memories.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CompatConfig", "CompatModel", "client_label"]


@dataclass(frozen=True, kw_only=True)
class CompatModel:
    """One model name offered to clients.

    Attributes:
        name: the name clients use (Ollama clients see ``name:latest`` when it has no tag).
        agent: the routing chain its turns use.
        private: turns under this name are never mined for long-term memories.
    """

    name: str
    agent: str = "chat"
    private: bool = False

    @property
    def tagged(self) -> str:
        """The name with an Ollama tag (``aria`` -> ``aria:latest``)."""
        return self.name if ":" in self.name else f"{self.name}:latest"


@dataclass(frozen=True, kw_only=True)
class CompatConfig:
    """The OpenAI/Ollama-compatible endpoints' settings.

    Attributes:
        enabled: serve ``/v1/*`` and the Ollama ``/api/*`` routes at all.
        models: the names offered, first is the default.
        private_clients: client labels (``ollama``, ``openai``, a User-Agent product such as
            ``ollama-python``, or ``protocol/product``) whose turns are never mined.
        max_context_tokens: the largest context window a client may ask of a backend
            (Ollama's ``num_ctx``; larger requests are capped).
        context_tokens: the context window reported by ``/api/show``.
    """

    enabled: bool = True
    models: tuple[CompatModel, ...] = field(default=(CompatModel(name="aria"),))
    private_clients: tuple[str, ...] = ()
    max_context_tokens: int = 32_768
    context_tokens: int = 8_192

    def find(self, requested: str) -> CompatModel | None:
        """The offered model a client's ``model`` names (``aria`` and ``aria:latest`` alike)."""
        wanted = requested.strip()
        for model in self.models:
            if wanted in (model.name, model.tagged):
                return model
        return None

    def is_private(self, model: CompatModel, client: str) -> bool:
        """Whether a turn of ``client`` (``protocol/product``) under ``model`` stays unmined."""
        if model.private:
            return True
        protocol, _, product = client.partition("/")
        names = {client, protocol, product}
        return any(entry.strip().lower() in names for entry in self.private_clients)


def client_label(protocol: str, user_agent: str) -> str:
    """``protocol/product`` from the User-Agent's first product token (``ollama/ollama-python``)."""
    product = user_agent.strip().split(" ", 1)[0].split("/", 1)[0].lower()
    return f"{protocol}/{product or 'unknown'}"
