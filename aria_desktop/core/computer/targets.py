"""Where a model aimed, as a screen point: the one resolution of ``ActionCall`` to an action.

``action_from_call`` (``domain.computer_tools``) reads a tool call; here its aim — an element
number, visible text, or x/y in the tool set's pixels — becomes a physical screen point on the
screen the model was shown. Chat tools and the task loop both go through ``resolve_action``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from aria_desktop.core.ports import ComputerPort
from aria_desktop.domain.computer import ComputerAction, Observation, Point, ScreenText
from aria_desktop.domain.computer_tools import ActionCall, Aim
from aria_desktop.domain.errors import TargetAmbiguousError, TargetNotFoundError

__all__ = ["ScreenLocator", "ground", "resolve_action"]


def ground(port: ComputerPort, text: ScreenText, query: str) -> Point:
    """The centre of ``query`` on screen; TargetNotFound/TargetAmbiguous otherwise."""
    grounding = port.ground(text, query)
    if grounding.status == "not_found":
        raise TargetNotFoundError(
            f"{query!r} is not on the screen.",
            hint="Check the spelling, or scroll so it is visible.",
        )
    if grounding.status == "ambiguous":
        places = "; ".join(
            f"{m.text!r} at ({m.center.x}, {m.center.y})" for m in grounding.matches[:5]
        )
        raise TargetAmbiguousError(
            f"{query!r} appears in {len(grounding.matches)} places: {places}.",
            hint="Say which one (more words, or the region), ARIA does not guess.",
        )
    assert grounding.best is not None
    return grounding.best.center


class ScreenLocator:
    """Resolves aims on one observation to physical screen points.

    Args:
        port: grounds visible text and maps the model's screenshot pixels back.
        observation: the screen the model was shown (None: none read yet).
        coordinates: ``physical`` (chat tools) or ``model`` (the task loop's screenshot).
    """

    def __init__(
        self,
        port: ComputerPort,
        observation: Observation | None,
        *,
        coordinates: Literal["physical", "model"],
    ) -> None:
        """Remember what to resolve against."""
        self._port = port
        self._observation = observation
        self._coordinates = coordinates

    def __call__(self, aim: Aim) -> tuple[Point, str]:
        """The point ``aim`` means, and the label there ("" for bare coordinates).

        Raises:
            TargetNotFoundError, TargetAmbiguousError: it cannot be resolved.
        """
        if aim.element is not None:
            element = self._screen_text().element(aim.element)
            if element is None:
                raise TargetNotFoundError(
                    f"There is no element {aim.element} on the last screen read.",
                    hint="Read the screen again and use a listed number.",
                )
            return element.box.center, element.text
        if aim.text is not None:
            return ground(self._port, self._screen_text(), aim.text), aim.text
        if aim.x is None or aim.y is None:
            raise TargetNotFoundError("Say where: an element number or x and y.")
        point = Point(aim.x, aim.y)
        if self._coordinates == "model":
            if self._observation is None:
                raise TargetNotFoundError("No screen has been shown yet.")
            point = self._port.to_physical(self._observation, point)
        return point, ""

    def _screen_text(self) -> ScreenText:
        observation = self._observation
        if observation is None or observation.text is None:
            raise TargetNotFoundError(
                "No screen has been read yet.", hint="Call screen_read first."
            )
        return observation.text


def resolve_action(call: ActionCall, locate: ScreenLocator) -> ComputerAction:
    """The action ``call`` proposes, its aim resolved by ``locate``.

    Raises:
        TargetNotFoundError, TargetAmbiguousError: where it aims cannot be resolved.
    """
    if call.aim is None:
        return call.action
    point, label = locate(call.aim)
    end = locate(call.to)[0] if call.to is not None else None
    return replace(
        call.action,
        x=point.x,
        y=point.y,
        to_x=None if end is None else end.x,
        to_y=None if end is None else end.y,
        # Scrolling is not aimed at a control: the policy judges it without a target.
        target="" if call.action.kind == "scroll" else call.action.target or label,
    )
