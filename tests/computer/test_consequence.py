"""Consequential clicks recognised by meaning: a labelled corpus through the real policy.

Every click — the task loop's, a chat tool's, ``aria screen click``, the API's — is decided by
``ComputerPolicy`` with ``core/computer/consequence.py``; so the corpus goes through ``evaluate`` on
an unfamiliar app's window. None of the consequential labels may be clicked without asking.
The harmless half may be over-asked at most ``HARMLESS_ASK_RATE`` (documented: 0 today — a
harmless label that asks is a bug in the corpus or the classifier, not noise).
"""

from __future__ import annotations

import pytest

from aria_desktop.core.computer.consequence import click_consequence, sensitive_context
from aria_desktop.core.computer.policy import ComputerPolicy, PolicyConfig
from aria_desktop.domain.computer import ActionContext, ComputerAction, Rect, WindowInfo

SCREEN = Rect(0, 0, 1280, 800)
HARMLESS_ASK_RATE = 0.0

CONSEQUENTIAL = [
    "Book now",
    "BOOK NOW",
    "book this room",
    "Booking",
    "Reserve",
    "Reserve a table",
    "Place order",
    "Place your order",
    "Place orders",
    "Complete purchase",
    "Purchase",
    "Buy with 1-Click",
    "Continue to payment",
    "Proceed to checkout",
    "Pay €49.99",
    "Pay now",
    "Confirm and pay",
    "Make payment",
    "Transfer now",
    "Send money",
    "Subscribe",
    "Start free trial",
    "Upgrade to Pro",
    "Renew membership",
    "Donate",
    "Publish",
    "Post",
    "Share",
    "Tweet",
    "Send",
    "Submit application",
    "Sign document",
    "Sign and send",
    "I agree",
    "Accept all",
    "Confirm",
    "Yes, delete",
    "Yes, I'm sure",
    "Delete account",
    "Erase all data",
    "Overwrite",
    "Replace existing file",
    "Empty trash",
    "Cancel subscription",
    "Cancel my order",
    "Unlock door",
    "Install update",
    "Uninstall",
    "Jetzt buchen",
    "Zahlungspflichtig bestellen",
    "Acheter maintenant",
    "Confirmar reserva",
]

HARMLESS = [
    "Next",
    "Back",
    "Previous",
    "Cancel",
    "Close",
    "Search",
    "Search flights",
    "Home",
    "Settings",
    "Help",
    "Menu",
    "Edit",
    "View details",
    "Show more",
    "Filter",
    "Sort order",
    "Open",
    "Expand",
    "Add to cart",
    "Add to basket",
    "Sign in",
    "Log in",
    "Sign up",
    "Not now",
    "No thanks",
    "Order history",
    "My orders",
    "Track order",
    "My bookings",
    "Address book",
    "Inbox",
    "Download",
    "Preview",
    "Print",
    "Refresh",
    "Skip",
    "Save Draft",
    "Sender:",
    "Compose",
    "Reply",
]


def context(title: str, label: str, nearby: str = "") -> ActionContext:
    window = WindowInfo(
        window_id=3,
        title=title,
        app="firefox",
        process="firefox",
        pid=777,
        geometry=SCREEN,
    )
    return ActionContext(window=window, screen=SCREEN, target_text=label, nearby_text=nearby)


def verdict(label: str, title: str = "TripSpark — Hotels in Lisbon", nearby: str = "") -> str:
    policy = ComputerPolicy(PolicyConfig(max_actions_per_s=10_000))
    action = ComputerAction(kind="click", x=400, y=300, target=label)
    return policy.evaluate(action, context(title, label, nearby), task_id="t", now_s=0.0).verdict


def test_the_corpus_is_big_enough_and_balanced() -> None:
    assert len(CONSEQUENTIAL) + len(HARMLESS) >= 60
    assert len(CONSEQUENTIAL) >= 30
    assert len(HARMLESS) >= 30


@pytest.mark.parametrize("label", CONSEQUENTIAL)
def test_no_consequential_label_is_clicked_without_asking(label: str) -> None:
    assert verdict(label) == "confirm"
    assert click_consequence(label).verdict == "consequential"


def test_the_harmless_half_is_not_over_asked() -> None:
    asked = [label for label in HARMLESS if verdict(label) != "allow"]
    assert len(asked) <= HARMLESS_ASK_RATE * len(HARMLESS), asked


@pytest.mark.parametrize(
    ("title", "nearby", "where"),
    [
        ("Checkout — TripSpark", "", "checkout"),
        ("TripSpark", "Card number  Expiry  CVV", "checkout"),
        ("Review your order - Shop", "Total: €49.99", "checkout"),
        ("Re: lunch on Friday - Mail", "", "mail compose"),
        ("New Message", "To: ada@example.com  Subject: hello", "mail compose"),
        ("Wallet", "IBAN  Beneficiary", "money transfer"),
    ],
)
def test_a_button_aria_cannot_place_asks_in_a_sensitive_context(
    title: str, nearby: str, where: str
) -> None:
    assert sensitive_context(title, nearby) == where
    for label in ("Continue", "OK", "Yes", "Done", "Finish", ""):
        assert verdict(label, title, nearby) == "confirm", label
    # Clearly harmless controls stay silent there too.
    for label in ("Back", "Cancel", "Close", "Save Draft", "Subject", "Cc", "Bold"):
        assert verdict(label, title, nearby) == "allow", label


def test_the_same_unsure_labels_are_silent_elsewhere() -> None:
    for label in ("Continue", "OK", "Yes", "Done", "Lisbon, 3 nights"):
        assert verdict(label) == "allow", label


def test_enter_on_a_checkout_page_asks_and_elsewhere_not() -> None:
    policy = ComputerPolicy(PolicyConfig(max_actions_per_s=10_000))
    enter = ComputerAction(kind="key", keys=("Return",))
    checkout = context("Checkout — TripSpark", "")
    decision = policy.evaluate(enter, checkout, task_id="t", now_s=0.0)
    assert (decision.verdict, decision.rule) == ("confirm", "consequential:context")
    assert "checkout" in decision.reason
    plain = context("notes.txt - gedit", "")
    assert policy.evaluate(enter, plain, task_id="t", now_s=0.0).verdict == "allow"


def test_the_reason_names_what_the_click_commits() -> None:
    policy = ComputerPolicy(PolicyConfig(max_actions_per_s=10_000))
    action = ComputerAction(kind="click", x=400, y=300, target="Book now")
    decision = policy.evaluate(action, context("TripSpark", "Book now"), task_id="t", now_s=0.0)
    assert decision.rule == "consequential:target"
    assert decision.reason.startswith("'book now' commits money")
