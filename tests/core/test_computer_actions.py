"""The one computer-action vocabulary: how tool calls of both loops become actions.

Pure tests (no screen): ``action_from_call`` reads chat-tool and task-loop calls alike, and
``resolve_action`` aims them on an observation through a port that only maps coordinates.
"""

from __future__ import annotations

from typing import Any, cast

import pytest

from aria_desktop.core.computer.targets import ScreenLocator, ground, resolve_action
from aria_desktop.core.ports import ComputerPort
from aria_desktop.domain.computer import (
    ComputerAction,
    Grounding,
    Observation,
    Point,
    Rect,
    ScreenElement,
    Screenshot,
    ScreenText,
    TextMatch,
)
from aria_desktop.domain.computer_tools import (
    CHAT_ACTION_TOOLS,
    TASK_ACTION_TOOLS,
    ActionCall,
    Aim,
    action_from_call,
)
from aria_desktop.domain.errors import ComputerError, TargetAmbiguousError, TargetNotFoundError

OK_BUTTON = ScreenElement(id=1, text="OK", box=Rect(100, 100, 20, 10), confidence=90.0)
SCREEN = Rect(0, 0, 1000, 800)


class ScalingPort:
    """Model pixels are half the physical ones; "Send" is on screen once, "Two" twice."""

    def to_physical(self, observation: Observation, point: Point) -> Point:
        return Point(point.x * 2, point.y * 2)

    def ground(self, text: ScreenText, query: str) -> Grounding:
        match = TextMatch(
            text=query, box=Rect(0, 0, 10, 10), center=Point(5, 5), score=1.0, exact=True
        )
        if query == "Send":
            return Grounding(query=query, status="found", matches=(match,))
        if query == "Two":
            return Grounding(query=query, status="ambiguous", matches=(match, match))
        return Grounding(query=query, status="not_found")


def observation() -> Observation:
    return Observation(
        id=1,
        screenshot=Screenshot(png=b"", region=SCREEN),
        model_png=b"",
        model_width=500,
        model_height=400,
        text=ScreenText(region=SCREEN, elements=(OK_BUTTON,)),
    )


def resolve(name: str, arguments: dict[str, Any], coordinates: Any) -> ComputerAction:
    port = cast(ComputerPort, ScalingPort())
    locate = ScreenLocator(port, observation(), coordinates=coordinates)
    return resolve_action(action_from_call(name, arguments), locate)


def test_every_offered_action_tool_is_read_by_action_from_call() -> None:
    names = [tool.spec.name for tool in (*CHAT_ACTION_TOOLS, *TASK_ACTION_TOOLS)]
    assert len(names) == len(set(names))
    for tool in (*CHAT_ACTION_TOOLS, *TASK_ACTION_TOOLS):
        arguments: dict[str, Any] = {
            "element": 1,
            "text": "hello",
            "keys": ["enter"],
            "seconds": 1,
            "to_element": 1,
        }
        assert action_from_call(tool.spec.name, arguments).action.kind == tool.verb
    with pytest.raises(ComputerError):
        action_from_call("done", {"summary": "finished"})


@pytest.mark.parametrize(
    ("chat", "task", "arguments"),
    [
        ("computer_click", "click", {"element": 1, "double": True, "target": "OK"}),
        ("computer_click", "click", {"element": 1, "button": "right"}),
        ("computer_type", "type_text", {"text": "hello", "target": "name field"}),
        ("computer_keys", "press_keys", {"keys": ["ctrl", "s"]}),
        ("computer_scroll", "scroll", {"element": 1, "direction": "up", "amount": 5}),
    ],
)
def test_both_loops_read_the_same_call_as_the_same_action(
    chat: str, task: str, arguments: dict[str, Any]
) -> None:
    assert action_from_call(chat, arguments) == action_from_call(task, arguments)
    assert resolve(chat, arguments, "physical") == resolve(task, arguments, "model")


def test_click_kinds_and_labels() -> None:
    assert resolve("click", {"element": 1}, "model") == ComputerAction(
        kind="click", x=110, y=105, target="OK"
    )
    double = resolve("computer_click", {"text": "Send", "double": True}, "physical")
    assert (double.kind, double.point, double.target) == ("double_click", Point(5, 5), "Send")
    right = resolve("click", {"x": 3, "y": 4, "button": "right", "target": "menu"}, "model")
    assert (right.kind, right.point, right.target) == ("right_click", Point(6, 8), "menu")


def test_coordinates_are_physical_for_chat_tools_and_model_pixels_for_the_task_loop() -> None:
    assert resolve("computer_click", {"x": 30, "y": 40}, "physical").point == Point(30, 40)
    assert resolve("click", {"x": 30, "y": 40}, "model").point == Point(60, 80)


def test_only_chat_tools_aim_at_visible_text() -> None:
    with pytest.raises(TargetNotFoundError, match="element number or x and y"):
        action_from_call("click", {"text": "Send"})
    assert action_from_call("computer_click", {"text": "Send"}).aim == Aim(text="Send")
    with pytest.raises(TargetAmbiguousError):
        resolve("computer_click", {"text": "Two"}, "physical")
    with pytest.raises(TargetNotFoundError, match="not on the screen"):
        resolve("computer_click", {"text": "Nope"}, "physical")


def test_scrolling_defaults_down_by_three_and_carries_no_target() -> None:
    down = resolve("computer_scroll", {"element": 1, "target": "list"}, "physical")
    assert (down.kind, down.amount, down.target) == ("scroll", -3, "")
    up = resolve("scroll", {"x": 1, "y": 2, "direction": "up", "amount": 5}, "model")
    assert (up.amount, up.point) == (5, Point(2, 4))


def test_drag_resolves_both_ends_and_wait_carries_seconds() -> None:
    drag = resolve("drag", {"element": 1, "to_x": 7, "to_y": 8}, "model")
    assert (drag.x, drag.y, drag.to_x, drag.to_y, drag.target) == (110, 105, 14, 16, "OK")
    with pytest.raises(TargetNotFoundError):
        action_from_call("drag", {"element": 1})
    assert resolve("wait", {"seconds": 1.5}, "model") == ComputerAction(kind="wait", amount=1.5)


def test_unresolvable_aims_say_why() -> None:
    with pytest.raises(TargetNotFoundError, match="no element 7"):
        resolve("click", {"element": 7}, "model")
    with pytest.raises(TargetNotFoundError, match="Say where"):
        action_from_call("computer_click", {"x": 3})
    port = cast(ComputerPort, ScalingPort())
    unseen = ScreenLocator(port, None, coordinates="physical")
    with pytest.raises(TargetNotFoundError, match="No screen has been read"):
        resolve_action(ActionCall(action=ComputerAction(kind="click"), aim=Aim(element=1)), unseen)


def test_ground_never_guesses() -> None:
    port = cast(ComputerPort, ScalingPort())
    text = ScreenText(region=SCREEN)
    assert ground(port, text, "Send") == Point(5, 5)
    with pytest.raises(TargetAmbiguousError, match="2 places"):
        ground(port, text, "Two")
