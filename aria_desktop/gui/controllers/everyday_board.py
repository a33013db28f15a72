"""What the desktop shows of timers, reminders and lists: a Qt-free state model.

The "Reminders & lists" window and the tray show the same data: the lists with their entries,
the reminders and alarms (pending, and delivered in the last week), the running timers with
their countdown. :class:`EverydayBoard` holds that data as the ports gave it and derives every
line a person reads from it — countdowns, "Tomorrow 09:00", "Delivered late", the empty states —
so the wording is decided once, tested without a display, and the widgets only draw rows
(napari-style: the model tells its observers which part changed; the views redraw that part).

Time is a parameter (``now``, UNIX seconds): the 1 s countdown tick only re-renders.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from aria_desktop.domain.lists import SHOPPING, TODO, ListItem, ListSummary
from aria_desktop.domain.reminders import Reminder
from aria_desktop.domain.timers import Timer

__all__ = [
    "EMPTY_LISTS",
    "EMPTY_REMINDERS",
    "EMPTY_TIMERS",
    "BoardPart",
    "EverydayBoard",
    "ItemRow",
    "ListRow",
    "ReminderRow",
    "TimerRow",
    "countdown",
    "duration_words",
    "empty_list_text",
    "list_title",
    "moment",
    "repeat_words",
    "timer_title",
]

BoardPart = Literal["lists", "items", "reminders", "timers", "ringing"]
"""What changed, as observers are told."""

EMPTY_TIMERS = (
    'No timers running. Say or type "set a timer for 10 minutes" — '
    "it counts down here and in the tray."
)
EMPTY_REMINDERS = (
    'No reminders or alarms. Say or type "remind me at 4 pm to call mom" or "wake me up at 7".'
)
EMPTY_LISTS = 'No lists yet. Say or type "add milk to my shopping list".'

_EXAMPLE_ITEM = {SHOPPING: "milk", TODO: "call the bank"}
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def countdown(seconds: float) -> str:
    """What is left as a clock shows it: ``4:12``, ``1:02:03`` (whole seconds, rounded up).

    Rounded up so a timer never reads ``0:00`` while it still runs.
    """
    whole = max(0, math.ceil(seconds - 1e-6))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def duration_words(seconds: float) -> str:
    """A duration as people write it: ``5 min``, ``1 h 30 min``, ``45 s``."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h"] if hours else []
    if minutes:
        parts.append(f"{minutes} min")
    if secs and not hours:
        parts.append(f"{secs} s")
    return " ".join(parts) or "0 s"


def list_title(name: str) -> str:
    """A stored list name as a title: ``shopping`` -> ``Shopping``, ``todo`` -> ``To-do``."""
    if name == TODO:
        return "To-do"
    return name[:1].upper() + name[1:]


def empty_list_text(name: str) -> str:
    """What an empty list says: how to put something on it, by typing or saying it."""
    spoken = "to-do" if name == TODO else name
    example = _EXAMPLE_ITEM.get(name, "something")
    return (
        f"Your {spoken} list is empty. Type an entry below and press Add, "
        f'or say "add {example} to my {spoken} list".'
    )


def moment(at: float, now: float) -> str:
    """A moment near ``now`` in local time: ``Today 16:00``, ``Tomorrow 09:00``, ``Fri 18:00``.

    Further away the date is named (``Fri 6 Mar 18:00``), with the year when it is another.
    """
    then, today = time.localtime(at), time.localtime(now)
    clock = time.strftime("%H:%M", then)
    days = _day_number(then) - _day_number(today)
    if days == 0:
        return f"Today {clock}"
    if days == 1:
        return f"Tomorrow {clock}"
    if days == -1:
        return f"Yesterday {clock}"
    weekday = _WEEKDAYS[then.tm_wday][:3]
    if -6 <= days <= 6:
        return f"{weekday} {clock}"
    date = f"{then.tm_mday} {time.strftime('%b', then)}"
    if then.tm_year != today.tm_year:
        date += f" {then.tm_year}"
    return f"{weekday} {date} {clock}"


def _day_number(moment_: time.struct_time) -> int:
    """Days since the epoch of a local date (calendar days, whatever DST does to hours)."""
    return (
        int(time.mktime((moment_.tm_year, moment_.tm_mon, moment_.tm_mday, 12, 0, 0, 0, 0, -1)))
        // 86400
    )


def repeat_words(recurrence: str) -> str:
    """A recurring reminder's rule in words (``0 7 * * 1-5`` -> ``every weekday``); "" if one-off.

    Only the day part is put in words (the time is in the row's moment); a rule this cannot
    read is still said to repeat.
    """
    fields = recurrence.split()
    if not fields:
        return ""
    if len(fields) != 5 or fields[2:4] != ["*", "*"]:
        return "repeats"
    if fields[4] == "*":
        return "every day"
    days = _cron_days(fields[4])
    if days is None:
        return "repeats"
    if days == set(range(7)):
        return "every day"
    if days == {1, 2, 3, 4, 5}:
        return "every weekday"
    if days == {0, 6}:
        return "every weekend day"
    names = [_WEEKDAYS[(day - 1) % 7] for day in sorted(days, key=lambda d: (d - 1) % 7)]
    if len(names) == 1:
        return f"every {names[0]}"
    return f"every {', '.join(name[:3] for name in names[:-1])} and {names[-1][:3]}"


def _cron_days(field_: str) -> set[int] | None:
    """A cron day-of-week field (``1-5``, ``1,3,5``, ``0,6``) as weekday numbers 0-6 (0 Sunday)."""
    days: set[int] = set()
    for part in field_.split(","):
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            return None
        first, last = int(low), int(high or low)
        if not 0 <= first <= last <= 7:
            return None
        days.update(day % 7 for day in range(first, last + 1))
    return days


def _until(seconds: float) -> str:
    """``in 20 min``, ``in 2 h 5 min``, ``in 1 day 8 h``, ``in 3 days`` (coarser further away)."""
    if seconds < 60:
        return "in less than a minute"
    if seconds < 86400:
        minutes = math.ceil(seconds / 60)
        return f"in {duration_words(minutes * 60)}"
    days, hours = divmod(round(seconds / 3600), 24)
    if days <= 1:
        return f"in 1 day {hours} h" if hours and days == 1 else "in 1 day"
    return f"in {round(seconds / 86400)} days"


@dataclass(frozen=True, kw_only=True)
class ListRow:
    """One list in the list column: its stored name and what the column says."""

    name: str
    label: str
    problem: str = ""


@dataclass(frozen=True, kw_only=True)
class ItemRow:
    """One entry of the selected list (``id`` is what the port's ``by_id`` calls take)."""

    id: str
    text: str
    done: bool
    note: str = ""


@dataclass(frozen=True, kw_only=True)
class TimerRow:
    """One running or paused timer as the window's table and the tray show it."""

    id: str
    title: str
    left: str
    set_for: str
    state: str
    paused: bool
    tray_line: str


@dataclass(frozen=True, kw_only=True)
class ReminderRow:
    """One reminder or alarm: when, what, its state in words; ``late`` marks a late delivery."""

    id: str
    when: str
    text: str
    kind: str
    state: str
    late: bool
    pending: bool


def timer_title(timer: Timer) -> str:
    """``Pasta`` for a named timer, ``5 min timer`` for an unnamed one."""
    if timer.name:
        return timer.name[:1].upper() + timer.name[1:]
    return f"{duration_words(timer.duration_s)} timer"


def _timer_row(timer: Timer, now: float) -> TimerRow:
    title, left = timer_title(timer), countdown(timer.remaining_at(now))
    paused = timer.state == "paused"
    return TimerRow(
        id=timer.id,
        title=title,
        left=left,
        set_for=duration_words(timer.duration_s),
        state="Paused" if paused else "Running",
        paused=paused,
        tray_line=f"{title} — paused, {left} left" if paused else f"{title} — {left} left",
    )


def _reminder_state(reminder: Reminder, now: float) -> str:
    if reminder.state == "cancelled":
        return "Cancelled"
    if reminder.state == "delivered" and reminder.delivered_at is not None:
        late = "Delivered late" if reminder.late else "Delivered"
        return f"{late} · {moment(reminder.delivered_at, now)}"
    if reminder.state == "delivered":
        return "Delivered late" if reminder.late else "Delivered"
    due = "Due now" if reminder.due_at <= now else f"Pending · {_until(reminder.due_at - now)}"
    if reminder.late and reminder.delivered_at is not None:  # a repeating one, last time late
        due += f" (last time delivered late, {moment(reminder.delivered_at, now)})"
    return due


def _reminder_row(reminder: Reminder, now: float) -> ReminderRow:
    repeat = repeat_words(reminder.recurrence)
    when = moment(reminder.due_at, now) + (f" · {repeat}" if repeat else "")
    kind = "Alarm" if reminder.kind == "alarm" else "Reminder"
    return ReminderRow(
        id=reminder.id,
        when=when,
        text=reminder.text or ("Wake-up alarm" if reminder.kind == "alarm" else "—"),
        kind=kind,
        state=_reminder_state(reminder, now),
        late=reminder.late and reminder.state == "delivered",
        pending=reminder.state == "pending",
    )


Observer = Callable[[BoardPart], None]


@dataclass
class EverydayBoard:
    """The data behind the window and the tray, and every line derived from it.

    Attributes:
        lists: every list with its counts (shopping and to-do first).
        selected: the stored name of the list whose entries are shown.
        items: the selected list's entries, checked-off ones included.
        reminders: pending reminders and alarms, and those delivered in the last week.
        timers: running and paused timers.
        ringing: a timer or an alarm is ringing now ("Stop ringing" is offered).
        unavailable: part -> why it cannot be shown here ("" or absent: it can).
    """

    lists: list[ListSummary] = field(default_factory=list)
    selected: str = SHOPPING
    items: list[ListItem] = field(default_factory=list)
    reminders: list[Reminder] = field(default_factory=list)
    timers: list[Timer] = field(default_factory=list)
    ringing: bool = False
    unavailable: dict[str, str] = field(default_factory=dict)
    _observers: list[Observer] = field(default_factory=list, repr=False)

    def observe(self, observer: Observer) -> None:
        """Call ``observer`` with the part that changed after every change."""
        self._observers.append(observer)

    def _tell(self, part: BoardPart) -> None:
        for observer in list(self._observers):
            observer(part)

    def set_unavailable(self, part: BoardPart, reason: str) -> None:
        """``part`` cannot be shown (``reason`` in plain words; "" when it can again)."""
        if reason:
            self.unavailable[part] = reason
        else:
            self.unavailable.pop(part, None)
        self._tell(part)

    # --- lists --------------------------------------------------------------------------------

    def set_lists(self, lists: Sequence[ListSummary]) -> None:
        """The lists as the port listed them; the selection stays when its list still exists."""
        self.lists = list(lists)
        names = [summary.name for summary in self.lists]
        if names and self.selected not in names:
            self.selected = names[0]
        self._tell("lists")

    def select(self, name: str) -> bool:
        """Show ``name``'s entries next; whether the selection changed."""
        if name == self.selected:
            return False
        self.selected = name
        self.items = []
        self._tell("items")
        return True

    def set_items(self, list_name: str, items: Sequence[ListItem]) -> None:
        """The entries of ``list_name`` (ignored when another list was selected meanwhile)."""
        if list_name != self.selected:
            return
        self.items = list(items)
        self._tell("items")

    def list_rows(self) -> list[ListRow]:
        """The list column: ``Shopping (3)``, a list's open entries counted."""
        return [
            ListRow(
                name=summary.name,
                label=f"{list_title(summary.name)} ({summary.open_items})"
                if summary.open_items
                else list_title(summary.name),
                problem=summary.problem,
            )
            for summary in self.lists
        ]

    def item_rows(self) -> list[ItemRow]:
        """The selected list's entries: open ones first, then the checked-off ones."""
        ordered = [i for i in self.items if not i.done] + [i for i in self.items if i.done]
        return [
            ItemRow(
                id=item.id,
                text=item.text,
                done=item.done,
                note="not yet in Home Assistant" if item.pending else "",
            )
            for item in ordered
        ]

    @property
    def done_count(self) -> int:
        """How many entries of the selected list are checked off ("Clear checked" needs one)."""
        return sum(1 for item in self.items if item.done)

    def items_empty_text(self) -> str:
        """What the entry area says when the selected list is empty ("" when it is not)."""
        if self.items:
            return ""
        if not self.lists:
            return EMPTY_LISTS
        return empty_list_text(self.selected)

    # --- timers -------------------------------------------------------------------------------

    def set_timers(self, timers: Sequence[Timer]) -> None:
        """The running and paused timers as the port listed them."""
        self.timers = [timer for timer in timers if timer.active]
        self._tell("timers")

    @property
    def counting(self) -> bool:
        """Whether a timer is running, so the countdown needs its 1 s tick."""
        return any(timer.state == "running" for timer in self.timers)

    def timer_rows(self, now: float) -> list[TimerRow]:
        """The timers, soonest end first (paused ones by what they have left)."""
        ordered = sorted(self.timers, key=lambda timer: timer.remaining_at(now))
        return [_timer_row(timer, now) for timer in ordered]

    def tray_lines(self, now: float) -> list[str]:
        """``Pasta — 4:12 left`` per timer, for the tray's menu and tooltip."""
        return [row.tray_line for row in self.timer_rows(now)]

    def set_ringing(self, ringing: bool) -> None:
        """A ring started or stopped."""
        if ringing != self.ringing:
            self.ringing = ringing
            self._tell("ringing")

    # --- reminders ----------------------------------------------------------------------------

    def set_reminders(self, reminders: Sequence[Reminder]) -> None:
        """Pending reminders and alarms, and the recently delivered ones."""
        self.reminders = list(reminders)
        self._tell("reminders")

    def reminder_rows(self, now: float) -> list[ReminderRow]:
        """Pending ones first (soonest first), then the delivered ones (latest first)."""
        pending = sorted(
            (r for r in self.reminders if r.state == "pending"), key=lambda r: r.due_at
        )
        past = sorted(
            (r for r in self.reminders if r.state != "pending"),
            key=lambda r: r.delivered_at or r.due_at,
            reverse=True,
        )
        return [_reminder_row(reminder, now) for reminder in (*pending, *past)]
