"""The wizard's model page: find Ollama by itself, test another address, list its models.

The first probe goes to the configured address (this computer's Ollama by default) and is
quiet: no Ollama there is not an error, the page just says what the choices are and picks
"skip for now", so a person without a model can go on at once. A probe the user asked for
(Test) says what went wrong. What the choice means for the settings is :func:`model_changes`.
"""

from __future__ import annotations

from collections.abc import Mapping

from aria_desktop.core.ports import SettingsService
from aria_desktop.domain.config import ServerCheck
from aria_desktop.gui.controllers.settings import join_chains, split_chains
from aria_desktop.gui.tasks import TaskOwner
from aria_desktop.gui.views.wizard import WizardView

__all__ = ["LOCAL_OLLAMA", "ModelPage", "model_changes"]

LOCAL_OLLAMA = "http://127.0.0.1:11434"
_NONE_HERE = (
    "There is no Ollama on this computer yet. Enter the address of a computer that runs it "
    "and press Test, use Claude, or skip this for now."
)


def _found(result: ServerCheck, asked: bool) -> str:
    """What a probe that reached Ollama says (its own message may name shell commands)."""
    where = "on this computer" if result.url.rstrip("/") == LOCAL_OLLAMA else f"at {result.url}"
    count = len(result.models)
    if not count:
        return (
            f"Ollama runs {where} but has no models yet. Download one in Ollama (for example "
            "llama3.2), then press Test."
        )
    plural = "model" if count == 1 else "models"
    return f"{'Found it: ' if asked else ''}Ollama {where} has {count} {plural}. Pick one below."


def model_changes(view: WizardView, values: Mapping[str, str]) -> dict[str, str]:
    """The settings the model page's choice writes (``values``: the current ``llm.`` keys).

    Ollama or Claude moves to the front of the chat chain and the others stay behind it as
    fallbacks; "skip" changes nothing, so a model configured before is kept.
    """
    if view.skip_choice.isChecked():
        return {}
    chains = split_chains(values.get("llm.chains", "chat=ollama"))
    first = "anthropic" if view.cloud_choice.isChecked() else "ollama"
    chains["chat"] = [first, *(b for b in chains.get("chat", []) if b != first)]
    changes = {"llm.chains": join_chains(chains)}
    if first == "ollama":
        changes["llm.ollama.url"] = view.url.text().strip()
        changes["llm.ollama.model"] = view.model.currentText().strip()
    return changes


class ModelPage:
    """Probes Ollama for the wizard and fills the model list."""

    def __init__(self, services: SettingsService, tasks: TaskOwner) -> None:
        self.services = services
        self.tasks = tasks
        self.server_ok = False
        self.probed = False
        """The last probe has answered (found or not)."""

    def connect(self, view: WizardView) -> None:
        """Wire the page's Test button and choices."""
        view.test_button.clicked.connect(lambda: self.test(view, view.url.text().strip()))
        view.url.returnPressed.connect(lambda: self.test(view, view.url.text().strip()))
        for button in (view.ollama_choice, view.cloud_choice, view.skip_choice):
            button.toggled.connect(lambda _on: self.show_choice(view))

    def show_choice(self, view: WizardView) -> None:
        """Only the chosen option's fields are enabled."""
        ollama = view.ollama_choice.isChecked()
        for widget in (view.url, view.test_button, view.model):
            widget.setEnabled(ollama)
        view.cloud_key.setEnabled(view.cloud_choice.isChecked())

    def look_quietly(self, view: WizardView, url: str) -> None:
        """The first look, at the configured address: finding nothing is not an error."""
        self._start(view, url, asked=False)

    def test(self, view: WizardView, url: str) -> None:
        """Probe an address the user typed and say what happened."""
        view.ollama_choice.setChecked(True)
        self._start(view, url, asked=True)

    def _start(self, view: WizardView, url: str, *, asked: bool) -> None:
        self.probed = False
        here = url.rstrip("/") == LOCAL_OLLAMA
        view.server_status.setText(
            "Looking for Ollama on this computer…" if here else f"Looking for Ollama at {url}…"
        )
        self.tasks.spawn(self._probe(view, url, asked), name="aria-gui-wizard-test")

    async def _probe(self, view: WizardView, url: str, asked: bool) -> None:
        result = await self.services.check_ollama(url)
        self.server_ok = result.ok
        self.probed = True
        if result.ok:
            view.server_status.setText(_found(result, asked))
            self._list_models(view, result.models)
            if not asked:
                view.ollama_choice.setChecked(True)
        elif asked:
            view.server_status.setText(
                f"{result.message} Check the address, or that Ollama runs there, and press Test."
            )
        else:
            view.server_status.setText(_NONE_HERE)
            if self.services.secret_status("anthropic_api_key") != "missing":
                view.cloud_choice.setChecked(True)
            else:
                view.skip_choice.setChecked(True)

    @staticmethod
    def _list_models(view: WizardView, models: tuple[str, ...]) -> None:
        """Offer the server's models; keep the configured one chosen when it is there."""
        current = view.model.currentText()
        view.model.clear()
        view.model.addItems(list(models))
        if current in models or not models:
            view.model.setCurrentText(current)
        else:
            view.model.setCurrentIndex(0)

    def validate(self, view: WizardView) -> bool:
        """Refuse a bad address or model name, or Claude without a key, on this page."""
        if view.ollama_choice.isChecked():
            errors = self.services.check(
                {
                    "llm.ollama.url": view.url.text().strip(),
                    "llm.ollama.model": view.model.currentText().strip(),
                }
            )
            if errors:
                view.server_status.setText(" ".join(errors.values()))
                return False
        if view.cloud_choice.isChecked():
            pasted = bool(view.cloud_key.text().strip())
            if not pasted and self.services.secret_status("anthropic_api_key") == "missing":
                view.cloud_error.setText("Paste your Anthropic API key to use Claude.")
                return False
        return True
