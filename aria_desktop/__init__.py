"""ARIA Desktop: a local-first desktop AI assistant.

The package holds the layers of ``ARCHITECTURE.md`` as subpackages: ``domain`` (value types),
``core`` (the logic, behind its ports), ``adapters`` (the I/O), the front-ends ``api``, ``gui``
and ``daemon``, the composition root ``compose``, and ``cli``, ``doctor`` and ``bench`` on top;
beside them the modules the layers below the front-ends share — ``settings`` (the settings
file), ``keystore`` (secrets), ``log`` (logging and the secret scrubber), ``files`` (durable
writes), ``paths`` (where ARIA keeps its files) — and the version number.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
