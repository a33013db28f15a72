"""The computer-use safety policy (pure): rules, classes, limits, clamping."""

from __future__ import annotations

import dataclasses

import pytest

from aria_desktop.core.computer.policy import ComputerPolicy, PolicyConfig, classify
from aria_desktop.domain.computer import ActionContext, ComputerAction, Rect, WindowInfo

SCREEN = Rect(0, 0, 1280, 800)


def window(
    title: str, app: str = "firefox", *, pid: int = 4242, elevated: bool = False
) -> WindowInfo:
    return WindowInfo(
        window_id=7,
        title=title,
        app=app,
        process=app,
        pid=pid,
        geometry=Rect(0, 0, 1280, 800),
        elevated=elevated,
    )


def ctx(title: str = "Inbox - Mail", app: str = "thunderbird", **kw: object) -> ActionContext:
    win = kw.pop("win", None) or window(title, app)
    return ActionContext(window=win, screen=SCREEN, own_pids=frozenset({1}), **kw)  # type: ignore[arg-type]


CLICK = ComputerAction(kind="click", x=400, y=300)


def decide(action: ComputerAction, context: ActionContext, config: PolicyConfig | None = None):  # type: ignore[no-untyped-def]
    policy = ComputerPolicy(config or PolicyConfig(max_actions_per_s=1000))
    return policy.evaluate(action, context, task_id="t", now_s=0.0)


@pytest.mark.parametrize(
    ("title", "app", "rule"),
    [
        ("Passwords.kdbx - KeePassXC", "keepassxc", "deny:password-manager"),
        ("Vault - Bitwarden", "Bitwarden", "deny:password-manager"),
        ("Online Banking - Sparkasse", "firefox", "deny:banking"),
        ("PayPal: Summary", "chromium", "deny:banking"),
        ("Authentication Required", "polkit-gnome-authentication-agent-1", "deny:system-auth"),
        ("ARIA Settings", "aria-desktop", "deny:aria-self"),
        ("ARIA — Confirm action", "python3", "deny:aria-self"),
        ("root@box: ~", "gnome-terminal-server", "deny:root-terminal"),
    ],
)
def test_deny_listed_windows_are_refused_with_the_rule_named(
    title: str, app: str, rule: str
) -> None:
    decision = decide(CLICK, ctx(title, app))
    assert decision.verdict == "deny"
    assert decision.rule == rule


def test_harmless_windows_are_not_caught_by_the_deny_rules() -> None:
    for title, app in (
        ("ARIA Target App", "target_app.py"),
        ("Banana bread recipe - Firefox", "firefox"),
        ("user@box: ~/src", "gnome-terminal-server"),
        ("Passport renewal form", "firefox"),
    ):
        assert decide(CLICK, ctx(title, app)).verdict == "allow", title


def test_a_terminal_whose_shell_became_root_is_refused() -> None:
    win = window("user@box: ~", "xterm", elevated=True)
    assert decide(CLICK, ctx(win=win)).rule == "deny:root-terminal"


def test_aria_own_process_windows_are_refused_whatever_their_title() -> None:
    win = window("Some dialog", "python3", pid=1)
    assert decide(CLICK, ctx(win=win)).rule == "deny:aria-self"


def test_user_deny_patterns_and_overrides() -> None:
    config = PolicyConfig.from_patterns(
        deny_patterns=(r"payroll",), overrides=("banking",), max_actions_per_s=1000
    )
    assert decide(CLICK, ctx("Payroll 2025.xlsx", "libreoffice"), config).rule == "deny:user:1"
    overridden = decide(CLICK, ctx("Online Banking", "firefox"), config)
    assert (overridden.verdict, overridden.rule) == ("confirm", "override:banking")
    assert overridden.action_class == "consequential"


def test_aria_self_can_never_be_overridden() -> None:
    config = PolicyConfig(overrides=("aria-self",), max_actions_per_s=1000)
    assert decide(CLICK, ctx("ARIA Settings", "aria"), config).verdict == "deny"


def test_allow_list_mode_refuses_everything_else() -> None:
    config = PolicyConfig(allow_list_mode=True, allow_patterns=(r"gedit",), max_actions_per_s=1000)
    assert decide(CLICK, ctx("notes.txt - gedit", "gedit"), config).verdict == "allow"
    refused = decide(CLICK, ctx("Inbox", "thunderbird"), config)
    assert (refused.verdict, refused.rule) == ("deny", "allow-list:no-match")
    unknown = decide(CLICK, ActionContext(window=None, screen=SCREEN), config)
    assert unknown.rule == "allow-list:no-match"


@pytest.mark.parametrize(
    "label", ["Send", "Delete", "Buy now", "Submit", "Install", "Accept all", "Place order", "Pay"]
)
def test_consequential_targets_need_confirmation(label: str) -> None:
    decision = decide(CLICK, ctx(target_text=label))
    assert (decision.verdict, decision.rule) == ("confirm", "consequential:target")


def test_what_is_on_screen_counts_even_if_the_model_calls_it_something_else() -> None:
    lying = dataclasses.replace(CLICK, target="the harmless Cancel button")
    assert decide(lying, ctx(target_text="Send")).verdict == "confirm"
    honest = dataclasses.replace(CLICK, target="Send button")
    assert decide(honest, ctx(target_text="")).verdict == "confirm"


@pytest.mark.parametrize("label", ["Save Draft", "Open Downloads", "Cancel", "Sender:", "Preview"])
def test_ordinary_clicks_are_reversible(label: str) -> None:
    decision = decide(CLICK, ctx(target_text=label))
    assert (decision.verdict, decision.action_class) == ("allow", "reversible")


def test_enter_in_a_terminal_is_consequential_elsewhere_not() -> None:
    enter = ComputerAction(kind="key", keys=("Return",))
    terminal = ctx("user@box: ~", "gnome-terminal-server")
    assert decide(enter, terminal).rule == "consequential:enter-in-terminal"
    typed_newline = ComputerAction(kind="type", text="rm -rf build\n")
    assert decide(typed_newline, terminal).verdict == "confirm"
    assert decide(enter, ctx("notes.txt - gedit", "gedit")).verdict == "allow"


@pytest.mark.parametrize("keys", [("shift", "Delete"), ("ctrl", "Return"), ("alt", "F4")])
def test_destructive_key_combos_are_consequential(keys: tuple[str, ...]) -> None:
    decision = decide(ComputerAction(kind="key", keys=keys), ctx())
    assert decision.rule == "consequential:key-combo"


def test_typing_into_password_fields_is_refused() -> None:
    typing = ComputerAction(kind="type", text="hunter2")
    assert decide(typing, ctx(nearby_text="Password")).rule == "password-field"
    assert decide(typing, ctx(nearby_text="Enter PIN")).rule == "password-field"
    assert decide(typing, ctx(target_text="••••••")).rule == "password-field"
    # Accessibility's answer wins over the heuristics, both ways.
    assert decide(typing, ctx(nearby_text="Password", focused_password=False)).verdict == "allow"
    assert decide(typing, ctx(nearby_text="City", focused_password=True)).verdict == "deny"
    assert decide(typing, ctx(nearby_text="City")).verdict == "allow"


def test_read_only_actions_are_always_allowed() -> None:
    for kind in ("screenshot", "read", "find", "wait"):
        decision = decide(ComputerAction(kind=kind), ctx("Online Banking"))
        assert (decision.verdict, decision.action_class) == ("allow", "read_only")


def test_confirm_level_all_confirms_reversible_actions() -> None:
    config = PolicyConfig(confirm_level="all", max_actions_per_s=1000)
    decision = decide(CLICK, ctx(target_text="Cancel"), config)
    assert (decision.verdict, decision.rule) == ("confirm", "confirm-level:all")


def test_two_hundred_clicks_in_one_second_are_throttled() -> None:
    policy = ComputerPolicy(PolicyConfig(max_actions_per_s=5))
    verdicts = [
        policy.evaluate(CLICK, ctx(), task_id="t", now_s=10.0 + i / 200).verdict for i in range(200)
    ]
    assert verdicts.count("allow") == 5
    denied = policy.evaluate(CLICK, ctx(), task_id="t", now_s=10.999)
    assert (denied.verdict, denied.rule) == ("deny", "rate:per-second")
    # a second later the window has moved on
    assert policy.evaluate(CLICK, ctx(), task_id="t", now_s=11.01).verdict == "allow"


def test_per_task_action_budget() -> None:
    policy = ComputerPolicy(PolicyConfig(max_actions_per_s=1000, max_actions_per_task=3))
    verdicts = [policy.evaluate(CLICK, ctx(), task_id="a", now_s=i).verdict for i in range(4)]
    assert verdicts == ["allow", "allow", "allow", "deny"]
    assert policy.evaluate(CLICK, ctx(), task_id="a", now_s=9).rule == "budget:actions-per-task"
    assert policy.evaluate(CLICK, ctx(), task_id="b", now_s=9).verdict == "allow"
    policy.end_task("a")
    assert policy.evaluate(CLICK, ctx(), task_id="a", now_s=10).verdict == "allow"


def test_allowed_pointer_actions_are_clamped_away_from_corners() -> None:
    corner = ComputerAction(kind="drag", x=0, y=0, to_x=1279, to_y=799)
    decision = decide(corner, ctx(), PolicyConfig(corner_margin_px=8, max_actions_per_s=1000))
    assert (decision.action.x, decision.action.y) == (8, 8)
    assert (decision.action.to_x, decision.action.to_y) == (1271, 791)
    assert decision.verdict == "confirm"  # drags can move or delete things


def test_classify_is_deterministic_and_names_why() -> None:
    assert classify(CLICK, ctx(target_text="Uninstall")) == (
        "consequential",
        "consequential:target",
    )
    assert classify(ComputerAction(kind="scroll", x=1, y=1, amount=-3), ctx()) == (
        "reversible",
        "reversible",
    )
