"""Stdlib-only value types shared by every layer: events, commands, errors, chat."""
