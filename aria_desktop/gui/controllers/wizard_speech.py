"""The wizard's speech recognition choice: the GPU machine's Whisper when one answers there.

Entering the voice page looks, quietly, where ``domain/speech_servers.py`` says a Wyoming
speech-to-text server may run: the configured address, then the machines that run the user's
models (the address typed on the model page included). One that answers is offered, ticked: it
hears far better than the small model on this computer, which still hears the user whenever
that machine is off. Finding none is not an error; where a model machine exists the page says
what would make speech better there. What the choice writes is :meth:`SpeechPage.changes`;
the privacy page then says truly where speech goes (:meth:`SpeechPage.privacy_text`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from pathlib import PurePath

from aria_desktop.core.ports import SettingsService
from aria_desktop.domain.config import ServerCheck
from aria_desktop.domain.locality import is_loopback_url
from aria_desktop.domain.speech_servers import server_host, speech_server_candidates
from aria_desktop.gui.tasks import TaskOwner
from aria_desktop.gui.views.wizard import PRIVACY_VOICE, WizardView

__all__ = ["SpeechPage", "where"]


def where(uri: str) -> str:
    """How the page names a server's machine: "this computer" or "the computer at gpu.lan"."""
    host = server_host(uri)
    if not host or is_loopback_url(f"http://{host}/" if ":" not in host else f"http://[{host}]/"):
        return "this computer"
    return f"the computer at {host}"


def _models(result: ServerCheck) -> str:
    """The server's models by their short names (a folder's last part)."""
    return ", ".join(PurePath(name).name or name for name in result.models)


def _offer(uri: str) -> str:
    """The tick's words for a server at ``uri``."""
    place = where(uri)
    if place == "this computer":
        return "Use the speech recognition server on this computer"
    return f"Recognise speech on {place}"


def _found(result: ServerCheck) -> str:
    """What the page says about a server that answered."""
    place, models = where(result.url), _models(result)
    if place == "this computer":
        return (
            f"A speech recognition server runs on this computer ({models}). ARIA uses it "
            "instead of its own small model, and its own model whenever that server stops."
        )
    return (
        f"{place[0].upper()}{place[1:]} runs speech recognition ({models}). It hears you "
        f"better than the small model on this computer, which still hears you whenever "
        f"{server_host(result.url)} is off."
    )


class SpeechPage:
    """Looks for a speech recognition server and keeps the person's choice about it."""

    def __init__(self, services: SettingsService, tasks: TaskOwner) -> None:
        self.services = services
        self.tasks = tasks
        self.found: ServerCheck | None = None
        """The server offered (None: none answers)."""
        self.probed = False
        """The last look has finished."""
        self._engine = "local"
        self._uri = ""
        self._offered = ""
        """The server offered last: its tick is the person's from then on."""

    def load(self, view: WizardView, values: Mapping[str, str]) -> None:
        """Start from the settings as they are (a server configured before stays chosen)."""
        self._engine = values.get("voice.stt.engine", "local")
        self._uri = values.get("voice.stt.wyoming_uri", "")
        self.found = None
        self._offered = self._uri if self._engine == "wyoming" else ""
        view.speech_server.setVisible(self._engine == "wyoming")
        view.speech_server.setChecked(self._engine == "wyoming")
        view.speech_server.setText(_offer(self._uri))
        view.speech_status.setText("")

    def look(self, view: WizardView, model_urls: Iterable[str]) -> None:
        """Probe every candidate at once; the first in order that answers is offered."""
        candidates = speech_server_candidates(self._uri, model_urls)
        self.probed = False
        self.tasks.spawn(self._look(view, candidates), name="aria-gui-wizard-speech")

    async def _look(self, view: WizardView, candidates: tuple[str, ...]) -> None:
        results = await asyncio.gather(*map(self.services.check_speech_server, candidates))
        self.found = next((result for result in results if result.ok), None)
        self.probed = True
        if self.found is not None:
            if self.found.url != self._offered:
                view.speech_server.setChecked(True)
                self._offered = self.found.url
            view.speech_server.setText(_offer(self.found.url))
            view.speech_server.show()
            view.speech_status.setText(_found(self.found))
            return
        if self._engine == "wyoming":
            view.speech_status.setText(
                f"Speech recognition on {where(self._uri)} does not answer now; this computer "
                "hears you until it does."
            )
            return
        remote = [uri for uri in candidates if where(uri) != "this computer"]
        view.speech_status.setText(
            f"Tip: if {where(remote[0])} ran a speech recognition server (wyoming-faster-whisper, "
            "on port 10300), ARIA would hear you better through it. Come back to this page "
            "once it runs."
            if remote
            else ""
        )

    def chosen_uri(self, view: WizardView) -> str:
        """The server the person keeps ticked ("" for this computer's own model)."""
        if view.speech_server.isHidden() or not view.speech_server.isChecked():
            return ""
        return self.found.url if self.found is not None else self._uri

    def changes(self, view: WizardView) -> dict[str, str]:
        """The settings the choice writes; nothing when nothing was offered."""
        uri = self.chosen_uri(view)
        if uri:
            return {"voice.stt.engine": "wyoming", "voice.stt.wyoming_uri": uri}
        if not view.speech_server.isHidden() or self._engine == "wyoming":
            return {"voice.stt.engine": "local"}
        return {}

    def privacy_text(self, view: WizardView) -> str:
        """The privacy page's voice paragraph for the choice made."""
        uri = self.chosen_uri(view)
        if not uri or where(uri) == "this computer":
            return PRIVACY_VOICE
        return (
            "<b>Voice.</b> The wake word runs on this computer. What you say after it goes to "
            f"{where(uri)} to be recognised (on this computer while that one is off); audio "
            "is never stored or sent anywhere else."
        )
