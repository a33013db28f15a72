"""Light and dark: the app's palette and its few coloured parts, following the system or not.

``gui.theme`` is "system" (the default), "light" or "dark". "system" keeps the palette the
desktop gives Qt and follows the desktop's colour scheme as it changes; where the desktop says
"dark" but its palette is light (a platform theme that reports the scheme but paints nothing),
ARIA's own dark palette stands in. "light" and "dark" force ARIA's palettes on the Fusion style
(the one style that paints every part from the palette), whatever the desktop uses.

The coloured parts of the windows (the chat banner, error and help lines, the quick-ask frame)
are not styled widget by widget: a view marks a widget with a role (:func:`mark`) and one
app-wide style sheet colours each role for the palette in use, so a switch recolours every open
window at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory, QWidget

__all__ = [
    "THEMES",
    "ThemeManager",
    "dark_palette",
    "is_dark",
    "mark",
    "style_sheet",
    "wants_dark",
]

W = TypeVar("W", bound=QWidget)

THEMES = ("system", "light", "dark")
ROLE_PROPERTY = "ariaRole"
"""The dynamic property a view sets to give a widget one of the roles below."""

_DARK_COLOURS = {
    QPalette.ColorRole.Window: "#2b2d31",
    QPalette.ColorRole.WindowText: "#e8eaed",
    QPalette.ColorRole.Base: "#1f2124",
    QPalette.ColorRole.AlternateBase: "#2a2c30",
    QPalette.ColorRole.ToolTipBase: "#31343a",
    QPalette.ColorRole.ToolTipText: "#e8eaed",
    QPalette.ColorRole.PlaceholderText: "#8b929c",
    QPalette.ColorRole.Text: "#e8eaed",
    QPalette.ColorRole.Button: "#34373c",
    QPalette.ColorRole.ButtonText: "#e8eaed",
    QPalette.ColorRole.BrightText: "#ff8a8a",
    QPalette.ColorRole.Light: "#4a4d53",
    QPalette.ColorRole.Midlight: "#3c3f45",
    QPalette.ColorRole.Mid: "#26282c",
    QPalette.ColorRole.Dark: "#18191c",
    QPalette.ColorRole.Shadow: "#000000",
    QPalette.ColorRole.Highlight: "#3d6fd8",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#8ab4f8",
    QPalette.ColorRole.LinkVisited: "#c6a8f7",
}
_DARK_DISABLED = {
    QPalette.ColorRole.WindowText: "#7b818a",
    QPalette.ColorRole.Text: "#7b818a",
    QPalette.ColorRole.ButtonText: "#7b818a",
    QPalette.ColorRole.Highlight: "#3a3d42",
    QPalette.ColorRole.HighlightedText: "#a0a7b1",
}

# role -> (light, dark) style sheet body
_ROLES: dict[str, tuple[str, str]] = {
    "muted": ("color: #4b5563;", "color: #a0a7b1;"),
    "error": ("color: #b42318;", "color: #f4a6a6;"),
    "success": ("color: #1d6b3c;", "color: #8fd19e;"),
    "warning": ("color: #a35505;", "color: #f0b35a;"),
    "banner": (
        "background: #fff6db; border: 1px solid #e6c07b; border-radius: 6px; padding: 8px;"
        " color: #5b4300;",
        "background: #3a321d; border: 1px solid #7a6531; border-radius: 6px; padding: 8px;"
        " color: #f3deb0;",
    ),
    "panel": (
        "background: #ffffff; border: 1px solid #b9c2d0; border-radius: 10px;",
        "background: #1f2124; border: 1px solid #4a4f57; border-radius: 10px;",
    ),
}


def mark(widget: W, role: str) -> W:
    """Give ``widget`` a themed role ("muted", "error", "success", "warning", "banner", "panel").

    Returns the widget, so a view can mark it where it builds it. Setting a new role later (an
    error line turning into a success line) re-polishes the widget so the colour follows.
    """
    assert role in _ROLES, role
    widget.setProperty(ROLE_PROPERTY, role)
    if widget.testAttribute(Qt.WidgetAttribute.WA_WState_Polished):
        style = widget.style()
        style.unpolish(widget)
        style.polish(widget)
    return widget


def style_sheet(dark: bool) -> str:
    """The app-wide style sheet: each role's colours for a light or a dark palette."""
    return "\n".join(
        f'[{ROLE_PROPERTY}="{role}"] {{ {pair[1] if dark else pair[0]} }}'
        for role, pair in _ROLES.items()
    )


def is_dark(palette: QPalette) -> bool:
    """Whether a palette paints light text on dark windows."""
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def dark_palette() -> QPalette:
    """ARIA's dark palette (for "dark", and for a dark desktop whose palette is light)."""
    palette = QPalette()
    for role, colour in _DARK_COLOURS.items():
        palette.setColor(QPalette.ColorGroup.All, role, QColor(colour))
    for role, colour in _DARK_DISABLED.items():
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(colour))
    return palette


def wants_dark(choice: str, scheme: Qt.ColorScheme, system_palette_dark: bool) -> bool:
    """Whether ARIA is dark for a ``gui.theme`` choice and what the desktop says.

    "system" is dark when the desktop's colour scheme is dark, or, when the desktop does not
    say (``Unknown``), when the palette it gives is dark.
    """
    if choice in ("light", "dark"):
        return choice == "dark"
    if scheme == Qt.ColorScheme.Unknown:
        return system_palette_dark
    return scheme == Qt.ColorScheme.Dark


class ThemeManager(QObject):
    """Applies ``gui.theme`` to the application and keeps following the desktop."""

    changed = Signal(bool)
    """Emitted with ``dark`` after the palette changed (light to dark or back)."""

    def __init__(
        self,
        app: QApplication,
        parent: QObject | None = None,
        scheme: Callable[[], Qt.ColorScheme] | None = None,
    ) -> None:
        super().__init__(parent)
        self._app = app
        self._scheme = scheme or app.styleHints().colorScheme
        self._system_style = app.style().name() or "fusion"
        self._style = self._system_style
        self.choice = "system"
        self.dark = is_dark(app.palette())
        self._painted = False
        """Whether ARIA set the palette (else it is the desktop's, left as it is)."""
        self._applied = False
        """Whether a choice was applied yet (the first one always is)."""
        app.styleHints().colorSchemeChanged.connect(self._follow_desktop)

    def _follow_desktop(self, _scheme: Qt.ColorScheme) -> None:
        """The desktop switched between light and dark: "system" follows it."""
        self.apply(self.choice, again=True)

    def apply(self, choice: str, *, again: bool = False) -> None:
        """Use ``choice`` ("system", "light", "dark"; anything else is "system") from now on.

        The choice in use is not applied again (unless ``again``: the desktop's scheme changed):
        every new palette or style sheet re-polishes every widget the application has, which
        is what makes a theme switch cost, and each window that opens asks for the theme.
        """
        choice = choice if choice in THEMES else "system"
        if self._applied and choice == self.choice and not again:
            return
        self._applied = True
        self.choice = choice
        app = self._app
        was_dark = self.dark
        forced = self.choice != "system"
        if forced or self._painted:
            # Fusion paints every part from the palette; "system" gives the desktop's style
            # back. An empty palette gives the application the desktop's own colours back.
            # (app.style() names no style once a style sheet is set: the one set is tracked)
            style = "fusion" if forced else self._system_style
            if style.lower() != self._style.lower():
                app.setStyle(QStyleFactory.create(style))
                self._style = style
            app.setPalette(QPalette())
            self._painted = False
        system_dark = is_dark(app.palette())
        self.dark = wants_dark(self.choice, self._scheme(), system_dark)
        if self.dark != system_dark:
            app.setPalette(dark_palette() if self.dark else app.style().standardPalette())
            self._painted = True
        sheet = style_sheet(self.dark)
        if app.styleSheet() != sheet:
            app.setStyleSheet(sheet)
        if self.dark != was_dark:
            self.changed.emit(self.dark)
