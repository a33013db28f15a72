"""The synthetic retrieval set of ``aria bench memory --quality``.

Each item is a fact the user could have told ARIA plus two questions about it:

* a **keyword** question that repeats the fact's distinctive word (a name, a value, a path,
  an identifier such as a ticket or serial number), the case where BM25 shines and sentence
  embeddings are weak (identifiers embed poorly);
* a **paraphrase** question that shares no content word with the fact ("What is my partner
  called?" for "My wife's name is Dana"), the case only meaning-based search can answer.

Distractor facts (never asked about) use the same sentence shapes and vocabulary, so a leg
cannot win by matching the template alone. Each identifier also has look-alike records (other
things with codes of the same shape, a few characters apart), as in a real store full of
tickets, orders and serial numbers: there the exact token decides, which is what the keyword
leg adds to meaning-based search. Everything is deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["QualityItem", "quality_set"]


@dataclass(frozen=True, kw_only=True)
class QualityItem:
    """One fact and the questions that must find it (``asked`` False: a distractor)."""

    fact: str
    keyword_question: str = ""
    paraphrase_question: str = ""
    asked: bool = True


def _rows(text: str) -> list[tuple[str, ...]]:
    """The rows of a table written one row a line, its cells separated by ``|``."""
    return [tuple(cell.strip() for cell in line.split("|")) for line in _lines(text)]


def _words(text: str) -> list[str]:
    """The words of ``text`` (a list of names written as prose lines)."""
    return text.split()


def _lines(text: str) -> list[str]:
    """The non-empty lines of ``text``, stripped."""
    return [line.strip() for line in text.splitlines() if line.strip()]


#: relation in the fact | paraphrase of it in the question
_RELATIONS = _rows(
    """
wife | partner
husband | spouse
brother | male sibling
sister | female sibling
mother | mom
father | dad
son | boy
daughter | girl
boss | manager at the office
dentist | tooth doctor
family doctor | GP physician
neighbour | person living next door
cat | kitty
dog | puppy
best friend | closest pal
grandmother | grandma
grandfather | grandpa
landlord | person I rent my flat from
accountant | tax advisor
lawyer | attorney
mechanic | car repair guy
piano teacher | music tutor
personal trainer | gym coach
babysitter | nanny
therapist | counsellor
barber | hairdresser
godmother | baptism sponsor
horse | pony
parrot | talking bird
team lead | supervisor at work
"""
)

#: the relations' names, in the same order
_NAMES = _words(
    """
Dana Marcus Lena Priya Gustavo Ingrid Tobias Yuki Farah Oskar Beatriz Kwame Svetlana Ruairi
Mei Anselm Delphine Thabo Ximena Henrik Aiko Bartholomew Cosima Dmitri Eun-ji Fintan Greta
Hamid Isolde Jarrah
"""
)

#: thing in the fact | its paraphrase | where it is
_DOCUMENTS = _rows(
    """
Q3 report | quarterly financial summary | ~/work/q3
tax returns | IRS filings | ~/finance/taxes
wedding photos | pictures from our marriage ceremony | ~/pictures/wedding
passport scan | copy of my travel document | ~/documents/id
car insurance policy | vehicle coverage contract | the blue folder in the hall
house deeds | property ownership papers | the safe in the bedroom
spare keys | extra set for the front door | the drawer under the microwave
thesis draft | doctoral dissertation manuscript | ~/uni/phd/draft.tex
recipe collection | cooking instructions I saved | ~/notes/kitchen
warranty for the fridge | guarantee paperwork of the refrigerator | the kitchen binder
vaccination records | immunisation certificates | ~/health/shots
resume | CV for job applications | ~/career/cv.pdf
band rehearsal recordings | audio from our music practice | ~/audio/practice
garden plans | backyard layout sketches | the shed notebook
payslips | monthly salary statements | ~/finance/income
lease agreement | apartment rental contract | ~/home/rent
holiday itinerary | travel schedule for the vacation | ~/trips/itinerary.md
SSH keys backup | copy of my server login credentials files | the encrypted USB stick
bike lock code | combination for the bicycle chain | my password manager
birth certificate | official document of when I was born | the grey archive box
"""
)

#: thing | paraphrase | value
_FAVOURITES = _rows(
    """
food | dish to eat | lasagne
movie | film | Blade Runner
book | novel to read | Middlemarch
sport | athletic pastime | badminton
colour | hue | teal
band | music group | Radiohead
city | place to visit | Lisbon
drink | beverage | matcha
dessert | sweet treat after dinner | tiramisu
board game | tabletop pastime | Carcassonne
flower | blossom | peonies
programming language | language for writing code | Rust
podcast | audio show | Hardcore History
season | time of the year | autumn
cheese | dairy product | gruyere
composer | classical musician | Sibelius
editor theme | colour scheme for coding | Solarized dark
coffee | morning brew | flat white
video game | thing to play on the console | Zelda
holiday destination | vacation spot | Crete
"""
)

#: event | paraphrase | when
_EVENTS = _rows(
    """
yoga class | stretching session | Tuesday evening
team standup | daily sync meeting with colleagues | 9:30 every weekday
dentist appointment | teeth check-up | March 14
choir practice | singing rehearsal | Thursday
Spanish lesson | language tutoring | Monday at 6pm
book club | reading group meetup | the first Sunday of the month
rent payment | monthly housing transfer | the 3rd
flight to Tokyo | plane trip to Japan | October 2
swimming training | pool workout | Saturday morning
therapy session | appointment with my counsellor | Wednesday afternoon
car service | vehicle maintenance visit | next Friday
parents' evening | meeting with the teachers at school | May 20
chess tournament | competitive board game event | June 8
performance review | annual evaluation with my manager | December 1
farmers market trip | shopping for local produce | Sunday morning
piano recital | keyboard concert | April 27
marathon | 42 kilometre race | September 15
sprint planning | iteration kickoff meeting | every second Monday
blood donation | giving blood at the clinic | July 9
anniversary dinner | celebration meal with my wife | August 18
"""
)

#: skill | paraphrase
_SKILLS = _rows(
    """
I can play the cello | Which string instrument do I know?
I speak fluent Portuguese | What language from Brazil do I know well?
I know how to solder circuit boards | Can I do electronics assembly work?
I am certified in first aid | Do I have emergency medical training?
I can sail a dinghy | Am I able to handle a small boat on the water?
I am good at knitting | Can I make sweaters with yarn and needles?
I know Kubernetes well | Am I experienced with container orchestration?
I can bake sourdough bread | Am I able to make naturally leavened loaves?
I am trained in CPR | Could I do chest compressions in an emergency?
I can drive a forklift | Am I licensed to operate warehouse lifting vehicles?
"""
)


# (fact with an identifier, the identifier, paraphrase question)
_IDENTIFIERS = [
    (
        "The ticket for the broken printer is INC-48213.",
        "INC-48213",
        "Which reference did I get for the office printing machine fault?",
    ),
    (
        "My car's licence plate is KX-4471-B.",
        "KX-4471-B",
        "What registration does my vehicle have?",
    ),
    (
        "The router's serial number is SN-99X7-QQ21.",
        "SN-99X7-QQ21",
        "What's the device ID of my internet box?",
    ),
    (
        "My library card number is 2200-5531-87.",
        "2200-5531-87",
        "What's the ID for borrowing books?",
    ),
    ("The flight to Reykjavik is FI-615.", "FI-615", "Which plane takes me to Iceland?"),
    (
        "The order for the new desk is A77-3021.",
        "A77-3021",
        "What's the purchase reference of the furniture for my study?",
    ),
    (
        "The gate code at my parents' house is 48159.",
        "48159",
        "How do I get through the entrance at mom and dad's place?",
    ),
    (
        "My frequent flyer number is FF88310244.",
        "FF88310244",
        "What's my airline loyalty membership ID?",
    ),
    (
        "The Jira epic for the data cleanup is DCL-1207.",
        "DCL-1207",
        "Which tracking item covers tidying the database records?",
    ),
    ("My parking spot at work is P3-117.", "P3-117", "Where do I leave my car at the office?"),
    ("My locker combination is 31-07-22.", "31-07-22", "What opens my gym cabinet?"),
    (
        "The invoice from the plumber is INV-20931.",
        "INV-20931",
        "What's the bill reference for the pipe repair?",
    ),
    (
        "The conference room booking code is CR-5B-0912.",
        "CR-5B-0912",
        "How do I reserve the meeting space?",
    ),
    (
        "My health insurance member ID is HX7730921.",
        "HX7730921",
        "What's my medical coverage membership number?",
    ),
    (
        "The VPN server for the lab is vpn-lab-07.example.net.",
        "vpn-lab-07.example.net",
        "Which host do I connect to for remote access to the research network?",
    ),
    (
        "The wifi network at the cabin is LakeHouse_5G.",
        "LakeHouse_5G",
        "What's the wireless name at our holiday cottage?",
    ),
    (
        "The tracking number of the parcel is 1Z999AA10123456784.",
        "1Z999AA10123456784",
        "How can I follow the package delivery?",
    ),
    ("My employee number is E-004512.", "E-004512", "What's my staff ID at the company?"),
    (
        "The bike's frame number is WTU-339-8812.",
        "WTU-339-8812",
        "What's the identifier stamped on my bicycle?",
    ),
    ("The combination of the safe is 17-42-08.", "17-42-08", "What opens the strongbox?"),
]


#: the distractors' names (none of them is asked about)
_EXTRA_NAMES = _words(
    """
Ada Bram Cleo Dario Elif Femi Gaia Hugo Ines Joss Kaito Lior Mara Nils Odile Pavel Quinn
Rosa Soren Tala
"""
)

#: places the distractors mention
_DISTRACTOR_PLACES = _words(
    """
Oslo Kyoto Porto Quebec Tbilisi Hanoi Cusco Galway Tallinn Valparaiso Zanzibar Bruges Bergen
Matera Hobart
"""
)

#: projects the distractors mention
_DISTRACTOR_PROJECTS = _lines(
    """
billing migration
search revamp
mobile app
data warehouse
onboarding flow
security audit
API gateway
design system
ML pipeline
office move
"""
)

#: things that get reference numbers too (for the identifiers' look-alike records)
_REFERENCED_THINGS = _lines(
    """
garden shed lock
spare room heater
old laptop repair
kitchen blender warranty
hallway lamp order
bathroom fan replacement
winter tyres
office chair return
balcony door
washing machine service
camera lens insurance
dentist appointment
roof inspection
piano tuning
boiler check
bookshelf delivery
passport renewal
gym membership
phone screen repair
storage unit
"""
)

_LOOK_ALIKES_PER_IDENTIFIER = 6


def _look_alike(code: str, rng: random.Random) -> str:
    """``code`` with two or three of its digits or letters changed (same shape)."""
    chars = list(code)
    positions = [i for i, c in enumerate(chars) if c.isalnum()]
    for i in rng.sample(positions, k=min(len(positions), rng.choice((2, 3)))):
        c = chars[i]
        pool = (
            "0123456789"
            if c.isdigit()
            else ("ABCDEFGHJKLMNPQRSTUVWXYZ" if c.isupper() else "abcdefghjkmnpqrstuvwxyz")
        )
        chars[i] = rng.choice([x for x in pool if x != c])
    return "".join(chars)


def quality_set(seed: int = 7) -> list[QualityItem]:
    """The facts (asked ones first, then distractors) and their questions; >= 200 facts."""
    rng = random.Random(seed)
    return [*_asked_items(), *_distractors(rng)]


def _asked_items() -> list[QualityItem]:
    """The facts asked about, each with its keyword and its paraphrase question."""
    relations = [
        (relation, para, name) for (relation, para), name in zip(_RELATIONS, _NAMES, strict=True)
    ]
    return [
        *_templated(relations, "My {0}'s name is {2}.", "Who is {2}?", "What is my {1} called?"),
        *(_document_item(thing, para, where) for thing, para, where in _DOCUMENTS),
        *_templated(
            _FAVOURITES, "My favourite {0} is {2}.", "Do I like {2}?", "Which {1} do I love most?"
        ),
        *_templated(_EVENTS, "My {0} is on {2}.", "When is the {0}?", "When do I have my {1}?"),
        *(
            QualityItem(
                fact=f"{fact}.",
                keyword_question=f"What do I know about {fact.split()[-1]}?",
                paraphrase_question=para,
            )
            for fact, para in _SKILLS
        ),
        *_templated(_IDENTIFIERS, "{0}", "What is {1}?", "{2}"),
    ]


def _templated(
    rows: Iterable[Sequence[str]], fact: str, keyword: str, paraphrase: str
) -> list[QualityItem]:
    """One item per row, its fact and questions the templates filled with the row's cells."""
    return [
        QualityItem(
            fact=fact.format(*row),
            keyword_question=keyword.format(*row),
            paraphrase_question=paraphrase.format(*row),
        )
        for row in rows
    ]


def _document_item(thing: str, para: str, where: str) -> QualityItem:
    """Where a document is kept (plural things, "tax returns", are kept; one thing is)."""
    plural = thing.endswith("s")
    return QualityItem(
        fact=f"The {thing} are kept in {where}."
        if plural and not thing.endswith("ss")
        else f"The {thing} is kept in {where}.",
        keyword_question=f"Where are my {thing}?" if plural else f"Where is my {thing}?",
        paraphrase_question=f"Where can I find the {para}?",
    )


def _distractors(rng: random.Random) -> list[QualityItem]:
    """Facts never asked about: the same shapes and vocabulary as the asked ones."""
    relations = [relation for relation, _ in _RELATIONS]
    items = [
        QualityItem(fact=f"My {rng.choice(relations)}'s friend {name} lives in Leeds.", asked=False)
        for name in _EXTRA_NAMES
        if name not in _NAMES
    ]
    for place in _DISTRACTOR_PLACES:
        year = rng.randint(2005, 2024)
        items.append(QualityItem(fact=f"I visited {place} in {year}.", asked=False))
        items.append(QualityItem(fact=f"My cousin moved to {place} for a new job.", asked=False))
    for project in _DISTRACTOR_PROJECTS:
        colleague = rng.choice(_EXTRA_NAMES)
        items.append(
            QualityItem(fact=f"{colleague} leads the {project} project at work.", asked=False)
        )
        items.append(
            QualityItem(
                fact=f"The {project} notes are in the shared drive under {project.split()[0]}.",
                asked=False,
            )
        )
    items.extend(_look_alike_records(rng))
    for thing, _, _ in _FAVOURITES:
        disliked = rng.choice(["anything too sweet", "loud places", "the usual choice"])
        items.append(QualityItem(fact=f"For {thing}, I dislike {disliked}.", asked=False))
    items.extend(
        QualityItem(fact=f"Last year the {event} was cancelled twice.", asked=False)
        for event, _, _ in _EVENTS[:10]
    )
    return items


def _look_alike_records(rng: random.Random) -> list[QualityItem]:
    """Other things with codes of each identifier's shape, a few characters apart."""
    codes = {code for _, code, _ in _IDENTIFIERS}
    items: list[QualityItem] = []
    for _, code, _ in _IDENTIFIERS:
        for thing in rng.sample(_REFERENCED_THINGS, k=_LOOK_ALIKES_PER_IDENTIFIER):
            other = _look_alike(code, rng)
            while other in codes:
                other = _look_alike(code, rng)
            codes.add(other)
            items.append(
                QualityItem(fact=f"The reference for the {thing} is {other}.", asked=False)
            )
    return items
