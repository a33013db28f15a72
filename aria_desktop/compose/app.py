"""Composition root: settings -> adapters -> Orchestrator.

The only module (with ``cli`` and ``doctor``) that knows concrete adapter classes. ``build_app``
opens the database, which takes the owner lock first, so a second process never opens it for
writing while another owns it (ARCHITECTURE.md: owner); then the LLM router and the audit log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aria_desktop import __version__, paths
from aria_desktop.compose.config import config_from
from aria_desktop.compose.llm import build_router
from aria_desktop.settings import FileSettingsAccess, Settings, resolve_database_path

if TYPE_CHECKING:
    # Adapters (and the core services that only some commands need) are imported inside the
    # builder that uses them: a command pays only for what it builds (ARCHITECTURE.md:
    # start-up cost).
    from collections.abc import AsyncGenerator

    from aria_desktop.adapters.llm.budget import UsageLedger
    from aria_desktop.adapters.llm.live import LiveRouter
    from aria_desktop.adapters.llm.router import Router
    from aria_desktop.adapters.mcp.hub import McpHub
    from aria_desktop.adapters.memory.store import Embedder, SQLiteMemoryStore
    from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.core.assistant import LocalAssistant
    from aria_desktop.core.audit import AuditLog
    from aria_desktop.core.bus import EventBus, Subscription
    from aria_desktop.core.computer.capability import ComputerUse
    from aria_desktop.core.computer.task import ComputerAgent
    from aria_desktop.core.homeassistant.control import HomeAssistantControl
    from aria_desktop.core.knowledge.service import KnowledgeService
    from aria_desktop.core.memory.service import MemoryConfig, MemoryService
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.ports import (
        AudioSink,
        AudioSource,
        ChatModel,
        SettingsAccess,
        SpeechToText,
        TextToSpeech,
        WakeWordDetector,
    )
    from aria_desktop.core.voice.pipeline import VoiceConfig, VoicePipeline
    from aria_desktop.core.voice.speech import SpeechService
    from aria_desktop.domain.chat import ChatRequest, LLMChunk

__all__ = [
    "App",
    "MemoryStorage",
    "build_app",
    "build_embedder",
    "build_knowledge",
    "build_memory",
    "build_router",
    "build_speech",
    "build_speech_engines",
    "build_stt",
    "build_tts",
    "build_voice",
    "database_path",
    "open_audit_log",
    "open_memory",
]

_LOGGER = logging.getLogger(__name__)


def database_path(settings: Settings) -> Path:
    """The SQLite file: the configured one, or the default in the data directory."""
    return resolve_database_path(settings)


def open_audit_log() -> AuditLog:
    """The audit log at its standard place (checkpoint kept in another directory)."""
    from aria_desktop.adapters.storage.audit_file import AuditFile
    from aria_desktop.core.audit import AuditLog
    from aria_desktop.log import scrub_text

    store = AuditFile(paths.audit_log_path(), paths.audit_checkpoint_path())
    return AuditLog(store, redact=scrub_text)


@dataclass(kw_only=True)
class App:
    """A running ARIA core: what front-ends (CLI, GUI, API) work with."""

    settings: Settings
    orchestrator: Orchestrator
    store: SQLiteConversationStore
    router: LiveRouter
    database: Database
    audit: AuditLog
    memory: MemoryService | None = None
    embedder: Embedder | None = None
    knowledge: KnowledgeService | None = None
    settings_access: SettingsAccess | None = None
    voice: VoicePipeline | None = None
    vocabulary_events: Subscription | None = None
    usage_ledger: UsageLedger | None = None
    _assistant: LocalAssistant | None = field(default=None, init=False, repr=False)

    @property
    def assistant(self) -> LocalAssistant:
        """The in-process ``Assistant`` every front-end drives (CLI, daemon API, tray app).

        Built here only, with long-term memory and settings access, so each front-end sees the
        same capabilities.
        """
        if self._assistant is None:
            from aria_desktop.core.assistant import LocalAssistant

            self._assistant = LocalAssistant(
                self.orchestrator,
                memory=self.memory,
                settings=self.settings_access,
                knowledge=self.knowledge,
            )
        return self._assistant

    computer: ComputerUse | None = None
    computer_agent: ComputerAgent | None = None
    homeassistant: HomeAssistantControl | None = None
    mcp: McpHub | None = None

    async def aclose(self) -> None:
        """Stop voice and turns, close backends and the database (releasing the owner lock)."""
        try:
            voice, self.voice = self.voice, None
            if voice is not None:
                await voice.stop()
            await self.orchestrator.stop()
            if self.mcp is not None:
                await self.mcp.aclose()
            await self.router.aclose()
            if self.embedder is not None:
                await self.embedder.aclose()
            if self.homeassistant is not None:
                await self.homeassistant.aclose()
        finally:
            await self.database.close()


async def build_app(
    settings: Settings,
    *,
    port: int | None = None,
    settings_access: SettingsAccess | None = None,
    mcp_servers: bool = False,
) -> App:
    """Take ownership of the database and build the orchestrator with all its adapters.

    ``settings_access`` is what ``get_settings``/``update_settings`` read and write (default:
    the settings file). Voice is not started here: see :func:`start_voice`. ``mcp_servers``
    starts the user's MCP servers in the background and offers their tools (the owner and
    ``aria chat``; other commands do not pay for them).

    Raises:
        DatabaseOwnedError: another ARIA process owns the database.
        StorageError, SchemaTooNewError: the database cannot be opened for writing.
    """
    from aria_desktop.adapters.llm.live import LiveRouter
    from aria_desktop.adapters.storage.connection import sqlite_info
    from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.adapters.storage.usage import SQLiteUsageLedger
    from aria_desktop.compose.tools import (
        api_port,
        build_computer,
        build_hands,
        build_homeassistant,
        install_web_tool,
    )
    from aria_desktop.compose.usage import install_usage_report
    from aria_desktop.core.agent import AgentConfig
    from aria_desktop.core.computer.task import ComputerAgent
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.tools import default_policy

    db_path = database_path(settings)
    info = sqlite_info()
    _LOGGER.info(
        "ARIA %s starting; SQLite %s via %s (FTS5 %s, sqlite-vec %s)",
        __version__,
        info.sqlite_version,
        info.driver,
        "yes" if info.fts5 else "no",
        info.vec_version or "unavailable",
    )
    database = await Database.open(db_path, port=port)
    store = SQLiteConversationStore(database)
    ledger = SQLiteUsageLedger(database)
    router = LiveRouter(build_router(settings, ledger=ledger))  # replaced live (ARCHITECTURE.md)
    audit = open_audit_log()
    computer = build_computer(settings, audit=audit, router=router.current)
    homeassistant = build_homeassistant(settings)
    policy = computer.policy_hook(default_policy)
    if homeassistant is not None:
        policy = homeassistant.policy_hook(policy)
    mcp = None
    if mcp_servers and settings.mcp.enabled:
        from aria_desktop.compose.mcp import build_mcp

        mcp, mcp_bridge = build_mcp(settings)
        policy = mcp_bridge.policy_hook(policy)
    orchestrator = Orchestrator(
        model=router,
        store=store,
        audit=audit,
        policy=policy,
        config=config_from(
            AgentConfig,
            settings.agent,
            max_tokens=settings.llm.max_tokens,
            think=settings.llm.think,
            think_budget_tokens=settings.llm.think_budget_tokens,
        ),
    )
    install_usage_report(orchestrator, ledger)
    embedder = build_embedder(settings)
    memory, memory_store, pending = await build_memory(settings, database, embedder, router, store)
    memory.install(orchestrator)
    if pending:
        orchestrator.spawn(memory_store.sync_vectors(), name="aria-memory-vector-sync")
    knowledge = await build_knowledge(settings, database, embedder, watch=True)
    if knowledge is not None:
        knowledge.install(orchestrator)
    computer.install(orchestrator)
    install_web_tool(settings, orchestrator, api_ports=lambda: api_port(database))
    computer_agent = ComputerAgent(computer=computer, model=router)
    computer_agent.install(orchestrator)
    if homeassistant is not None:
        homeassistant.install(orchestrator)
    build_hands(settings).install(orchestrator)
    if mcp is not None:
        mcp_bridge.install(orchestrator)
        mcp.start()
    return App(
        settings=settings,
        orchestrator=orchestrator,
        store=store,
        router=router,
        usage_ledger=ledger,
        database=database,
        audit=audit,
        memory=memory,
        embedder=embedder,
        knowledge=knowledge,
        computer=computer,
        computer_agent=computer_agent,
        homeassistant=homeassistant,
        settings_access=settings_access or FileSettingsAccess(),
        mcp=mcp,
    )


# --- long-term memory ------------------------------------------------------------------------


def build_embedder(settings: Settings) -> Embedder | None:
    """The embedding model chosen by ``memory.embedder`` (None: keyword search only).

    Nothing is loaded or contacted here: the local model loads on first use, Ollama is asked
    when the memory store opens.
    """
    choice = settings.memory.embedder
    if choice == "local":
        from aria_desktop.adapters.memory.embedding import LocalEmbedder

        return LocalEmbedder(cache_dir=paths.model_cache_dir())
    if choice == "ollama":
        from aria_desktop.adapters.memory.ollama_embed import OllamaEmbedder

        url = settings.memory.ollama_url or settings.llm.ollama.url
        return OllamaEmbedder(base_url=url, model=settings.memory.ollama_embed_model)
    return None


def memory_config(settings: Settings) -> MemoryConfig:
    """``MemoryConfig`` from ``settings.memory``."""
    from aria_desktop.core.memory.service import MemoryConfig

    mem = settings.memory
    return config_from(
        MemoryConfig,
        mem,
        private_conversations=frozenset(mem.private_conversations),
        private_sources=frozenset(mem.private_apps),
        min_confidence=min(1.0, mem.min_confidence),
    )


async def build_memory(
    settings: Settings,
    database: Database,
    embedder: Embedder | None,
    model: ChatModel,
    conversations: SQLiteConversationStore | None = None,
) -> tuple[MemoryService, SQLiteMemoryStore, int]:
    """Open the memory store (vector index checked against the embedder) and its service.

    Returns:
        The service, its store, and how many memories still need a vector from the current
        embedder (build them with ``store.sync_vectors()``, in the background).
    """
    from aria_desktop.adapters.memory.store import SQLiteMemoryStore
    from aria_desktop.core.memory.service import MemoryService

    memory_store = SQLiteMemoryStore(database, embedder)
    pending = await memory_store.open()
    _LOGGER.info("Memory search: %s", memory_store.vector_status)
    service = MemoryService(
        store=memory_store, model=model, conversations=conversations, config=memory_config(settings)
    )
    return service, memory_store, pending


def read_scanned_page(image: Any, timeout_s: float) -> str:
    """A scanned PDF page's text for the knowledge base: computer use's Tesseract adapter.

    The knowledge adapter may not import the computer one; this hands it over, imported at
    the first scanned page (Pillow and pytesseract are not loaded before).
    """
    from aria_desktop.adapters.computer.ocr import read_document_page

    return read_document_page(image, timeout_s=timeout_s)


async def build_knowledge(
    settings: Settings, database: Database, embedder: Embedder | None, *, watch: bool
) -> KnowledgeService | None:
    """The knowledge base on the owner's database, sharing memory's embedder instance.

    With ``watch`` (the owner process), watched folders are followed while ARIA runs; the
    service's ``install`` starts the rescan and the watcher. None when switched off.
    """
    if not settings.knowledge.enabled:
        return None
    from aria_desktop.adapters.knowledge.ocr_cache import cached_page_ocr
    from aria_desktop.adapters.knowledge.store import KnowledgeLimits, SQLiteKnowledgeStore
    from aria_desktop.core.knowledge.service import KnowledgeConfig, KnowledgeService

    kb = settings.knowledge
    store = SQLiteKnowledgeStore(
        database,
        embedder,
        limits=KnowledgeLimits(
            max_file_bytes=int(kb.max_file_mb * 1_000_000),
            fetch_timeout_s=kb.fetch_timeout_s,
            ocr_max_pages=kb.ocr_max_pages,
            ocr_page_timeout_s=kb.ocr_page_timeout_s,
        ),
        ocr=cached_page_ocr(read_scanned_page, paths.ocr_cache_dir()),
    )
    await store.open()
    _LOGGER.info("Knowledge search: %s", store.vector_status)
    config = KnowledgeConfig(
        recall_limit=kb.recall_limit, recall_min_similarity=kb.recall_min_similarity
    )
    if not watch:
        return KnowledgeService(store=store, config=config)
    from aria_desktop.adapters.knowledge.watcher import FolderWatcher

    service = KnowledgeService(store=store, config=config)
    watcher = FolderWatcher(
        store.apply_changes,
        store.rescan,
        service.folders_changed,
        debounce_ms=kb.watch_debounce_ms,
    )
    service.attach_watcher(watcher.watch, watcher.run)
    return service


class RouterOnFirstUse:
    """A ``ChatModel`` that builds the LLM router when the first reply is asked for.

    ``aria memory`` needs a model only to extract facts, which its actions never do; building
    the router reads the keyring and imports the HTTP clients, so it waits for a real use
    (ARCHITECTURE.md: start-up cost).
    """

    def __init__(self, settings: Settings) -> None:
        """Remember the settings the router will be built from."""
        self._settings = settings
        self._router: Router | None = None

    def stream(
        self, request: ChatRequest, *, agent: str = "chat", backend: str | None = None
    ) -> AsyncGenerator[LLMChunk, None]:
        """Stream through the router, building it first if this is the first reply."""
        if self._router is None:
            self._router = build_router(self._settings)
        return self._router.stream(request, agent=agent, backend=backend)

    async def aclose(self) -> None:
        """Close the router's backends, if the router was ever built."""
        if self._router is not None:
            await self._router.aclose()


@dataclass(kw_only=True)
class MemoryStorage:
    """Owned storage with the memory service, for ``aria memory`` (no turns are run)."""

    memory: MemoryService
    store: SQLiteMemoryStore
    pending_vectors: int
    database: Database
    model: RouterOnFirstUse
    embedder: Embedder | None

    async def aclose(self) -> None:
        """Close the embedder, the backends and the database (releases the owner lock)."""
        try:
            await self.model.aclose()
            if self.embedder is not None:
                await self.embedder.aclose()
        finally:
            await self.database.close()


async def open_memory(settings: Settings) -> MemoryStorage:
    """Take ownership of the database and open long-term memory (CLI use)."""
    from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
    from aria_desktop.adapters.storage.database import Database

    database = await Database.open(database_path(settings))
    embedder = build_embedder(settings)
    model = RouterOnFirstUse(settings)
    try:
        memory, memory_store, pending = await build_memory(
            settings, database, embedder, model, SQLiteConversationStore(database)
        )
    except BaseException:
        if embedder is not None:
            await embedder.aclose()
        await database.close()
        raise
    return MemoryStorage(
        memory=memory,
        store=memory_store,
        pending_vectors=pending,
        database=database,
        model=model,
        embedder=embedder,
    )


# --- voice -------------------------------------------------------------------------------------


def build_tts(settings: Settings) -> TextToSpeech:
    """The configured text-to-speech engine, not yet loaded."""
    voice = settings.voice
    if voice.tts.engine == "wyoming":
        from aria_desktop.adapters.voice.wyoming_client import WyomingTTS

        return WyomingTTS(voice.tts.wyoming_uri, voice=voice.tts.voice)
    from aria_desktop.adapters.voice.piper_tts import PiperTTS

    return PiperTTS(voice.tts.voice, length_scale=voice.tts.length_scale)


def build_stt(settings: Settings) -> SpeechToText:
    """The configured speech-to-text engine, not yet loaded (``aria transcribe`` needs no TTS)."""
    voice = settings.voice
    if voice.stt.engine == "wyoming":
        from aria_desktop.adapters.voice.wyoming_client import WyomingSTT

        return WyomingSTT(voice.stt.wyoming_uri, language=voice.stt.language)
    from aria_desktop.adapters.voice.whisper import WhisperSTT

    return WhisperSTT(
        voice.stt.model,
        cpu_threads=voice.stt.cpu_threads,
        language=voice.stt.language,
        beam_size=voice.stt.beam_size,
        cache_dir=paths.model_cache_dir(),
        vocabulary=voice.stt.vocabulary,
        fitted_window=voice.stt.fitted_window,
    )


def build_speech_engines(settings: Settings) -> tuple[TextToSpeech, SpeechToText]:
    """The configured (text-to-speech, speech-to-text) engines, not yet loaded."""
    return build_tts(settings), build_stt(settings)


def build_speech(
    settings: Settings, bus: EventBus, *, sink: AudioSink | None = None
) -> SpeechService:
    """Text-to-speech and speech-to-text with an output (the speaker when ``sink`` is None)."""
    from aria_desktop.adapters.voice.devices import SpeakerSink
    from aria_desktop.core.voice.speech import SpeechService

    tts, stt = build_speech_engines(settings)
    if sink is None:
        sink = SpeakerSink(settings.voice.output_device)
    return SpeechService(bus=bus, tts=tts, stt=stt, sink=sink)


def build_voice(
    settings: Settings,
    orchestrator: Orchestrator,
    *,
    source_factory: Callable[[], AudioSource] | None = None,
    sink: AudioSink | None = None,
    use_microphone: bool = True,
    no_microphone_reason: str = "",
) -> VoicePipeline:
    """The voice pipeline for ``orchestrator``, installed (commands, kill switch, probe).

    Args:
        settings: the voice settings are used.
        orchestrator: where turns run; commands and the capability probe are registered on it.
        source_factory: where command audio comes from; None means the configured microphone
            (or no audio source at all when ``use_microphone`` is False).
        sink: where speech goes; None means the configured speaker.
        use_microphone: open the microphone when no ``source_factory`` is given.
        no_microphone_reason: why there is no audio source (shown as the capability's reason).

    Call ``await pipeline.start()`` to load the models and open the microphone.
    """
    from aria_desktop.adapters.voice.devices import MicrophoneSource
    from aria_desktop.adapters.voice.whisper import SileroVAD
    from aria_desktop.core.voice.pipeline import VoicePipeline

    voice = settings.voice
    speech = build_speech(settings, orchestrator.bus, sink=sink)
    wake = build_wake_word(settings, speech.stt)
    if source_factory is None and use_microphone:
        device = voice.input_device

        def source_factory() -> AudioSource:
            return MicrophoneSource(device)

    pipeline = VoicePipeline(
        orchestrator=orchestrator,
        speech=speech,
        wake=wake,
        vad=SileroVAD(),
        source_factory=source_factory,
        config=voice_config(settings),
        no_source_reason=no_microphone_reason,
    )
    pipeline.install()
    return pipeline


def voice_config(settings: Settings) -> VoiceConfig:
    """The voice pipeline's behaviour from ``[voice]``."""
    from aria_desktop.core.voice.pipeline import VoiceConfig

    voice = settings.voice
    return VoiceConfig(
        wake_enabled=voice.wake.enabled,
        wake_phrases=_wake_phrases((voice.wake.model, *voice.wake.custom_models)),
        refractory_s=voice.wake.refractory_s,
        vad_threshold=voice.vad.threshold,
        silence_s=voice.vad.silence_s,
        max_command_s=voice.vad.max_s,
        no_speech_timeout_s=voice.vad.no_speech_timeout_s,
        preroll_s=voice.vad.preroll_s,
        follow_up_s=voice.follow_up_s,
        language=voice.stt.language or None,
    )


def build_wake_word(settings: Settings, stt: SpeechToText | None) -> WakeWordDetector | None:
    """The configured wake word detector (a Wyoming server or openWakeWord in-process).

    With ``voice.wake.verify`` and a local Whisper, a detection must also pass the wake
    phrase check on the same (already loaded) Whisper model (ARCHITECTURE.md, "Voice
    accuracy").
    """
    wake = settings.voice.wake
    if not wake.enabled:
        return None
    models = (wake.model, *wake.custom_models)
    if wake.engine == "wyoming":
        from aria_desktop.adapters.voice.wyoming_client import WyomingWakeWord

        return WyomingWakeWord(wake.wyoming_uri, names=models)
    from aria_desktop.adapters.voice.wake_check import WakePhraseCheck
    from aria_desktop.adapters.voice.wakeword import OpenWakeWordDetector
    from aria_desktop.adapters.voice.whisper import WhisperSTT

    confirm = None
    if wake.verify and isinstance(stt, WhisperSTT):
        confirm = WakePhraseCheck(stt, _wake_phrases(models))
    return OpenWakeWordDetector(models, threshold=wake.threshold, confirm=confirm)


def _wake_phrases(models: tuple[str, ...]) -> tuple[str, ...]:
    """The words of each wake model ("hey_jarvis" or "x/hey_jarvis_v0.1.onnx": "hey jarvis")."""
    return tuple(Path(m).stem.rsplit("_v", 1)[0].replace("_", " ").lower() for m in models if m)


def follow_memory_names(
    app: App, pipeline: VoicePipeline, stt: SpeechToText | None = None, new: Settings | None = None
) -> None:
    """Keep speech-to-text (``stt``: the pipeline's) biased toward the settings' and memory's names.

    A previous follower stops (voice settings changed live: ``stt`` and ``new`` settings).

    Only engines that take a vocabulary (local Whisper) are followed; the list is rebuilt on
    every ``memory-changed`` event (ARCHITECTURE.md, "Voice accuracy").
    """
    from aria_desktop.adapters.voice.whisper import WhisperSTT
    from aria_desktop.core.voice.stt_vocabulary import SttVocabulary
    from aria_desktop.domain.events import MemoryChanged

    stt = stt or pipeline.speech.stt
    wanted = (new or app.settings).voice.stt
    if app.vocabulary_events is not None:
        app.vocabulary_events.close()
        app.vocabulary_events = None
    if not isinstance(stt, WhisperSTT):
        return
    memory = app.memory if wanted.vocabulary_from_memory else None
    store = memory.store if memory is not None else None
    vocabulary = SttVocabulary(target=stt, fixed=wanted.vocabulary, store=store)
    events = app.orchestrator.bus.subscribe(event_filter=lambda e: isinstance(e, MemoryChanged))
    app.vocabulary_events = events
    app.orchestrator.spawn(vocabulary.follow(events), name="aria-stt-vocabulary")
