"""The computer-use safety policy, as pure deterministic code (ARCHITECTURE.md: safety).

Every proposed action — from the model, the CLI or the API — is classified and decided here,
from the action itself and the facts on screen where it would land (``ActionContext``), never
from anything the model says about permissions. No I/O: time comes in as ``now_s``, so the
policy is fully testable and its decisions reproducible from the audit log.

Order of the checks (the first that decides wins):

1. read-only actions (screenshot, OCR, find, wait) are allowed;
2. the per-task action budget and the per-second rate limit;
3. the window at the target: ARIA's own windows are always refused; in allow-list mode a
   window matching no allow pattern is refused; a deny rule (password managers, banking,
   system authentication dialogs, root terminals, user patterns) refuses it — unless the user
   listed that rule in ``overrides``, which turns the refusal into a confirmation;
4. typing where the focused element is a password field is refused (accessibility answer when
   available; otherwise labels such as "Password" next to the target, or masked text);
5. consequential actions need the user's confirmation: targets judged by what they commit
   (``core/computer/consequence.py``: pay, order, book, send, sign, delete… in any wording), a label
   ARIA cannot place (or Enter) on a checkout/payment page or in a mail compose window,
   Enter in a terminal, drags, closing windows; everything else is reversible and allowed
   (or confirmed too when ``confirm_level`` is ``all``).

Coordinates of allowed actions are clamped away from the screen corners (pyautogui's
fail-safe corners). A denial always names the rule that matched.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Literal, NamedTuple

from aria_desktop.core.computer.consequence import Consequence, click_consequence, sensitive_context
from aria_desktop.domain.computer import (
    READ_ONLY_KINDS,
    ActionClass,
    ActionContext,
    ComputerAction,
    ComputerDecision,
    Point,
    WindowInfo,
)
from aria_desktop.domain.geometry import clamp_point

__all__ = [
    "CONFIRM_LEVELS",
    "DEFAULT_DENY_RULES",
    "ComputerPolicy",
    "DenyRule",
    "PolicyConfig",
    "classify",
    "explain",
    "is_terminal",
    "judge_target",
    "looks_like_password_field",
]

CONFIRM_LEVELS = ("consequential", "all")
"""``consequential``: only consequential actions are confirmed; ``all``: every acting step."""


@dataclass(frozen=True)
class DenyRule:
    """Windows ARIA must not operate.

    Attributes:
        name: rule id, shown in denials (``deny:<name>``).
        pattern: regular expression searched (case-insensitive) in the window title, the
            application class and the process name.
        overridable: whether ``PolicyConfig.overrides`` may turn the refusal into a
            confirmation (ARIA's own windows are never overridable: approving its own
            confirmation dialog would defeat the out-of-band channel).
    """

    name: str
    pattern: str
    overridable: bool = True


DEFAULT_DENY_RULES: tuple[DenyRule, ...] = (
    DenyRule(
        "password-manager",
        r"keepass|1password|bitwarden|lastpass|dashlane|enpass|keeper\b|nordpass|roboform"
        r"|proton ?pass|\bpass(word)?s?\.kdbx|password (manager|safe|vault|store)|seahorse"
        r"|gnome.keyring|kwallet|passwords and keys",
    ),
    DenyRule(
        "banking",
        r"\bbank(ing)?\b|online.banking|paypal|revolut|\bwise\.com|credit union|brokerage"
        r"|coinbase|binance|kraken|metamask|ledger live|crypto wallet|\bvenmo\b|\bzelle\b",
    ),
    DenyRule(
        "system-auth",
        r"authenticat(e|ion) required|polkit|pinentry|unlock (login )?keyring|\bsudo\b"
        r"|enter (your )?passphrase|user account control",
    ),
    DenyRule(
        "aria-self",
        r"^aria(-desktop| desktop)?\b.*\b(settings|preferences|confirm\w*|approv\w*|permissions?"
        r"|audit|kill switch)\b|^aria(-desktop| desktop)?$|\baria-desktop\b",
        overridable=False,
    ),
)
"""Built-in deny rules (plus ``root-terminal``, which looks at the process, not a pattern)."""

_TERMINAL_RE = re.compile(
    r"xterm|terminal|konsole|terminator|alacritty|kitty|tilix|urxvt|rxvt|wezterm|\bfoot\b"
    r"|\bst-256color\b|guake|yakuake|tmux|\bst\b|sakura|lxterm|mate-terminal|qterminal",
    re.IGNORECASE,
)
_ROOT_TITLE_RE = re.compile(r"(^|\s)root@|^root\b|#\s*$|\bsudo -i\b|\bsu -\B", re.IGNORECASE)
_PASSWORD_LABEL_RE = re.compile(
    r"pass(word|phrase|code|wd)|\bpin\b|\bcvv\b|\bcvc\b|security code|secret|kennwort"
    r"|mot de passe|contraseña",
    re.IGNORECASE,
)
_MASKED_RE = re.compile(r"[•●∙·*]{3,}")
_ENTER_KEYS = frozenset({"enter", "return", "kpenter", "kp_enter", "\n"})
_CONSEQUENTIAL_COMBOS = (
    frozenset({"shift", "delete"}),
    frozenset({"ctrl", "enter"}),
    frozenset({"ctrl", "return"}),
    frozenset({"alt", "f4"}),
    frozenset({"ctrl", "q"}),
    frozenset({"ctrl", "w"}),
    frozenset({"ctrl", "shift", "delete"}),
)


@dataclass(frozen=True)
class PolicyConfig:
    """What the user configured (``[computer]`` settings).

    Attributes:
        deny_rules: rules refusing windows (the defaults plus ``deny:user`` patterns).
        allow_patterns: in allow-list mode, the only windows that may be operated (regular
            expressions searched in title, application class and process name).
        allow_list_mode: refuse every window that matches no allow pattern.
        overrides: names of deny rules the user turned into "ask me" instead of "never".
        confirm_level: ``consequential`` or ``all`` (confirm every acting step).
        max_actions_per_s: acting steps per second; more are refused (rule ``rate:per-second``).
        max_actions_per_task: acting steps per task (rule ``budget:actions-per-task``).
        corner_margin_px: pointer targets stay this far from the screen corners, pixels.
    """

    deny_rules: tuple[DenyRule, ...] = DEFAULT_DENY_RULES
    allow_patterns: tuple[str, ...] = ()
    allow_list_mode: bool = False
    overrides: tuple[str, ...] = ()
    confirm_level: Literal["consequential", "all"] = "consequential"
    max_actions_per_s: float = 5.0
    max_actions_per_task: int = 200
    corner_margin_px: int = 5

    @classmethod
    def from_patterns(
        cls,
        *,
        deny_patterns: tuple[str, ...] = (),
        **kwargs: object,
    ) -> PolicyConfig:
        """The defaults plus user deny patterns (each becomes rule ``user:<n>``)."""
        user_rules = tuple(
            DenyRule(f"user:{index}", pattern) for index, pattern in enumerate(deny_patterns, 1)
        )
        return cls(deny_rules=DEFAULT_DENY_RULES + user_rules, **kwargs)  # type: ignore[arg-type]


def is_terminal(window: WindowInfo | None) -> bool:
    """Whether the window belongs to a terminal emulator (by class, process or title)."""
    if window is None:
        return False
    return any(_TERMINAL_RE.search(text) for text in (window.app, window.process) if text)


def looks_like_password_field(context: ActionContext) -> bool:
    """Whether the target is (probably) a password field.

    Accessibility's answer wins when there is one; otherwise a password-like label at or next
    to the target, or masked characters in it, count as a password field.
    """
    if context.focused_password is not None:
        return context.focused_password
    near = f"{context.target_text}\n{context.nearby_text}"
    return bool(_PASSWORD_LABEL_RE.search(near) or _MASKED_RE.search(context.target_text))


def _normal_key(key: str) -> str:
    return key.strip().lower().replace("control", "ctrl").replace("_l", "").replace("_r", "")


def _where(context: ActionContext) -> str:
    """The sensitive context around the target (checkout, mail compose…), or ""."""
    title = context.window.title if context.window is not None else ""
    return sensitive_context(title, context.nearby_text)


def judge_target(action: ComputerAction, context: ActionContext) -> Consequence:
    """What the aimed-at control commits: the text on screen there, and what the caller called it.

    Consequential if either says so (a model calling "Send" "the harmless button" does not
    make it harmless); harmless when the text on screen (or the only label) is harmless.
    """
    labels = [label for label in (context.target_text, action.target) if label.strip()]
    judged = [click_consequence(label) for label in labels]
    for consequence in judged:
        if consequence.verdict == "consequential":
            return consequence
    if judged and judged[0].verdict == "harmless":
        return judged[0]
    return Consequence("unsure", matched=labels[0][:80] if labels else "")


def classify(action: ComputerAction, context: ActionContext) -> tuple[ActionClass, str]:
    """The action's class and why (a rule id such as ``consequential:target``)."""
    if action.kind in READ_ONLY_KINDS:
        return "read_only", "read-only"
    terminal = is_terminal(context.window)
    if action.kind == "key":
        keys = frozenset(_normal_key(k) for k in action.keys)
        if terminal and keys & _ENTER_KEYS:
            return "consequential", "consequential:enter-in-terminal"
        if any(combo <= keys for combo in _CONSEQUENTIAL_COMBOS):
            return "consequential", "consequential:key-combo"
        if action.target and click_consequence(action.target).verdict == "consequential":
            return "consequential", "consequential:target"
        if keys & _ENTER_KEYS and _where(context):
            return "consequential", "consequential:context"
        return "reversible", "reversible"
    if action.kind == "type":
        if terminal and ("\n" in action.text or "\r" in action.text):
            return "consequential", "consequential:enter-in-terminal"
        return "reversible", "reversible"
    if action.kind == "drag":
        return "consequential", "consequential:drag"
    if action.kind in {"click", "double_click", "right_click"}:
        verdict = judge_target(action, context).verdict
        if verdict == "consequential":
            return "consequential", "consequential:target"
        if verdict == "harmless":
            return "reversible", "harmless:target"
        if action.kind != "right_click" and _where(context):
            return "consequential", "consequential:context"
        return "reversible", "unsure:no-context"
    return "reversible", "reversible"


def explain(why: str, action: ComputerAction, context: ActionContext) -> str:
    """Plain words for a consequential rule, naming what the target commits or the context."""
    if why == "consequential:target":
        consequence = judge_target(action, context)
        if action.kind == "key":
            consequence = click_consequence(action.target)
        return f"{consequence.matched!r} commits {_COMMITS.get(consequence.commits, 'something')}"
    if why == "consequential:context":
        where = _where(context)
        if action.kind == "key":
            return f"Enter may submit the form in a {where} window"
        return f"ARIA cannot tell what this control does in a {where} window"
    return _REASONS.get(why, "this action may not be undoable")


_COMMITS = {
    "money": "money (paying, ordering, booking, subscribing or transferring)",
    "sending": "words to other people (sending, posting, publishing or sharing)",
    "agreement": "your agreement (signing, accepting, confirming or allowing)",
    "deletion": "a loss (deleting, erasing, overwriting or cancelling)",
    "system": "a change to the system (installing, unlocking, restarting or running)",
}


def _window_texts(window: WindowInfo) -> tuple[str, ...]:
    return tuple(t for t in (window.title, window.app, window.process) if t)


@dataclass
class _TaskCounter:
    actions: int = 0


@dataclass
class ComputerPolicy:
    """Decides on actions; keeps only the counters rate limits and budgets need.

    Use one instance per assistant: ``evaluate`` for every proposed action, ``end_task`` when
    a task is over (drops its budget counter).
    """

    config: PolicyConfig = field(default_factory=PolicyConfig)
    _recent: deque[float] = field(default_factory=deque, init=False, repr=False)
    _tasks: dict[str, _TaskCounter] = field(default_factory=dict, init=False, repr=False)

    def evaluate(
        self, action: ComputerAction, context: ActionContext, *, task_id: str, now_s: float
    ) -> ComputerDecision:
        """Decide on ``action``; an allowed or confirmable acting step counts against limits.

        Args:
            action: what would be done (physical pixels).
            context: what is on screen there.
            task_id: the task (or turn) this belongs to, for the per-task budget.
            now_s: monotonic seconds, for the per-second rate limit.
        """
        decision = self._decide(action, context, task_id=task_id, now_s=now_s)
        if decision.verdict != "deny" and decision.action_class != "read_only":
            self._recent.append(now_s)
            self._tasks.setdefault(task_id, _TaskCounter()).actions += 1
        return decision

    def protection(self, window: WindowInfo) -> str | None:
        """The rule that keeps ``window`` from other programs' eyes (MCP clients), or None.

        Any matching deny rule counts, overridden or not (an override lets ARIA ask before
        acting; it does not let another program read the window), and so does a root terminal.
        """
        texts = _window_texts(window)
        for rule in self.config.deny_rules:
            if any(re.search(rule.pattern, text, re.IGNORECASE) for text in texts):
                return f"deny:{rule.name}"
        if is_terminal(window) and (window.elevated or _ROOT_TITLE_RE.search(window.title)):
            return "deny:root-terminal"
        return None

    def end_task(self, task_id: str) -> None:
        """Forget a finished task's counters."""
        self._tasks.pop(task_id, None)

    def _decide(
        self, action: ComputerAction, context: ActionContext, *, task_id: str, now_s: float
    ) -> ComputerDecision:
        """The first check that decides wins, in the order the module's docstring gives."""
        action_class, why = classify(action, context)
        if action_class == "read_only":
            return ComputerDecision(
                verdict="allow", rule=why, reason="", action_class=action_class, action=action
            )
        cfg, window = self.config, context.window
        denial = (
            self._budget_denial(task_id)
            or self._rate_denial(now_s)
            or _own_window_denial(context)
            or _allow_list_denial(window, cfg)
        )
        override: str | None = None
        if denial is None and window is not None:
            override, denial = _protected_window(window, cfg)
        if denial is None and action.kind == "type" and looks_like_password_field(context):
            denial = _Denial("password-field", "ARIA never types into password fields")
        if denial is not None:
            return ComputerDecision(
                verdict="deny",
                rule=denial.rule,
                reason=denial.reason,
                action_class=action_class,
                action=action,
            )
        return self._confirm_or_allow(action, context, action_class, why, override)

    def _budget_denial(self, task_id: str) -> _Denial | None:
        """The task has used all the actions one task may take."""
        limit = self.config.max_actions_per_task
        counter = self._tasks.get(task_id)
        if counter is not None and counter.actions >= limit:
            return _Denial("budget:actions-per-task", f"this task already used its {limit} actions")
        return None

    def _rate_denial(self, now_s: float) -> _Denial | None:
        """Too many actions in the last second (the counter forgets older ones here)."""
        while self._recent and now_s - self._recent[0] >= 1.0:
            self._recent.popleft()
        limit = self.config.max_actions_per_s
        if len(self._recent) >= limit:
            return _Denial("rate:per-second", f"more than {limit:g} actions in one second")
        return None

    def _confirm_or_allow(
        self,
        action: ComputerAction,
        context: ActionContext,
        action_class: ActionClass,
        why: str,
        override: str | None,
    ) -> ComputerDecision:
        """An action no check refused: overridden, consequential or all-confirmed ones ask."""
        clamped = self._clamped(action, context)
        if override is not None:
            return ComputerDecision(
                verdict="confirm",
                rule=f"override:{override}",
                reason=f"protected window ({override}) — you allowed asking",
                action_class="consequential",
                action=clamped,
            )
        if action_class == "consequential":
            return ComputerDecision(
                verdict="confirm",
                rule=why,
                reason=explain(why, action, context),
                action_class=action_class,
                action=clamped,
            )
        if self.config.confirm_level == "all":
            return ComputerDecision(
                verdict="confirm",
                rule="confirm-level:all",
                reason="you asked to confirm every action",
                action_class=action_class,
                action=clamped,
            )
        return ComputerDecision(
            verdict="allow", rule=why, reason="", action_class=action_class, action=clamped
        )

    def _clamped(self, action: ComputerAction, context: ActionContext) -> ComputerAction:
        margin, screen = self.config.corner_margin_px, context.screen
        changes: dict[str, int] = {}
        point = action.point
        if point is not None:
            clamped = clamp_point(point, screen, margin)
            changes.update(x=clamped.x, y=clamped.y)
        if action.to_x is not None and action.to_y is not None:
            end = clamp_point(Point(action.to_x, action.to_y), screen, margin)
            changes.update(to_x=end.x, to_y=end.y)
        return replace(action, **changes) if changes else action  # type: ignore[arg-type]


class _Denial(NamedTuple):
    """A refusal: the rule that matched (shown in the denial) and why, in words."""

    rule: str
    reason: str


def _own_window_denial(context: ActionContext) -> _Denial | None:
    """The target is one of ARIA's own windows (never overridable)."""
    window = context.window
    if window is not None and window.pid is not None and window.pid in context.own_pids:
        return _Denial("deny:aria-self", "ARIA never operates its own windows")
    return None


def _allow_list_denial(window: WindowInfo | None, cfg: PolicyConfig) -> _Denial | None:
    """In allow-list mode, the target window matches none of the allow patterns."""
    if not cfg.allow_list_mode:
        return None
    texts = _window_texts(window) if window is not None else ()
    if any(
        re.search(pattern, text, re.IGNORECASE) for pattern in cfg.allow_patterns for text in texts
    ):
        return None
    return _Denial(
        "allow-list:no-match",
        f"window {window.title if window else '(unknown)'!r} is not in the allow list",
    )


def _protected_window(window: WindowInfo, cfg: PolicyConfig) -> tuple[str | None, _Denial | None]:
    """A deny rule or a root terminal at ``window``: ``(override, denial)``.

    The first matching deny rule decides: refused, or (listed in ``overrides``) named as the
    override that turns the refusal into a confirmation. A root terminal is checked after
    the deny rules, with ``root-terminal`` as its override.
    """
    texts = _window_texts(window)
    for rule in cfg.deny_rules:
        if any(re.search(rule.pattern, text, re.IGNORECASE) for text in texts):
            if rule.overridable and rule.name in cfg.overrides:
                return rule.name, None
            return None, _Denial(f"deny:{rule.name}", f"window {window.title!r} is protected")
    if is_terminal(window) and (window.elevated or _ROOT_TITLE_RE.search(window.title)):
        if "root-terminal" in cfg.overrides:
            return "root-terminal", None
        return None, _Denial("deny:root-terminal", "the terminal runs as root")
    return None, None


_REASONS = {
    "consequential:enter-in-terminal": "Enter in a terminal runs a command",
    "consequential:key-combo": "this key combination deletes, sends or closes",
    "consequential:drag": "dragging can move or delete things",
}
