"""What clicking a button commits, judged by its meaning: the one classifier of click targets.

A word list of "Send/Delete/Buy" let "Book now" through on a travel site. Here a label is judged
by what it commits — money (pay, order, book, reserve, subscribe, transfer), words in the world
(send, post, publish, share, sign), loss (delete, erase, overwrite, wipe), the system (install,
unlock, restart) — in any wording, case and inflection ("Place order", "Complete purchase",
"Continue to payment", "Yes, delete", "Jetzt buchen"), and by where it is: on a checkout or
payment page, in a mail compose window or a money transfer, a label ARIA cannot place
("Continue", "OK", "Done", bare coordinates) asks too.

Pure and deterministic, stdlib only: the computer policy (``core/computer/policy.py``) uses it for
every click and key, whether the model's task loop, a chat tool, ``aria screen click`` or the
API proposed it (``aria_desktop/ARCHITECTURE.md``, safety).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Consequence",
    "click_consequence",
    "sensitive_context",
]

Verdict = Literal["consequential", "unsure", "harmless"]


@dataclass(frozen=True)
class Consequence:
    """The classifier's judgement of one target.

    Attributes:
        verdict: ``consequential`` (commits something: ask), ``unsure`` (cannot tell: ask in a
            sensitive context) or ``harmless`` (navigation, dismissal, search).
        commits: what it commits (``money``, ``sending``, ``deletion``…) or the context
            (``checkout``, ``mail compose``…); "" when harmless.
        matched: the words that decided.
    """

    verdict: Verdict
    commits: str = ""
    matched: str = ""


def _words(*alternatives: str) -> str:
    """One pattern matching any alternative as whole words (``re:`` and ``to:`` included)."""
    return r"(?<![\w'])(?:" + "|".join(alternatives) + r")(?![\w'])"


def _table(*entries: tuple[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Named patterns, compiled once, in the order they are tried."""
    return tuple((name, re.compile(pattern)) for name, pattern in entries)


_CONSEQUENTIAL = _table(
    (
        "money",
        _words(
            r"pay(s|ing|ment|ments)?",
            r"paid",
            r"purchas(e|es|ed|ing)",
            r"buy(s|ing)?",
            r"bought",
            r"check ?out",
            r"checking out",
            r"(place|placing|complete|completing|confirm|submit|send|finish)"
            r"( my| your| the)? orders?",
            r"order (now|it|this|today)",
            r"order",
            r"book(s|ed|ing)?( now| it| this| room| flight| ticket| trip| stay| table)?",
            r"reserv(e|es|ed|ing|ation)",
            r"subscrib(e|es|ed|ing)",
            r"(start|begin) (my |your |the |a )?(free )?trial",
            r"upgrade( now| plan| to \w+)?",
            r"renew(al)?",
            r"donat(e|es|ion)",
            r"rent( now)?",
            r"(place|make) (a |my )?bid",
            r"bid",
            r"tip",
            r"charge",
            r"transfer(s|red|ring)?",
            r"wire",
            r"withdraw(al)?",
            r"send money",
            r"top ?up",
            r"get (tickets?|it now|started now)",
            r"redeem",
            r"claim",
            r"(add|save) (a )?(card|payment method)",
            r"kaufen|bestellen|zahlen|bezahlen|buchen|abonnieren|kostenpflichtig",
            r"[üu]berweisen|[üu]berweisung (ausf[üu]hren|senden)|zur kasse( gehen)?",
            r"acheter|commander|payer|r[ée]server|s'abonner",
            r"(passer|valider|confirmer) (la |ma |votre )?commande",
            r"effectuer (le |un )?(virement|paiement)|virement",
            r"comprar|pagar|reservar|suscribirse|transferir",
            r"(realizar|tramitar|confirmar) (el |mi |su )?pedido|finalizar (la )?compra",
            r"acquista|paga|prenota|abbonati|bonifico",
            r"(procedi|effettua|conferma) (all'|al |l'|il |la )?(ordine|acquisto|pagamento)",
        ),
    ),
    (
        "sending",
        _words(
            r"send(s|ing)?",
            r"sent",
            r"post(s|ed|ing)?( now| it)?",
            r"publish(es|ed|ing)?",
            r"share( now| it)?",
            r"tweet",
            r"re ?(post|tweet)",
            r"forward",
            r"submit(s|ted|ting)?",
            r"upload",
            r"broadcast",
            r"go live",
            r"announce",
            r"invite",
            r"apply (now|for)",
            r"comment",
            r"senden|absenden|ver[öo]ffentlichen|teilen|posten",
            r"envoyer|publier|partager|enviar|publicar|compartir|invia|pubblica|condividi",
        ),
    ),
    (
        "agreement",
        _words(
            r"sign(s|ed|ing)?( and \w+| here| document| contract| now)?",
            r"e ?sign",
            r"agree(s|d)?",
            r"i agree",
            r"accept(s|ed|ing)?( all)?",
            r"consent",
            r"confirm(s|ed|ing|ation)?",
            r"approv(e|es|ed|al)",
            r"authori[sz](e|es|ed|ation)",
            r"allow",
            r"grant",
            r"verify and (pay|continue|send)",
            r"yes,? (i'?m sure|do it|proceed|continue)",
            r"best[äa]tigen|zustimmen|confirmer|confirmar|conferma",
        ),
    ),
    (
        "deletion",
        _words(
            r"delet(e|es|ed|ing)",
            r"remov(e|es|ed|ing)",
            r"eras(e|es|ed|ing)",
            r"destroy",
            r"trash",
            r"discard",
            r"wipe",
            r"purge",
            r"clear( all| everything| history| data)",
            r"empty( trash| bin)?",
            r"reset",
            r"format",
            r"overwrit(e|es|ing)",
            r"replace( all)?",
            r"permanently",
            r"deactivate",
            r"close (my |the )?account",
            r"cancel (my |the |your )?(subscription|order|booking|reservation|membership"
            r"|account|plan|payment|transfer|flight|trip|appointment)",
            r"revoke",
            r"terminate",
            r"unlink",
            r"unsubscrib(e|ed)",
            r"l[öo]schen|entfernen|supprimer|eliminar|borrar|elimina",
            r"(abo |abonnement |vertrag )?k[üu]ndigen|r[ée]silier|disdici",
            r"annuler (l'|la |le |mon |ma |votre )?(abonnement|commande|r[ée]servation)",
            r"cancelar (la |el |mi |su )?(suscripci[óo]n|reserva|pedido|cuenta)",
            r"annulla (l'|il |la )?(abbonamento|ordine|prenotazione)",
        ),
    ),
    (
        "system",
        _words(
            r"install",
            r"uninstall",
            r"update( now)?",
            r"unlock",
            r"shut ?down",
            r"restart",
            r"reboot",
            r"log ?out",
            r"sign ?out",
            r"run",
            r"execute",
            r"deploy",
            r"merge",
            r"restore",
            r"factory",
        ),
    ),
)
"""What a label commits, by category; inflections and common phrasings included."""

_HARMLESS_PHRASES = re.compile(
    _words(
        r"sign ?in",
        r"sign ?up",
        r"log ?in",
        r"add to (cart|basket|bag|wishlist|list)",
        r"(view|track|show|see) (my |your )?(order|booking|reservation)s?( details| status)?",
        r"order (history|details|status|summary|by)",
        r"sort order",
        r"^(my |your )?orders$",
        r"address book",
        r"phone book",
        r"notebook",
        r"facebook",
        r"^(my |your )?books$",
        r"search( \w+)?",
        r"sender:?",
        r"post ?code",
        r"postal",
        r"format (painter|text)",
        r"preview",
        r"run time",
    )
)
"""Phrases that only look like commitments (removed before the consequential check)."""

_VIEW_VERBS = (
    r"view|show|see|browse|open|track|manage|edit|change|sort|filter|compare|find|list"
    r"|back to|return to|zur[üu]ck( zu[mr]?)?|voir|afficher|g[ée]rer|modifier|trier|filtrer"
    r"|retour( au| à la| à)?|ver|mostrar|gestionar|editar|ordenar|filtrar|volver( al| a)?"
    r"|visualizza|mostra|vedi|gestisci|modifica|ordina|filtra|torna( al| alla| a)?"
)
_VIEW_VERBS_LAST = r"anzeigen|ansehen|verwalten|bearbeiten|[äa]ndern|sortieren|filtern"
_RECORD_OF = (
    r"orders?|payments?|transfers?|bookings?|reservations?|subscriptions?|purchases?"
    r"|transactions?|donations?|billing|shipping|delivery|sent|deleted|shared|posted"
    r"|published|signed"
)
_RECORDS = (
    r"history|histories|methods?|options?|settings|details|status|summary|info|information"
    r"|address(es)?|preferences|lists?|records?|overview|activity|items|messages|mail|files"
    r"|documents|posts|folder|log|receipts?|number|id|date|limits?"
)
_CLAUSE_JOIN = re.compile(r"(?<!\w)(and|then|und|et|y|e)(?!\w)|,")
_LOOK_ALIKES = _table(
    ("views", rf"(?:{_VIEW_VERBS}) .+"),
    ("views", rf".+ (?:{_VIEW_VERBS_LAST})"),
    ("names records", rf"((my|your|the) )?({_RECORD_OF})( \w+)? ({_RECORDS})"),
    (
        "lists",
        r"(my|your) (orders|purchases|payments|transfers|subscriptions|bookings"
        r"|reservations|donations|transactions)|shared (with|by) me",
    ),
    (
        "names records",
        r"(meine )?(bestellungen|zahlungen|buchungen|[üu]berweisungen|abos|abonnements)"
        r"|(bestell|zahlungs|buchungs|[üu]berweisungs|liefer|rechnungs)"
        r"(verlauf|historie|methoden|arten|[üu]bersicht|details|status|adresse)",
    ),
    (
        "names records",
        r"(mes|vos) (commandes|r[ée]servations|paiements|virements|abonnements|achats)"
        r"|(historique|d[ée]tails?|suivi|moyens?|modes?|options|adresse) (de |des |du |d')"
        r"(la |le |l')?(commandes?|paiements?|virements?|r[ée]servations?|livraison"
        r"|facturation|abonnements?|achats?)",
    ),
    (
        "names records",
        r"(mis|tus|sus) (pedidos|reservas|pagos|compras|transferencias|suscripciones)"
        r"|(historial|detalles?|seguimiento|m[ée]todos?|formas?|opciones|direcci[óo]n) de "
        r"(los |las |la |el )?(pedidos?|pagos?|compras?|transferencias?|reservas?|env[íi]o"
        r"|facturaci[óo]n|suscripci[óo]n)",
    ),
    (
        "names records",
        r"(i miei|le mie) (ordini|acquisti|pagamenti|bonifici|abbonamenti|prenotazioni)"
        r"|(cronologia|dettagli|storico|metodi|modalit[àa]|opzioni|indirizzo) "
        r"(di |dei |degli |delle |del |della |dell')?(ordini|ordine|pagamenti|pagamento"
        r"|bonifici|prenotazioni|spedizione|fatturazione|abbonamento|acquisti)",
    ),
)
"""Labels that only view, list, sort or navigate although they hold a commit word ("View
cart", "Order history", "Payment methods", "Moyens de paiement"): matched against the whole
label, and only when it is one clause ("View and pay" is not a look-alike)."""


def _look_alike(label: str, text: str) -> str:
    """The kind of harmless look-alike ``label`` (normalised: ``text``) is, or "".

    The joiners normalising drops ("View & pay", "Review + send") are looked for in the label.
    """
    if _CLAUSE_JOIN.search(text) or re.search(r"[&+]", label):
        return ""
    for kind, pattern in _LOOK_ALIKES:
        if pattern.fullmatch(text):
            return kind
    return ""


_HARMLESS_WORDS = frozenset(
    [
        "next",
        "back",
        "previous",
        "prev",
        "close",
        "cancel",
        "search",
        "find",
        "filter",
        "sort",
        "menu",
        "home",
        "help",
        "settings",
        "preferences",
        "view",
        "show",
        "hide",
        "open",
        "more",
        "less",
        "details",
        "expand",
        "collapse",
        "edit",
        "select",
        "choose",
        "zoom",
        "refresh",
        "reload",
        "skip",
        "dismiss",
        "not",
        "now",
        "later",
        "no",
        "thanks",
        "maybe",
        "back",
        "to",
        "go",
        "to",
        "inbox",
        "tab",
        "profile",
        "account",
        "options",
        "info",
        "about",
        "contact",
        "faq",
        "scroll",
        "up",
        "down",
        "left",
        "right",
        "top",
        "bottom",
        "page",
        "first",
        "last",
        "all",
        "new",
        "draft",
        "save",
        "copy",
        "paste",
        "undo",
        "redo",
        "print",
        "download",
        "minimize",
        "maximise",
        "maximize",
        "notifications",
        "messages",
        "compose",
        "reply",
        "subject",
        "cc",
        "bcc",
        "from",
        "attach",
        "bold",
        "italic",
        "underline",
        "font",
        "insert",
        "emoji",
        "cart",
        "basket",
        "bag",
        "wishlist",
        # German, French, Spanish, Italian navigation ("Weiter", "Continuer": unsure)
        "zurück",
        "abbrechen",
        "schließen",
        "suchen",
        "startseite",
        "hilfe",
        "einstellungen",
        "mehr",
        "warenkorb",
        "retour",
        "annuler",
        "fermer",
        "rechercher",
        "accueil",
        "aide",
        "paramètres",
        "plus",
        "panier",
        "atrás",
        "volver",
        "cancelar",
        "cerrar",
        "buscar",
        "inicio",
        "ayuda",
        "ajustes",
        "más",
        "carrito",
        "indietro",
        "annulla",
        "chiudi",
        "cerca",
        "aiuto",
        "impostazioni",
        "altro",
        "carrello",
    ]
)
"""Navigation, dismissal and browsing words: a label made only of these (and filler) is
harmless. ``save``/``download``/``compose``/``reply`` write or open something reversible; the
field and formatting labels of a compose window (subject, cc, bold…) only move the cursor."""

_FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "of",
        "for",
        "and",
        "or",
        "my",
        "your",
        "this",
        "that",
        "it",
        "on",
        "in",
        "at",
        "by",
        "with",
    ]
)

_CONTEXTS = _table(
    (
        "checkout",
        _words(
            r"check ?out",
            r"payment",
            r"billing",
            r"order (summary|review)",
            r"review (your |my )?order",
            r"place (your )?order",
            r"shopping (cart|basket|bag)",
            r"your (cart|basket|bag)",
            r"card number",
            r"cvv|cvc",
            r"expiry|expiration date",
            r"total( due| to pay)?:",
            r"amount due",
            r"booking (details|summary)",
            r"complete (your )?(booking|purchase|reservation)",
            r"kasse|zahlung|paiement|pago",
        ),
    ),
    (
        "money transfer",
        _words(r"iban", r"bic", r"swift", r"beneficiary", r"recipient account", r"transfer"),
    ),
    (
        "mail compose",
        _words(
            r"compose",
            r"new (message|email|mail)",
            r"write (a )?(message|email)",
            r"draft",
            r"re:",
            r"fwd?:",
            r"subject:?",
            r"to:",
            r"cc:",
            r"bcc:",
        ),
    ),
    (
        "account deletion",
        _words(r"delete (your |my )?account", r"close (your |my )?account", r"danger zone"),
    ),
)
"""Windows and pages where a button ARIA cannot place asks (checkout, compose, transfers)."""


def normalise(label: str) -> str:
    """Lower case, compatibility-normalised, quotes unified, punctuation to single spaces."""
    text = unicodedata.normalize("NFKC", label).lower().replace("’", "'")
    text = re.sub(r"[^\w'€$£:,]+", " ", text)
    return " ".join(text.split())


def click_consequence(label: str) -> Consequence:
    """What clicking a control labelled ``label`` commits (the context: ``sensitive_context``)."""
    text = normalise(label)
    if not text:
        return Consequence("unsure", matched="")
    kind = _look_alike(label, text)
    if kind:
        return Consequence("harmless", matched=f"{kind}: {text[:80]}")
    remainder = _HARMLESS_PHRASES.sub(" ", text)
    for commits, pattern in _CONSEQUENTIAL:
        match = pattern.search(remainder)
        if match:
            return Consequence("consequential", commits, match.group(0))
    # Harmless when nothing but navigation words and filler is left once the harmless phrases
    # ("sign in", "order history", "search flights") are taken out.
    left = [w.strip(",:'") for w in remainder.split()]
    if all(w in _HARMLESS_WORDS or w in _FILLER or not w for w in left):
        return Consequence("harmless")
    return Consequence("unsure", matched=text[:80])


def sensitive_context(*texts: str) -> str:
    """The sensitive context the texts (window title, text around the target) show, or ""."""
    joined = normalise(" \n ".join(t for t in texts if t))
    for name, pattern in _CONTEXTS:
        if pattern.search(joined):
            return name
    return ""
