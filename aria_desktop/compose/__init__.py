"""The composition root: the one place that knows concrete classes.

It reads the settings, builds every adapter and wires them to the core (``app``, ``tools``,
``llm``, ``mcp``, ``usage``), runs the owner process (``owner``: core + API + automations +
voice) and applies settings changed while ARIA runs (``live_settings``). The CLI, the benchmarks
and ``aria doctor`` build ARIA only through this package.
"""
