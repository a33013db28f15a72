"""Gathering raw setting values, by dotted key, from a TOML table and from text.

Both the settings file and text (``ARIA_*`` variables, ``aria config set``, the API) are
flattened into ``{dotted key: Raw}`` before anything is converted, so that unknown keys,
sections given as values and secrets are refused the same way wherever they come from
(see ``aria_desktop/ARCHITECTURE.md``).
"""

from __future__ import annotations

import dataclasses
import logging
import re
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from aria_desktop.domain.errors import ConfigError
from aria_desktop.settings import errors, keys
from aria_desktop.settings.coercion import Raw
from aria_desktop.settings.schema import Settings

__all__ = ["Report", "add_text_value", "env_overrides", "fail", "flatten_toml"]

Report: TypeAlias = Callable[[ConfigError], None]
"""Where the tolerant load sends a mistake instead of raising it (ARCHITECTURE.md: a start
that never breaks); None everywhere means strict: the first mistake is raised."""


def fail(error: ConfigError, report: Report | None) -> None:
    """Raise ``error`` (strict), or hand it to ``report`` and let the caller skip the value."""
    if report is None:
        raise error
    report(error)


_LOGGER = logging.getLogger(__name__)
_SECRET_NAME_RE = re.compile(r"api[_-]?key|apikey|token|secret|passw(or)?d|credential", re.I)


def _looks_secret(name: str, value: object) -> bool:
    return isinstance(value, str) and bool(_SECRET_NAME_RE.search(name))


def _contains_secret(table: Mapping[str, Any]) -> bool:
    for name, value in table.items():
        if _looks_secret(name, value):
            return True
        if isinstance(value, dict) and _contains_secret(value):
            return True
    return False


def _refuse_unknown(key: str, name: str, value: object, source: str) -> ConfigError:
    """The error for a name the schema lacks: a secret gets the keyring pointer."""
    if _looks_secret(name, value) or (
        isinstance(value, dict)
        and (_SECRET_NAME_RE.search(name) is not None or _contains_secret(value))
    ):
        return errors.secret_key_error(key, source)
    return errors.unknown_key_error(key, source, section=isinstance(value, dict))


def flatten_toml(
    table: Mapping[str, Any],
    cls: type,
    prefix: str,
    source: str,
    out: dict[str, Raw],
    report: Report | None = None,
) -> None:
    """Check a TOML table against the schema and collect its leaves as dotted keys.

    ``report``: the tolerant load's sink; what it gets is left out of ``out``.
    """
    kinds = {f.name: kind for f, kind in keys.fields_of(cls)}
    for name, value in table.items():
        key = prefix + name
        if name not in kinds:
            fail(_refuse_unknown(key, name, value, source), report)
            continue
        kind = kinds[name]
        if not isinstance(kind, type) and kind not in ("chains", "named"):
            out[key] = Raw(value, source, from_string=False)
        elif not isinstance(value, dict):
            fail(errors.type_error(key, "table", value, source), report)
        elif isinstance(kind, type):
            flatten_toml(value, kind, key + ".", source, out, report)
        elif kind == "chains":
            for agent, chain in value.items():
                if _looks_secret(agent, chain):
                    fail(errors.secret_key_error(f"{key}.{agent}", source), report)
                    continue
                out[f"{key}.{agent}"] = Raw(chain, source, from_string=False)
        else:
            item = typing.get_args(typing.get_type_hints(cls)[name])[1]
            _flatten_named(value, item, key, source, out, report)


def _flatten_named(
    table: Mapping[str, Any],
    item: type,
    key: str,
    source: str,
    out: dict[str, Raw],
    report: Report | None,
) -> None:
    """The entries of a named table (``[automations.rules.<name>]``), each a table of ``item``."""
    for entry, entry_table in table.items():
        entry_key = f"{key}.{entry}"
        if not keys.NAME_RE.match(entry):
            problem = errors.value_error(
                entry_key, "needs a name of letters, digits, - and _", entry, source
            )
        elif not isinstance(entry_table, dict):
            problem = errors.type_error(entry_key, "table", entry_table, source)
        elif not entry_table:
            problem = errors.value_error(entry_key, "is empty", entry_table, source)
        else:
            flatten_toml(entry_table, item, entry_key + ".", source, out, report)
            continue
        fail(problem, report)


def _check_key(key: str, leaves: Mapping[str, keys.Leaf], source: str, value: str) -> str:
    """Validate a dotted key given as text (environment, CLI); return it in canonical form.

    Chain entries (``llm.chains.<agent>``) and the whole chains table (``llm.chains``) are
    accepted; a section name is not.
    """
    if key in leaves:
        return key
    parent, _, agent = key.rpartition(".")
    if parent in leaves and leaves[parent].kind == "chains" and agent:
        if _looks_secret(agent, value):
            raise errors.secret_key_error(key, source)
        return key
    if keys.named_parent(key, leaves) is not None:
        return key
    cls = keys.section_class(key)
    if cls is not None:
        raise ConfigError(
            f"'{key}' ({source}) is a section, not a setting.",
            hint=f"Set one of its keys, e.g. '{key}.{dataclasses.fields(cls)[0].name}'. "
            f"{errors.SHOW_HINT}",
        )
    if _looks_secret(key.rpartition(".")[2], value):
        raise errors.secret_key_error(key, source)
    raise errors.unknown_key_error(key, source)


def add_text_value(
    key: str, value: str, source: str, leaves: Mapping[str, keys.Leaf], out: dict[str, Raw]
) -> None:
    """Record a string value for ``key``; the whole chains table is written agent=a,b;..."""
    key = _check_key(key, leaves, source, value)
    leaf = leaves.get(key)
    if leaf is not None and leaf.kind == "named":
        if value.strip():
            raise errors.value_error(
                key, f"cannot be set as a whole; set '{key}.<name>.prompt' and so on", value, source
            )
        return
    if leaf is not None and leaf.kind == "chains":
        for entry in value.split(";"):
            if not entry.strip():
                continue
            agent, sep, chain = entry.partition("=")
            if not sep or not agent.strip():
                raise errors.value_error(
                    key, "must look like 'chat=ollama,anthropic;vision=anthropic'", value, source
                )
            out[f"{key}.{agent.strip()}"] = Raw(chain, source, from_string=True)
        return
    out[key] = Raw(value, source, from_string=True)


def env_overrides(
    env: Mapping[str, str], leaves: Mapping[str, keys.Leaf], report: Report | None = None
) -> dict[str, Raw]:
    """The ``ARIA_<SECTION>__<KEY>`` variables in ``env`` as raw values by dotted key.

    Variables of other ARIA parts (``ARIA_DATA_DIR``) are not settings and are skipped; one
    that looks like a setting written with a single ``_`` gets a warning. ``report``: the
    tolerant load's sink for a variable that cannot be used (it is skipped).
    """
    sections = {f.name for f in dataclasses.fields(Settings)}
    out: dict[str, Raw] = {}
    for name in sorted(env):
        if not name.upper().startswith(keys.ENV_PREFIX):
            continue
        parts = name[len(keys.ENV_PREFIX) :].lower().split("__")
        if parts[0] not in sections:
            section = parts[0].partition("_")[0]
            if len(parts) == 1 and section in sections:
                _LOGGER.warning(
                    "ignoring environment variable %s: use '__' between levels, e.g. ARIA_%s__...",
                    name,
                    section.upper(),
                )
            continue
        source = f"from environment variable {name}"
        try:
            add_text_value(".".join(parts), env[name], source, leaves, out)
        except ConfigError as exc:
            fail(exc, report)
    return out
