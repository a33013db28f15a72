"""The one copy rule from a settings section to a component's config dataclass.

Every builder of the composition root uses it; it sits in its own module so that the builders
import it and never each other for it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["config_from"]

_Config = TypeVar("_Config", bound="DataclassInstance")


def config_from(config_type: type[_Config], section: object, **overrides: object) -> _Config:
    """A component's config dataclass filled from the settings section of the same names.

    Each field of ``config_type`` that ``section`` has an attribute of the same name for takes
    that value; ``overrides`` set the others (or convert a value), and the rest keep their
    defaults. One copy rule instead of a keyword per field at every join, so a setting added
    under the component's own name reaches it without editing the composition root.
    """
    values: dict[str, object] = {
        f.name: getattr(section, f.name)
        for f in dataclasses.fields(config_type)
        if hasattr(section, f.name)
    }
    values.update(overrides)
    return config_type(**values)
