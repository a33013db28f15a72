"""The desktop skills as model tools: ``open_app``, ``media`` and ``volume``.

A request the templates do not cover ("put on some quiet music and open the calculator") still
reaches the desktop through the model, under the tool policy and the audit log like every other
tool. Each tool runs the same decision as the spoken command and gives the model the sentence
the user would have heard, so a tool result and a local answer never disagree. All three are
``reversible``: what they do is undone by one more command (close the app, resume, turn it up).
"""

from __future__ import annotations

from typing import Any

from aria_desktop.core.skills.apps import AppCatalog, AppLauncher, AppMatcher, open_app
from aria_desktop.core.skills.media import MEDIA_ACTIONS, MediaPlayers, control_media
from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.tool_parameters import action_parameters
from aria_desktop.core.skills.volume import VOLUME_ACTIONS, VolumeControl, change_volume
from aria_desktop.core.tools import Tool

__all__ = ["media_tool", "open_app_tool", "volume_tool"]

_LANGUAGE = "en"
"""Tool results are read by the model, which words its own reply in the user's language."""


def open_app_tool(catalog: AppCatalog, launcher: AppLauncher, phrases: Phrasebook) -> Tool:
    """``open_app``: start an installed application by its name."""
    matcher = AppMatcher()

    async def handle(arguments: dict[str, Any]) -> str:
        said = str(arguments["name"])
        return await open_app(said, _LANGUAGE, catalog, launcher, phrases, matcher)

    return Tool(
        name="open_app",
        description='Open an installed app by name or kind ("firefox", "calculator").',
        parameters={
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "description": "The app's name as the user said it.",
                    "minLength": 1,
                    "maxLength": 200,
                }
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        permission="reversible",
        handler=handle,
        summarize=lambda a: f"open the app {a.get('name', '')}",
    )


def media_tool(media: MediaPlayers, phrases: Phrasebook) -> Tool:
    """``media``: pause, resume, skip or describe what the desktop's media player plays."""

    async def handle(arguments: dict[str, Any]) -> str:
        return await control_media(arguments["action"], media, phrases, _LANGUAGE)

    return Tool(
        name="media",
        description=(
            "The playing media player: pause, resume, next, previous, status (what plays)."
        ),
        parameters=action_parameters(MEDIA_ACTIONS),
        permission="reversible",
        handler=handle,
        summarize=lambda a: f"media {a.get('action', '')}",
    )


def volume_tool(volume: VolumeControl, phrases: Phrasebook) -> Tool:
    """``volume``: read, set, raise, lower, mute or unmute the computer's speaker."""

    async def handle(arguments: dict[str, Any]) -> str:
        return await change_volume(
            arguments["action"],
            volume,
            phrases,
            _LANGUAGE,
            level=arguments.get("level"),
            step=arguments.get("step"),
        )

    return Tool(
        name="volume",
        description=(
            "Speaker volume: get, set (0-100), up or down by step (default 10), mute, unmute."
        ),
        parameters=action_parameters(
            VOLUME_ACTIONS,
            level={
                "type": "integer",
                "minimum": 0,
                "maximum": 100,
                "description": "For set: the new level in percent.",
            },
            step={
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "For up and down: how many percent points.",
            },
        ),
        permission="reversible",
        handler=handle,
        summarize=_describe_volume,
    )


def _describe_volume(arguments: dict[str, Any]) -> str:
    action = str(arguments.get("action", ""))
    if action == "set" and "level" in arguments:
        return f"set the volume to {arguments['level']}%"
    if action in ("up", "down") and "step" in arguments:
        return f"turn the volume {action} by {arguments['step']}%"
    return f"volume {action}"
