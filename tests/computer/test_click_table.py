"""The click policy asks when it matters: a table of labels with the decision and rule for each.

A target is consequential by what clicking it commits (pay, send, delete, publish, sign,
transfer, confirm — in English, German, French, Spanish and Italian), not by a word it shares
with such an action: a label that only views, lists, sorts or navigates ("View cart", "Order
history", "Payment methods") is harmless, also on a checkout page. The page around a target
makes only a label ARIA cannot place ask ("Continue"). Each row goes through the real
``ComputerPolicy.evaluate`` and names the rule ``--dry-run --json`` shows.
"""

from __future__ import annotations

import pytest

from aria_desktop.core.computer.policy import ComputerPolicy, PolicyConfig
from aria_desktop.domain.computer import ActionContext, ComputerAction, Rect, WindowInfo

SCREEN = Rect(0, 0, 1280, 800)
SHOP = "Lumen Outdoor — Hiking boots"
CHECKOUT = "Checkout — Lumen Outdoor"

ASK = ("confirm", "consequential:target")
SILENT = ("allow", "harmless:target")

CONSEQUENTIAL = [
    # English
    "Pay now",
    "Pay €129.00",
    "Place order",
    "Complete purchase",
    "Buy now",
    "Proceed to checkout",
    "Book this room",
    "Send",
    "Send message",
    "Publish",
    "Post comment",
    "Share",
    "Sign contract",
    "Transfer €500",
    "Make a transfer",
    "Confirm",
    "Confirm payment",
    "Delete",
    "Delete account",
    "Remove from account",
    "Empty trash",
    "Cancel subscription",
    "Accept all",
    "Subscribe",
    "View and pay",
    "View & pay",
    "Review and pay",
    # German
    "Jetzt kaufen",
    "Zahlungspflichtig bestellen",
    "Jetzt bezahlen",
    "Überweisen",
    "Senden",
    "Veröffentlichen",
    "Löschen",
    "Bestätigen",
    "Abo kündigen",
    # French
    "Acheter maintenant",
    "Payer",
    "Passer la commande",
    "Envoyer",
    "Publier",
    "Supprimer",
    "Confirmer le virement",
    # Spanish
    "Comprar ahora",
    "Pagar",
    "Realizar pedido",
    "Enviar",
    "Eliminar",
    "Confirmar",
    "Cancelar suscripción",
    # Italian
    "Acquista ora",
    "Paga ora",
    "Invia",
    "Elimina",
    "Conferma ordine",
    "Pubblica",
]

HARMLESS_LOOK_ALIKES = [
    # English: a commit word that only names a page, a list or a sort
    "View cart",
    "Order history",
    "Payment methods",
    "Sort by price",
    "Transfer history",
    "Sent items",
    "Deleted items",
    "Shared with me",
    "Booking details",
    "Subscription settings",
    "Billing address",
    "Edit payment method",
    "Manage subscription",
    "Track my order",
    "View order details",
    "Back to cart",
    "My purchases",
    "Filter by delivery date",
    "Show sent messages",
    "Order number",
    # German
    "Bestellungen anzeigen",
    "Zahlungsmethoden",
    "Meine Bestellungen",
    "Zurück zum Warenkorb",
    # French
    "Historique des commandes",
    "Mes commandes",
    "Moyens de paiement",
    "Voir le panier",
    # Spanish
    "Mis pedidos",
    "Historial de pedidos",
    "Métodos de pago",
    "Ver carrito",
    # Italian
    "I miei ordini",
    "Cronologia ordini",
    "Metodi di pagamento",
    "Visualizza carrello",
]

FRESH_CONSEQUENTIAL = [
    "Checkout now",
    "Buy it now",
    "Confirm booking",
    "Submit order",
    "Send invoice",
    "Pay with PayPal",
    "Delete forever",
    "Remove card",
    "Publish post",
    "Share publicly",
    "Sign and submit",
    "Authorize payment",
    "Approve transfer",
    "Jetzt abonnieren",
    "Kaufen",
    "Réserver maintenant",
    "Supprimer le compte",
    "Pagar ahora",
    "Reservar ahora",
    "Invia messaggio",
    "Elimina account",
]
FRESH_HARMLESS = [
    "Order status",
    "Payment history",
    "Show all orders",
    "Sort by newest",
    "Filter by payment type",
    "Delivery options",
    "Shipping address",
    "Purchase history",
    "Transaction details",
    "My subscriptions",
    "Go back",
    "Back to orders",
    "Deleted messages",
    "Manage payments",
    "Edit order",
    "Compare prices",
    "Browse deals",
    "Zahlungsarten",
    "Bestellübersicht",
    "Suivi de commande",
    "Ver pedidos",
    "Mostrar pagos",
    "Visualizza ordini",
    "Dettagli ordine",
]
"""Written after the classifier was changed for the lists above, and run once unseen before
being added here: every one was right the first time. "View & pay", from the same unseen run,
was not (normalising dropped the "&"); it is in the first list now."""
CONSEQUENTIAL += FRESH_CONSEQUENTIAL
HARMLESS_LOOK_ALIKES += FRESH_HARMLESS

UNPLACEABLE = ["Continue", "OK", "Done", "Weiter", "Continuer", "Continuar", "Avanti"]


def decide(label: str, title: str) -> tuple[str, str]:
    window = WindowInfo(
        window_id=3, title=title, app="firefox", process="firefox", pid=777, geometry=SCREEN
    )
    context = ActionContext(window=window, screen=SCREEN, target_text=label)
    policy = ComputerPolicy(PolicyConfig(max_actions_per_s=10_000))
    action = ComputerAction(kind="click", x=400, y=300, target=label)
    decision = policy.evaluate(action, context, task_id="t", now_s=0.0)
    return decision.verdict, decision.rule


def test_the_table_is_big_and_spans_languages() -> None:
    assert len(CONSEQUENTIAL) + len(HARMLESS_LOOK_ALIKES) + len(UNPLACEABLE) >= 60
    assert len(HARMLESS_LOOK_ALIKES) >= 30


@pytest.mark.parametrize("title", [SHOP, CHECKOUT])
@pytest.mark.parametrize("label", CONSEQUENTIAL)
def test_every_consequential_label_asks_and_says_why(label: str, title: str) -> None:
    assert decide(label, title) == ASK


@pytest.mark.parametrize("title", [SHOP, CHECKOUT])
@pytest.mark.parametrize("label", HARMLESS_LOOK_ALIKES)
def test_a_harmless_look_alike_is_clicked_without_asking(label: str, title: str) -> None:
    assert decide(label, title) == SILENT


@pytest.mark.parametrize("label", UNPLACEABLE)
def test_only_a_label_aria_cannot_place_asks_because_of_the_page(label: str) -> None:
    assert decide(label, CHECKOUT) == ("confirm", "consequential:context")
    assert decide(label, SHOP) == ("allow", "unsure:no-context")
