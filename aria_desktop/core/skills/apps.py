"""Opening an installed application by the name the user says: "open firefox", "starte Dateien".

No confirmation: the user asked, and an app that opens by mistake is closed with one click. What
must not happen is a sentence that only *starts* like a command opening something ("open the
window", "open a bank account"): the skill takes a name only when it matches an installed app
strongly — its name, generic name or program, as said, with small speech-to-text slips
(ARCHITECTURE.md: everyday skills). Saying "app" ("open the app Foo") makes the user's intent
plain, so an unknown name is then answered ("I couldn't find an app called Foo.") instead of
handed to the model.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from aria_desktop.core.skills.ports import Phrasebook
from aria_desktop.core.skills.router import SkillTurn
from aria_desktop.domain.desktop import AppEntry
from aria_desktop.domain.intents import IntentMatch, SkillReply

__all__ = [
    "STRONG_MATCH",
    "AppCatalog",
    "AppChoice",
    "AppLauncher",
    "AppMatcher",
    "AppSkill",
    "choose_app",
    "open_app",
    "spoken_app_name",
]

STRONG_MATCH = 0.85
"""The least score an app needs to be opened: an exact name, or one a slip or two away."""

_FUZZY_MIN = 0.88
"""How alike (difflib ratio, spaces ignored) a name must be to count as a slip of it."""

_LEADING = {
    "en": ("the", "a", "an", "my", "this", "that", "up"),
    "de": ("den", "die", "das", "der", "dem", "ein", "eine", "einen", "mein", "meine", "meinen"),
}
_TRAILING = {
    "en": ("please", "for me", "now", "up"),
    "de": ("bitte", "für mich", "jetzt", "auf"),
}
_APP_WORDS = {
    "en": ("app", "application", "program", "programme"),
    "de": ("app", "anwendung", "programm"),
}
_EDITIONS = frozenset(
    {"esr", "nightly", "beta", "stable", "preview", "edition", "community", "insiders", "lts"}
)
_OTHER_SKILLS = frozenset(
    {
        "timer", "timers", "alarm", "alarms", "reminder", "reminders", "countdown",
        "wecker", "erinnerung", "erinnerungen",
    }
)  # fmt: skip
"""Said after "start"/"open", these are other skills' ("start a timer"), never an app."""

_WRAPPERS = frozenset(
    {"env", "sh", "bash", "dash", "flatpak", "snap", "java", "wine", "python", "python3", "perl"}
)
"""Programs that run another one: their name says nothing about the app."""


class AppCatalog(Protocol):
    """The installed applications (``adapters/skills/applications.py``: XDG entries)."""

    def apps(self) -> Sequence[AppEntry]:
        """Every app a menu would show, now (cheap: the adapter re-reads only what changed)."""
        ...


class AppLauncher(Protocol):
    """Starts an application on its own, as if from the menu."""

    async def launch(self, app: AppEntry) -> bool:
        """Start ``app`` detached from ARIA; False (never an exception) when it cannot start."""
        ...


@dataclass(frozen=True)
class AppChoice:
    """The installed app a spoken name meant, and how sure that is (0-1)."""

    app: AppEntry
    score: float


def _words(text: str) -> str:
    """Lower case, punctuation and separators as spaces (``LibreOffice-Writer`` -> words)."""
    text = re.sub(r"[\s._\-/:()\[\],!?+]+", " ", text.lower())
    return " ".join(text.replace("’", "'").split())


def _strip_words(text: str, words: Iterable[str], *, leading: bool) -> str:
    changed = True
    while changed and text:
        changed = False
        for word in words:
            if leading and text.startswith(word + " "):
                text, changed = text[len(word) + 1 :], True
            elif not leading and text.endswith(" " + word):
                text, changed = text[: -len(word) - 1], True
    return text


def spoken_app_name(said: str, language: str) -> tuple[str, bool]:
    """The app name in what the user said, and whether they called it an app.

    ``"the calculator app please"`` -> ``("calculator", True)``; articles, "please" and the
    words for "app" are not part of any name.
    """
    lang = language.split("-")[0]
    text = _words(said)
    app_words = _APP_WORDS.get(lang, _APP_WORDS["en"])
    leading = (*_LEADING.get(lang, _LEADING["en"]), *app_words)
    trailing = (*_TRAILING.get(lang, _TRAILING["en"]), *app_words)
    before = text
    text = _strip_words(text, leading, leading=True)
    text = _strip_words(text, trailing, leading=False)
    text = _strip_words(text, leading, leading=True)
    explicit = any(
        re.search(rf"(^| ){re.escape(word)}($| )", before)
        and not re.search(rf"(^| ){re.escape(word)}($| )", text)
        for word in app_words
    )
    return text, explicit


@dataclass(frozen=True)
class _Names:
    """What one app answers to in one language, worked out once per catalog."""

    app: AppEntry
    exact: frozenset[str]
    compact: frozenset[str]
    kinds: frozenset[str]


def _names(app: AppEntry, language: str) -> _Names:
    """The names ``app`` answers to exactly, and the kinds of thing it is ("browser")."""
    exact: set[str] = set()
    generics = [app.generic_name, app.localized_generic_names.get(language, "")]
    for name in (app.name, app.localized_names.get(language, ""), *generics):
        if name:
            exact.add(_words(name))
    name = _words(app.name)
    parts = name.split()
    while len(parts) > 1 and parts[-1] in _EDITIONS:  # "Firefox ESR" -> "firefox"
        parts.pop()
        exact.add(" ".join(parts))
    generic = _words(app.generic_name)
    if generic and name.endswith(" " + generic):  # "Firefox Web Browser" -> "firefox"
        exact.add(name[: -len(generic) - 1])
    exact.add(_words(app.app_id.rsplit(".", 1)[-1] if "." in app.app_id else app.app_id))
    if app.command:
        program = app.command[0].rsplit("/", 1)[-1]
        if program not in _WRAPPERS and not program.startswith("python"):
            exact.add(_words(program))
    kinds = set()
    for generic_name in generics:
        words = _words(generic_name).split()
        if len(words) >= 2 and len(words[-1]) >= 4:  # "Web Browser" -> "browser"
            kinds.add(words[-1])
    exact.discard("")
    return _Names(
        app=app,
        exact=frozenset(exact),
        compact=frozenset(alias.replace(" ", "") for alias in exact),
        kinds=frozenset(kinds - exact),
    )


def _slip(said: difflib.SequenceMatcher[str], compact: str, alias: str) -> float:
    """How alike ``alias`` is to ``compact`` (the name said: ``said``'s second sequence).

    The ratio when ``alias`` is the name with a speech-to-text slip, else 0.
    """
    shorter, longer = sorted((len(compact), len(alias)))
    if shorter < 5 or 2 * shorter / (shorter + longer) < _FUZZY_MIN:
        return 0.0  # short names: one letter off is another word; or too different in length
    said.set_seq1(alias)
    if said.real_quick_ratio() < _FUZZY_MIN or said.quick_ratio() < _FUZZY_MIN:
        return 0.0
    ratio = said.ratio()
    return ratio if ratio >= _FUZZY_MIN else 0.0


def _score(spoken: str, slips: difflib.SequenceMatcher[str], names: _Names) -> float:
    if spoken in names.exact:
        return 1.0
    compact = spoken.replace(" ", "")
    if compact in names.compact:
        return 0.97  # "libre office writer", "fire fox"
    if spoken in names.kinds:
        return 0.86  # "the browser" when it is the one web browser
    return max((_slip(slips, compact, alias) * 0.96 for alias in names.compact), default=0.0)


class AppMatcher:
    """Finds the app a spoken name means.

    What each app answers to is worked out once per catalog: the catalog hands out the same
    sequence until an app is installed or removed.
    """

    def __init__(self) -> None:
        """An empty cache."""
        self._cache: dict[str, tuple[Sequence[AppEntry], tuple[_Names, ...]]] = {}

    def choose(self, said: str, apps: Sequence[AppEntry], language: str) -> AppChoice | None:
        """The installed app ``said`` names, when one matches strongly (else None).

        Ties go to the app whose name is shortest, then the first by name: a stable choice.
        """
        spoken, _ = spoken_app_name(said, language)
        if not spoken or spoken in _OTHER_SKILLS:
            return None
        lang = language.split("-")[0]
        cached = self._cache.get(lang)
        if cached is None or cached[0] is not apps:
            cached = (apps, tuple(_names(app, lang) for app in apps))
            self._cache[lang] = cached
        slips = difflib.SequenceMatcher(None, "", spoken.replace(" ", ""), autojunk=False)
        scored = [(_score(spoken, slips, names), names.app) for names in cached[1]]
        scored = [(score, app) for score, app in scored if score >= STRONG_MATCH]
        if not scored:
            return None
        score, app = min(scored, key=lambda pair: (-pair[0], len(pair[1].name), pair[1].name))
        return AppChoice(app, score)


def choose_app(said: str, apps: Sequence[AppEntry], language: str) -> AppChoice | None:
    """The installed app ``said`` names, when one matches strongly (see :class:`AppMatcher`)."""
    return AppMatcher().choose(said, apps, language)


async def open_app(
    said: str,
    language: str,
    catalog: AppCatalog,
    launcher: AppLauncher,
    phrases: Phrasebook,
    matcher: AppMatcher | None = None,
) -> str:
    """Open the app ``said`` names and say so; the plain reply when none matches or it fails."""
    choice = (matcher or AppMatcher()).choose(said, catalog.apps(), language)
    if choice is None:
        spoken, _ = spoken_app_name(said, language)
        return phrases.say("apps.not_found", language, name=spoken or said.strip())
    if not await launcher.launch(choice.app):
        return phrases.say("apps.failed", language, name=choice.app.name_in(language))
    return phrases.say("apps.opened", language, name=choice.app.name_in(language))


class AppSkill:
    """``AriaOpenApp``: opens the app the user named."""

    name = "apps"
    intents = frozenset({"AriaOpenApp"})

    def __init__(self, catalog: AppCatalog, launcher: AppLauncher, phrases: Phrasebook) -> None:
        """Find apps in ``catalog``, start them with ``launcher``."""
        self._catalog = catalog
        self._launcher = launcher
        self._phrases = phrases
        self._matcher = AppMatcher()

    def accepts(self, match: IntentMatch) -> bool:
        """A name that matches an installed app strongly, or one the user called an app."""
        said = match.text_slot("app")
        spoken, explicit = spoken_app_name(said, match.language)
        if not spoken or spoken in _OTHER_SKILLS:
            return False
        if explicit:
            return True
        return self._matcher.choose(said, self._catalog.apps(), match.language) is not None

    async def handle(self, match: IntentMatch, turn: SkillTurn) -> SkillReply:
        """Start the app; say which, or plainly that there is none by that name."""
        text = await open_app(
            match.text_slot("app"),
            match.language,
            self._catalog,
            self._launcher,
            self._phrases,
            self._matcher,
        )
        return SkillReply(text=text, skill=self.name)
