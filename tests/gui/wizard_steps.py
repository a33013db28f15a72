"""Walking the first-run wizard in tests: to a page by its id, as Next would."""

from __future__ import annotations

from aria_desktop.gui.views.wizard import WizardView

__all__ = ["go_to"]


def go_to(view: WizardView, page: int) -> None:
    """Press Next until ``page`` shows; fails when a page refuses to let the walk go on."""
    while view.currentId() != page:
        before = view.currentId()
        view.next()
        assert view.currentId() != before, f"page {before} refused: {view.currentPage().title()}"
