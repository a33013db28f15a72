"""What the spoken-command benchmark says, in English and German.

Commands with their intent and slots, and sentences that only contain command words (which
must reach the model).

``bench/skills_accuracy.py`` speaks each sentence in every voice below, transcribes it as the
voice pipeline does and asks the skill router (``source="voice"``). The voices are split once,
here, into a tuning half and a checking half: recogniser settings (the fuzzy cutoff, the
normalisation of transcripts) are tuned on the tuning half only, and the checking half's
figures are the ones reported. No voice, accent or speaking rate is in both halves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from aria_desktop.bench.voice_corpus import Voice

__all__ = [
    "CHECKING",
    "COMMANDS",
    "NON_COMMANDS",
    "TUNING",
    "Said",
]

SlotValue = str | int | float


@dataclass(frozen=True)
class Said:
    """One sentence and what it must be recognised as.

    Attributes:
        text: what the voice says.
        intent: the intent it states (None: not a command; it must not match anything).
        slots: the slot values it must carry (a subset: other slots may be present too).
        family: the row it is counted in (timers, lists, …).
        language: the language it is said in.
    """

    text: str
    intent: str | None = None
    slots: Mapping[str, SlotValue] = field(default_factory=lambda: MappingProxyType({}))
    family: str = ""
    language: str = "en"


def _family(name: str, language: str, *rows: tuple[str, str, dict[str, SlotValue]]) -> list[Said]:
    return [
        Said(text, intent, MappingProxyType(slots), name, language) for text, intent, slots in rows
    ]


_EN_COMMANDS = [
    *_family(
        "timers",
        "en",
        ("Set a timer for five minutes.", "HassStartTimer", {"minutes": 5}),
        ("Set a timer for 10 minutes.", "HassStartTimer", {"minutes": 10}),
        (
            "Set a pasta timer for twelve minutes.",
            "HassStartTimer",
            {"name": "pasta", "minutes": 12},
        ),
        (
            "Set a timer for one hour and thirty minutes.",
            "HassStartTimer",
            {"hours": 1, "minutes": 30},
        ),
        ("Set a timer for ninety seconds.", "HassStartTimer", {"seconds": 90}),
        ("Start a timer for twenty minutes.", "HassStartTimer", {"minutes": 20}),
        (
            "Set a timer for three minutes called tea.",
            "HassStartTimer",
            {"minutes": 3, "name": "tea"},
        ),
        ("Start a 15 minute timer.", "HassStartTimer", {"minutes": 15}),
        ("How much time is left on my timer?", "HassTimerStatus", {}),
        ("How much time is left on the pasta timer?", "HassTimerStatus", {"name": "pasta"}),
        ("Cancel the timer.", "HassCancelTimer", {}),
        ("Cancel all timers.", "HassCancelAllTimers", {}),
        ("Pause the timer.", "HassPauseTimer", {}),
        ("Resume the timer.", "HassUnpauseTimer", {}),
        ("Add five minutes to the timer.", "HassIncreaseTimer", {"minutes": 5}),
        ("Remove two minutes from the timer.", "HassDecreaseTimer", {"minutes": 2}),
        ("Set a timer for forty five seconds.", "HassStartTimer", {"seconds": 45}),
        ("Set a timer for two hours.", "HassStartTimer", {"hours": 2}),
        ("Stop the timer.", "HassCancelTimer", {}),
    ),
    *_family(
        "time and date",
        "en",
        ("What time is it?", "HassGetCurrentTime", {}),
        ("What's the time?", "HassGetCurrentTime", {}),
        ("Tell me the time.", "HassGetCurrentTime", {}),
        ("What is the date today?", "HassGetCurrentDate", {}),
        ("What's today's date?", "HassGetCurrentDate", {}),
        ("What's the date?", "HassGetCurrentDate", {}),
        ("What day is it today?", "AriaGetWeekday", {}),
        ("What day is it?", "AriaGetWeekday", {}),
        ("What's the date today?", "HassGetCurrentDate", {}),
    ),
    *_family(
        "lists",
        "en",
        ("Add milk to my shopping list.", "HassListAddItem", {"item": "milk", "name": "shopping"}),
        (
            "Add eggs and bread to my shopping list.",
            "HassListAddItem",
            {"item": "eggs and bread", "name": "shopping"},
        ),
        (
            "Add butter, cheese and three apples to the shopping list.",
            "HassListAddItem",
            {"item": "butter, cheese and three apples", "name": "shopping"},
        ),
        (
            "Put bananas on my shopping list.",
            "HassListAddItem",
            {"item": "bananas", "name": "shopping"},
        ),
        (
            "Add batteries to my shopping list.",
            "HassListAddItem",
            {"item": "batteries", "name": "shopping"},
        ),
        (
            "Add call the plumber to my to-do list.",
            "HassListAddItem",
            {"item": "call the plumber", "name": "todo"},
        ),
        (
            "Add buy stamps to my to do list.",
            "HassListAddItem",
            {"item": "buy stamps", "name": "todo"},
        ),
        ("Add coffee to the list.", "HassShoppingListAddItem", {"item": "coffee"}),
        (
            "Remove milk from my shopping list.",
            "HassListRemoveItem",
            {"item": "milk", "name": "shopping"},
        ),
        (
            "Check off bread on my shopping list.",
            "HassListCompleteItem",
            {"item": "bread", "name": "shopping"},
        ),
        ("What's on my shopping list?", "AriaListRead", {"name": "shopping"}),
        ("What is on my to-do list?", "AriaListRead", {"name": "todo"}),
        ("Read my shopping list.", "AriaListRead", {"name": "shopping"}),
        ("Show me my to-do list.", "AriaListRead", {"name": "todo"}),
        ("What do I need to buy?", "AriaListRead", {"name": "shopping"}),
        (
            "Remove eggs from the shopping list.",
            "HassListRemoveItem",
            {"item": "eggs", "name": "shopping"},
        ),
        (
            "Add toothpaste to my shopping list.",
            "HassListAddItem",
            {"item": "toothpaste", "name": "shopping"},
        ),
        ("What is on my shopping list?", "AriaListRead", {"name": "shopping"}),
    ),
    *_family(
        "media",
        "en",
        ("Pause the music.", "HassMediaPause", {}),
        ("Pause.", "HassMediaPause", {}),
        ("Resume the music.", "HassMediaUnpause", {}),
        ("Next song.", "HassMediaNext", {}),
        ("Skip this song.", "HassMediaNext", {}),
        ("Next track.", "HassMediaNext", {}),
        ("Play the previous track.", "HassMediaPrevious", {}),
        ("Go back to the previous song.", "HassMediaPrevious", {}),
        ("What's playing?", "AriaMediaWhatsPlaying", {}),
        ("What song is this?", "AriaMediaWhatsPlaying", {}),
        ("Skip to the next song.", "HassMediaNext", {}),
        ("Resume.", "HassMediaUnpause", {}),
    ),
    *_family(
        "volume",
        "en",
        ("Set the volume to fifty percent.", "HassSetVolume", {"volume_level": 50}),
        ("Set the volume to 30%.", "HassSetVolume", {"volume_level": 30}),
        ("Set the volume to 80 percent.", "HassSetVolume", {"volume_level": 80}),
        ("Turn the volume up.", "HassSetVolumeRelative", {"volume_step": "up"}),
        ("Turn the volume down.", "HassSetVolumeRelative", {"volume_step": "down"}),
        ("Volume up.", "HassSetVolumeRelative", {"volume_step": "up"}),
        ("Turn down the volume.", "HassSetVolumeRelative", {"volume_step": "down"}),
        ("Increase the volume.", "HassSetVolumeRelative", {"volume_step": "up"}),
        ("Mute.", "HassMediaPlayerMute", {}),
        ("Unmute.", "HassMediaPlayerUnmute", {}),
    ),
    *_family(
        "remember and recall",
        "en",
        (
            "Remember that my bike is in the garage.",
            "AriaRemember",
            {"content": "my bike is in the garage"},
        ),
        (
            "Remember that the spare key is under the flower pot.",
            "AriaRemember",
            {"content": "the spare key is under the flower pot"},
        ),
        (
            "Remember that Anna's birthday is in May.",
            "AriaRemember",
            {"content": "anna's birthday is in may"},
        ),
        ("What do you remember about my bike?", "AriaRecall", {"topic": "my bike"}),
        ("What do you remember about the spare key?", "AriaRecall", {"topic": "the spare key"}),
        ("What do you remember about Anna?", "AriaRecall", {"topic": "anna"}),
    ),
    *_family(
        "never mind",
        "en",
        ("Never mind.", "HassNevermind", {}),
    ),
    *_family(
        "reminders and alarms",
        "en",
        ("Remind me to call mom at 4 pm.", "AriaAddReminder", {"task": "call mom at 4 pm"}),
        (
            "Remind me in twenty minutes to check the oven.",
            "AriaAddReminder",
            {"when": "in twenty minutes", "message": "check the oven"},
        ),
        (
            "Remind me tomorrow at 9 am to water the plants.",
            "AriaAddReminder",
            {"when": "tomorrow at 9 am", "message": "water the plants"},
        ),
        (
            "Remind me on Friday at 6 pm to buy flowers.",
            "AriaAddReminder",
            {"when": "on friday at 6 pm", "message": "buy flowers"},
        ),
        ("Wake me up at 7.", "AriaSetAlarm", {"when": "at 7"}),
        ("Set an alarm for 6:30 am.", "AriaSetAlarm", {"when": "6:30 am"}),
        ("What are my reminders?", "AriaListReminders", {"kind": "reminder"}),
        ("What alarms do I have?", "AriaListReminders", {"kind": "alarm"}),
        ("Cancel my alarm.", "AriaCancelReminder", {"kind": "alarm"}),
        ("Cancel all reminders.", "AriaCancelAllReminders", {"kind": "reminder"}),
    ),
    *_family(
        "apps",
        "en",
        ("Open Firefox.", "AriaOpenApp", {"app": "firefox"}),
        ("Launch the calculator.", "AriaOpenApp", {"app": "calculator"}),
        ("Open the text editor.", "AriaOpenApp", {"app": "text editor"}),
        ("Could you open the terminal?", "AriaOpenApp", {"app": "terminal"}),
        ("Open the file manager.", "AriaOpenApp", {"app": "file manager"}),
        ("Open the calculator.", "AriaOpenApp", {"app": "calculator"}),
    ),
]

_DE_COMMANDS = [
    *_family(
        "timers",
        "de",
        ("Stelle einen Timer auf fünf Minuten.", "HassStartTimer", {"minutes": 5}),
        ("Stell einen Timer für zehn Minuten.", "HassStartTimer", {"minutes": 10}),
        ("Breche den Timer ab.", "HassCancelTimer", {}),
    ),
    *_family(
        "time and date",
        "de",
        ("Wie spät ist es?", "HassGetCurrentTime", {}),
        ("Wie viel Uhr ist es?", "HassGetCurrentTime", {}),
        ("Welches Datum ist heute?", "HassGetCurrentDate", {}),
    ),
    *_family(
        "lists",
        "de",
        (
            "Füge Milch zu meiner Einkaufsliste hinzu.",
            "HassListAddItem",
            {"item": "milch", "name": "shopping"},
        ),
        (
            "Setze Brot auf die Einkaufsliste.",
            "HassListAddItem",
            {"item": "brot", "name": "shopping"},
        ),
        ("Was steht auf meiner Einkaufsliste?", "AriaListRead", {"name": "shopping"}),
    ),
    *_family(
        "media",
        "de",
        ("Musik pausieren.", "HassMediaPause", {}),
        ("Nächstes Lied.", "HassMediaNext", {}),
    ),
    *_family(
        "volume",
        "de",
        ("Stelle die Lautstärke auf fünfzig Prozent.", "HassSetVolume", {"volume_level": 50}),
        ("Lauter.", "HassSetVolumeRelative", {"volume_step": "up"}),
        ("Leiser.", "HassSetVolumeRelative", {"volume_step": "down"}),
    ),
    *_family(
        "remember and recall",
        "de",
        (
            "Merke dir, dass mein Fahrrad im Keller steht.",
            "AriaRemember",
            {"content": "mein fahrrad im keller steht"},
        ),
    ),
    *_family("never mind", "de", ("Vergiss es.", "HassNevermind", {})),
    *_family(
        "reminders and alarms",
        "de",
        (
            "Erinnere mich morgen um 9 Uhr daran, die Pflanzen zu gießen.",
            "AriaAddReminder",
            {"when": "morgen um 9 uhr", "message": "die pflanzen zu gießen"},
        ),
        ("Weck mich um 7 Uhr.", "AriaSetAlarm", {"when": "um 7 uhr"}),
        ("Welche Erinnerungen habe ich?", "AriaListReminders", {"kind": "reminder"}),
    ),
    *_family("apps", "de", ("Öffne Firefox.", "AriaOpenApp", {"app": "firefox"})),
]

COMMANDS: tuple[Said, ...] = (*_EN_COMMANDS, *_DE_COMMANDS)
"""Commands with the intent and slots each must be recognised with."""

_EN_NON_COMMANDS = [
    "Which timer app is best for cooking?",
    "Remind me what you said about the budget.",
    "Should I open the window at night?",
    "How long should I boil an egg for?",
    "What time does the bakery open on Sundays?",
    "Is it time to buy a new laptop?",
    "What is the best time to visit Japan?",
    "Tell me a story about a clock.",
    "How do I set a timer on my microwave?",
    "My shopping list app keeps crashing.",
    "Can you explain what a to-do list is good for?",
    "Why is my music so quiet on Bluetooth?",
    "How loud is a jet engine?",
    "What is the volume of a cube with sides of three centimetres?",
    "I need to remember to be kinder to my brother.",
    "Do you remember the name of that Italian restaurant?",
    "Remember when we went to Paris?",
    "Never mind the weather, how are the markets today?",
    "Open source software is great, isn't it?",
    "How do I open a jar that is stuck?",
    "Pause for a moment and think about the question.",
    "What's the next step in the recipe?",
    "Is the next train to Berlin on time?",
    "Who was the previous president of France?",
    "Stop me if you've heard this one.",
    "Should I mute notifications at night?",
    "Add two and three.",
    "Add some salt to the soup, then stir.",
    "What's on TV tonight?",
    "What's on the menu today?",
    "Read me a poem about the sea.",
    "Tell me the time in Tokyo.",
    "What time is it in New York?",
    "What day of the week was the fourth of July in nineteen seventy six?",
    "How many minutes are in a day?",
    "Cancel my subscription to the newspaper.",
    "Set the table for five people.",
    "Start the car.",
    "What's the volume of the Pacific Ocean?",
    "Turn the page and keep reading.",
]

_DE_NON_COMMANDS = [
    "Welche Timer-App ist die beste zum Kochen?",
    "Wie spät ist es in Tokio?",
    "Soll ich nachts das Fenster öffnen?",
    "Was ist das Volumen einer Kugel?",
    "Erinnerst du dich an das Restaurant in Rom?",
    "Was steht heute im Fernsehen?",
    "Ich muss noch Milch kaufen.",
    "Das nächste Mal fahren wir früher los.",
    "Was kommt auf die Einkaufsliste?",
    "Was soll ich auf die Einkaufsliste schreiben?",
]

NON_COMMANDS: tuple[Said, ...] = (
    *(Said(text, family="not a command") for text in _EN_NON_COMMANDS),
    *(Said(text, family="not a command", language="de") for text in _DE_NON_COMMANDS),
)
"""Sentences with command words that are questions or statements for the model."""

TUNING: tuple[Voice, ...] = (
    Voice("espeak en-us 160 wpm", "espeak", "en-us", 160),
    Voice("espeak en-gb-scotland 170 wpm", "espeak", "en-gb-scotland", 170),
    Voice("espeak en-gb-x-gbclan+f3 150 wpm", "espeak", "en-gb-x-gbclan+f3", 150),
    Voice("espeak en-029+m3 180 wpm", "espeak", "en-029+m3", 180),
    Voice("piper joe", "piper", speed=1.0),
    Voice("espeak de 160 wpm", "espeak", "de", 160),
)
"""The voices recogniser settings may be tuned on (English, then German: ``de`` voices)."""

CHECKING: tuple[Voice, ...] = (
    Voice("espeak en-gb 165 wpm", "espeak", "en-gb", 165),
    Voice("espeak en-gb-x-rp+f2 145 wpm", "espeak", "en-gb-x-rp+f2", 145),
    Voice("espeak en-us-nyc 175 wpm", "espeak", "en-us-nyc", 175),
    Voice("espeak en-gb-x-gbcwmd+m3 155 wpm", "espeak", "en-gb-x-gbcwmd+m3", 155),
    Voice("piper joe fast (0.8)", "piper", speed=0.8),
    Voice("espeak de+f3 150 wpm", "espeak", "de+f3", 150),
)
"""The voices the reported figures come from; never used for tuning."""


def voice_language(voice: Voice) -> str:
    """The language a voice speaks (its espeak-ng name's first part; Piper's joe: English)."""
    return voice.name.split("+")[0].split("-")[0] if voice.engine == "espeak" else "en"
