"""SessionEngine: everything an integration does around the compressor, once.

A framework adapter owns three things: converting messages, persisting edits its
own way, and binding tools and storage. Everything else is here, the same for
every framework:

* the settings, one :class:`~ctxmgr.AutoContextConfig`, and what the user left out
  chosen by one rule (:mod:`ctxmgr.session.defaults`: the window and tokenizer from
  the model, the store, the summarizer), fixed at the first call;
* a compressor per session (store, session id and counting ratio), at most
  ``tuning.max_sessions`` of them, the least recently used dropped;
* the session of each agent of a thread (:meth:`SessionEngine.scope`, see
  :mod:`ctxmgr.session.scope`): the thread's, or the agent's own under it;
* :meth:`SessionEngine.prepare`: the session state read and validated, the history
  compressed when it needs it, and the prompt built from the working view (archived
  results and memo writes as placeholders, the tool guidance and the reload hint
  after the system messages), with the state changes to keep;
* the overhead of a request (system prompt and tool schemas, counted once) and the
  calibration of counts on the model's reported usage, against what the model
  received (:meth:`SessionEngine.received_tokens`);
* the tools it offers (:attr:`SessionEngine.tool_specs`, one JSON schema for every
  framework) and their answers (:meth:`SessionEngine.answer`: ``context_reload`` and
  ``context_search`` with one room rule and pages that line up, ``message_archiving``
  and ``memo``), each with its state change.

The same history, state and overhead give the same decisions whichever adapter
hands them over.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxmgr._unset import UNSET, Unset
from ctxmgr.archive import ARCHIVE_TOOL, handle_archive_call
from ctxmgr.autocontext.config import DEFAULT_MAX_SESSIONS, AutoContextConfig, refuse_moved
from ctxmgr.autocontext.cooldown import SummaryCooldown
from ctxmgr.autocontext.edits import Edit
from ctxmgr.autocontext.events import CompressionEvent, EventCallback
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.parts import reload_hint_for
from ctxmgr.autocontext.pipeline import check_overhead
from ctxmgr.autocontext.processor import ContextProcessor, ProcessResult
from ctxmgr.autocontext.reload import CONTEXT_RELOAD_TOOL
from ctxmgr.autocontext.search import CONTEXT_SEARCH_TOOL
from ctxmgr.autocontext.strategies import check_strategies
from ctxmgr.autocontext.summarizers import choose_summarizer
from ctxmgr.errors import ConfigError, ContextOverflowError, CtxmgrError, StoreError
from ctxmgr.memo import MEMO_TOOL, MemoStore
from ctxmgr.messages import Message
from ctxmgr.prompts import ToolSpec
from ctxmgr.session.defaults import (
    DEFAULT_MAX_TOKENS,
    ModelInfo,
    choose_counter,
    choose_window,
)
from ctxmgr.session.labels import NO_THREAD_SESSION, agent_session_label, split_agent_label
from ctxmgr.session.overhead import OverheadCounter
from ctxmgr.session.prompt import after_system, elide_memos, guidance_message, render_view
from ctxmgr.session.recovery import reload_answer, search_answer
from ctxmgr.session.refused import elide_refused
from ctxmgr.session.scope import Scope
from ctxmgr.session.state import (
    MemoElision,
    SessionState,
    ToolAnswer,
    archive_changes,
    merge_session_state,
)
from ctxmgr.store import Namespace, Store, project_dir_name
from ctxmgr.store.retention import register_agent_session
from ctxmgr.tokens import TokenCounter
from ctxmgr.tool_guard import never_raises

__all__ = ["DEFAULT_MAX_SESSIONS", "TOOLS_NAMING_CALLS", "SessionEngine", "Turn",
           "overflow_events"]

TOOLS_NAMING_CALLS = frozenset({ARCHIVE_TOOL.name, MEMO_TOOL.name})
"""ctxmgr's tools whose calls name tool calls of the run (archiving names results by
their call id; a memo write is found by its own call): a framework that keeps a run's
calls apart from the history (LlamaIndex's scratchpad) hands those over too."""


def overflow_events(exc: ContextOverflowError) -> list[CompressionEvent]:
    """The compressions made before a prompt was found not to fit (their offloads are
    written, so every adapter reports them as it reports any other)."""
    events = getattr(exc.partial, "events", None)
    return list(events) if isinstance(events, list) else []


def _answer(text: str) -> ToolAnswer:
    """A tool answer that changes nothing in the state (what a failed call gives)."""
    return ToolAnswer(text=text)


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """What one model call of a session needs, from :meth:`SessionEngine.prepare`."""

    prompt: list[Message]
    """What to send: the working view as the model sees it, ctxmgr's system messages
    after the leading system ones (a system prompt sent beside the history goes first)."""
    messages: list[Message]
    """The working view: the history with every compression applied (originals the
    model archived still whole)."""
    edits: list[Edit]
    """The compressions to persist in the history, by id (same-id stand-in, removals)."""
    events: list[CompressionEvent]
    update: dict[str, Any]
    """The session-state changes ({} when none): merge them with
    :func:`~ctxmgr.session.merge_session_state`."""
    state: dict[str, Any]
    """The session state after :attr:`update`."""
    tokens: int
    """The prompt as the compressor counts it, overhead included (at the counting ratio)."""
    sent_tokens: int
    """What the request sends, counted: :attr:`prompt` and the overhead (at the counting
    ratio). Give it back with the model's usage report: :meth:`SessionEngine.usage`."""


class SessionEngine:
    """Compression, prompt, overhead, calibration and tools of every session of an agent.

    Example (a framework's model call, in its own types around this)::

        engine = SessionEngine(AutoContextConfig(max_tokens=128_000, memo=True))
        turn = engine.prepare(history, state, store=store, session=thread_id,
                              overhead=engine.overhead(system=[PROMPT], tools=schemas))
        state = merge_session_state(state, turn.update)   # keep it with the history
        persist(turn.edits)                                # same-id stand-in, removals
        answer = model(turn.prompt)
        state = merge_session_state(state, engine.usage(state, answer.input_tokens,
                                                        turn.sent_tokens))

    Args:
        config: every setting (:class:`~ctxmgr.AutoContextConfig`: the window, the tools
            offered, calibration, the project...); default: one read from the
            environment (``CTXMGR_<FIELD>``, ``.env``). A window left out is read from
            the model (``model``, or :meth:`use_model` before the first call), else
            :data:`~ctxmgr.session.defaults.DEFAULT_MAX_TOKENS` is assumed and a warning
            says so once per process.
        summarizer: object with ``summarize`` / ``asummarize``; left out, the
            deterministic extractive summarizer; ``None``: only the strategies that need
            no summary (the rule: :mod:`ctxmgr.session.defaults`).
        counter: token counter; left out, exact tiktoken for the model's name.
        on_event: called with every :class:`~ctxmgr.CompressionEvent`.
        model: what the integration read from the framework's model (window, name).

    Raises:
        ConfigError: a bad setting.
        TypeError: a setting given as a keyword; it lives in the config (the message
            says where).
    """

    def __init__(
        self,
        config: AutoContextConfig | None = None,
        *,
        summarizer: object | None = UNSET,
        counter: TokenCounter | Unset | None = UNSET,
        on_event: EventCallback | None = None,
        model: ModelInfo | None = None,
        **moved: Any,
    ) -> None:
        refuse_moved("SessionEngine", moved)
        if config is None:
            config = AutoContextConfig()
        if not isinstance(config, AutoContextConfig):
            raise ConfigError(f"config must be an AutoContextConfig, got {config!r:.80}")
        check_strategies(config)
        self.summarizer = choose_summarizer(summarizer)
        if counter is not UNSET and counter is not None:
            choose_counter(counter)  # a clear error now, not at the first call
        if model is not None and not isinstance(model, ModelInfo):
            raise ConfigError(f"model must be a ModelInfo, got {model!r:.80}")
        if on_event is not None and not callable(on_event):
            raise ConfigError(f"on_event must be callable, got {on_event!r:.80}")
        self._given = config
        self._given_counter = counter
        self._model = model
        self._settled: tuple[AutoContextConfig, TokenCounter] | None = None
        self.project = config.project if config.project is not UNSET else project_dir_name()
        Namespace(self.project, NO_THREAD_SESSION, "offload")  # a clear error now, not later
        self.on_event = on_event
        self.summary_cooldown = SummaryCooldown(config.tuning.summary_cooldown_s)
        """One cool-down for every session: a summarizer that timed out in one thread is
        not called from another until it has passed."""
        self.guidance = guidance_message(message_archiving=config.message_archiving,
                                         memo=config.memo) if config.guidance else None
        self._overhead: OverheadCounter | None = None  # built once the counter is settled
        self._processors: OrderedDict[tuple[int, str, float],
                                      tuple[Store, ContextProcessor]] = OrderedDict()
        self._registered: set[tuple[int, str]] = set()
        """(store, agent session) pairs noted under their thread (see :meth:`processor`)."""
        self._lock = threading.Lock()

    @property
    def calibrate(self) -> bool:
        """Whether counts are scaled by the model's reported usage (``config.calibrate``)."""
        return self._given.calibrate

    # -- the window and tokenizer ----------------------------------------------------------

    def use_model(self, model: ModelInfo) -> None:
        """Read the window and tokenizer from the framework's model, where the user gave
        none. Only the first model counts, and only before the first call is prepared:
        an agent's window does not change under its sessions."""
        if self._settled is not None or self._model is not None:
            return
        with self._lock:
            if self._settled is None and self._model is None:
                self._model = model

    def _settle(self) -> tuple[AutoContextConfig, TokenCounter]:
        """The config and counter every session works with, fixed at the first use."""
        settled = self._settled
        if settled is not None:
            return settled
        with self._lock:
            if self._settled is None:
                window = choose_window(self._given.max_tokens, self._model)
                config = (self._given if self._given.max_tokens == window
                          else dataclasses.replace(self._given, max_tokens=window))
                self._settled = (config, choose_counter(self._given_counter, self._model))
            return self._settled

    @property
    def config(self) -> AutoContextConfig:
        """The settings every session works with, the window resolved (see
        :mod:`ctxmgr.session.defaults`; before the first call, what it would be now)."""
        if self._settled is not None:
            return self._settled[0]
        if self._given.max_tokens is not UNSET:
            return self._given
        model = self._model.window if self._model is not None else None
        return dataclasses.replace(self._given, max_tokens=model or DEFAULT_MAX_TOKENS)

    @property
    def counter(self) -> TokenCounter:
        """The token counter every session counts with (fixed at the first use)."""
        return self._settle()[1]

    # -- what the agent is offered -------------------------------------------------------

    @property
    def tool_specs(self) -> list[ToolSpec]:
        """ctxmgr's tools this engine offers, in neutral form (an adapter binds them)."""
        config = self._given
        specs = [CONTEXT_RELOAD_TOOL, CONTEXT_SEARCH_TOOL] if config.context_reload else []
        if config.message_archiving:
            specs.append(ARCHIVE_TOOL)
        if config.memo:
            specs.append(MEMO_TOOL)
        return specs

    # -- sessions ------------------------------------------------------------------------

    def scope(self, session: str, agent: str | None = None, *,
              shared_history: bool = False) -> Scope:
        """Where the agent ``agent`` of the thread whose session is ``session`` keeps its
        offloads, search and memos (see :mod:`ctxmgr.session.scope`).

        Args:
            session: the thread's session label (:func:`~ctxmgr.session.session_label`).
            agent: the name the framework gives the calling agent when it runs inside
                another agent's run (a subagent, a specialist, a swarm member, a
                workflow's agent); ``None`` for the outermost agent.
            shared_history: the agents of the thread compress one history together (a
                LlamaIndex ``AgentWorkflow``'s memory): its offloads and search are the
                thread's, and only the agent's memos are its own.
        """
        config = self._given
        if agent is None or not config.agent_sessions:
            return Scope.of_thread(session)
        own = agent_session_label(session, agent)
        return Scope(session=session if shared_history else own,
                     memos=session if config.team_memos else own, thread=session,
                     agent=agent)

    def processor(self, store: Store, session: str | Scope,
                  state: SessionState | None = None) -> ContextProcessor:
        """The compressor of one session: offloads under ``project / session`` in
        ``store``, counting at the session's calibrated ratio. An agent's session is
        noted under its thread's the first time, so deleting the thread deletes it."""
        scope = _scope_of(session)
        self._register(store, scope)
        return self._processor_of(store, scope, state)

    def _processor_of(self, store: Store, scope: Scope,
                      state: SessionState | None) -> ContextProcessor:
        """:meth:`processor`, the store not asked (the caller registered the scope)."""
        session = scope.session
        ratio = (state.calibration.counting_ratio if state is not None and self.calibrate
                 else 1.0)
        key = (id(store), session, ratio)
        config, base = self._settle()
        with self._lock:
            hit = self._processors.get(key)
            if hit is not None and hit[0] is store:
                self._processors.move_to_end(key)
                return hit[1]
            counter = (state.calibration.counter(base)
                       if state is not None and self.calibrate else base)
            processor = ContextProcessor(
                config, counter=counter, summarizer=self.summarizer, store=store,
                project=self.project, session=session, on_event=self.on_event,
                summary_cooldown=self.summary_cooldown)
            # a new calibration ratio: the ranges read for the old one are the same ranges
            twin = next((p for k, (s, p) in self._processors.items()
                         if k[:2] == key[:2] and s is store), None)
            if twin is not None:
                processor.hidden = twin.hidden
            self._processors[key] = (store, processor)  # the store is held: its id stays
            while len(self._processors) > config.tuning.max_sessions:
                self._processors.popitem(last=False)
            return processor

    def _unregistered(self, store: Store, scope: Scope) -> set[str]:
        """The agent sessions of ``scope`` not yet noted under its thread's in ``store``."""
        return {label for label in {scope.session, scope.memos} - {scope.thread}
                if (id(store), label) not in self._registered}

    def _register(self, store: Store, scope: Scope) -> None:
        """Note an agent's sessions under its thread's, once per store and process (a
        store that fails here is told again later; compression goes on meanwhile)."""
        for label in self._unregistered(store, scope):
            key = (id(store), label)
            try:
                register_agent_session(store, project=self.project, session=scope.thread,
                                       agent=label)
            except (StoreError, OSError):
                continue
            with self._lock:
                self._registered.add(key)

    def forget(self, session: str) -> None:
        """Drop the processors kept for ``session`` and for its agents' sessions (its
        stored data was deleted)."""
        def of_session(label: str) -> bool:
            split = split_agent_label(label)
            return label == session or (split is not None and split[0] == session)

        with self._lock:
            for key in [k for k in self._processors if of_session(k[1])]:
                del self._processors[key]
            self._registered = {k for k in self._registered if not of_session(k[1])}

    def memos(self, store: Store, session: str | Scope) -> MemoStore:
        """The memos of one session (an agent's, or its team's: ``team_memos``)."""
        scope = _scope_of(session)
        self._register(store, scope)
        return MemoStore(store, session=scope.memos, project=self.project,
                         max_memos=self._given.max_memos)

    # -- what a request sends beside the history -----------------------------------------

    def overhead(self, *, system: Iterable[str] = (),
                 tools: Iterable[Mapping[str, Any]] = ()) -> int:
        """Tokens a request sends beside the history: its system prompt(s) and the OpenAI
        schemas of its tools as the framework sends them. Counted once per text (see
        :mod:`ctxmgr.session.overhead`); ctxmgr's own guidance and hint are counted by
        :meth:`prepare`, which puts them in the prompt."""
        counter = self.counter
        overhead = self._overhead
        if overhead is None or overhead.counter is not counter:
            overhead = self._overhead = OverheadCounter(counter)
        return overhead.total(system=system, tools=tools)

    # -- one model call ------------------------------------------------------------------

    def prepare(self, history: Sequence[Message], state: Mapping[str, Any] | None, *,
                store: Store, session: str | Scope, overhead: int = 0,
                persisted: Callable[[Edit], bool] | None = None,
                force: bool = False) -> Turn:
        """Compress ``history`` if it needs it and build the prompt.

        Args:
            history: every message of the session as the framework holds it, in order,
                each with its own id (a system prompt sent beside it is not in it).
            state: the session state as kept so far (``None`` at first); a damaged part
                is left out with a warning (see :mod:`ctxmgr.session.state`). A written
                memo's ``content`` is counted, and compressed, as its placeholder (the
                memo is in the store): a memo larger than the budget never overflows it.
            store, session: where this session's originals and memos are.
            overhead: :meth:`overhead` of the request (the state's ``unseen_overhead``,
                what the model received beyond what the integration saw, is added).
            persisted: which edits the framework persists along with this prompt (their
                stand-ins are then kept once, in the history); ``None``: not known.
            force: compress even below the trigger.

        Raises:
            ConfigError: ``overhead`` is not an int >= 0.
            ContextOverflowError: the pinned messages alone exceed the budget.
            InvalidMessageError: two messages of ``history`` share an id.
        """
        check_overhead(overhead, "overhead")
        current = SessionState.from_json(state)
        processor = self.processor(store, session, current)
        beside = self._scaled(overhead, processor) + current.unseen_overhead
        counted = elide_refused(elide_memos(history, current.memos))
        result = processor.process(counted, current.compression, overhead_tokens=beside,
                                   persisted=persisted, force=force)
        return self._turn(_unelided(result, history, counted), state, current, processor,
                          beside)

    async def aprepare(self, history: Sequence[Message], state: Mapping[str, Any] | None, *,
                       store: Store, session: str | Scope, overhead: int = 0,
                       persisted: Callable[[Edit], bool] | None = None,
                       force: bool = False) -> Turn:
        """Async twin of :meth:`prepare` (the summarizer is awaited). The store is asked
        only in worker threads, so a store bound to the running loop (LangGraph's async
        stores, the LangGraph server's) serves it; a call that compresses nothing stays on
        the loop."""
        import asyncio  # already loaded: an event loop runs this

        check_overhead(overhead, "overhead")
        scope = _scope_of(session)
        if self._unregistered(store, scope):  # a store failing here is asked next call
            await asyncio.to_thread(self._register, store, scope)
        current = SessionState.from_json(state)
        processor = self._processor_of(store, scope, current)
        beside = self._scaled(overhead, processor) + current.unseen_overhead
        counted = elide_refused(elide_memos(history, current.memos))
        result = await processor.aprocess(counted, current.compression,
                                          overhead_tokens=beside, persisted=persisted,
                                          force=force)
        return self._turn(_unelided(result, history, counted), state, current, processor,
                          beside)

    def _scaled(self, overhead: int, processor: ContextProcessor) -> int:
        """``overhead`` (base counter) at the processor's ratio, with the guidance."""
        scaled = self._ratio_of(overhead, processor)
        return scaled + (processor.counter.count(self.guidance) if self.guidance else 0)

    @staticmethod
    def _ratio_of(overhead: int, processor: ContextProcessor) -> int:
        """``overhead`` (base counter) at the processor's ratio."""
        ratio = getattr(processor.counter, "ratio", 1.0)
        return overhead if ratio == 1.0 else math.ceil(overhead * ratio)

    def _turn(self, result: ProcessResult, state: Mapping[str, Any] | None,
              current: SessionState, processor: ContextProcessor, beside: int) -> Turn:
        update: dict[str, Any] = {}
        if result.state != (current.compression or {}) and (
                current.compression or result.state.get("stand_ins")):
            update["compression"] = result.state
        if current.overhead != beside:
            update["overhead"] = beside
        update.update(_pruned(current, result.messages))
        hinted = len(result.prompt) != len(result.messages)
        shown = render_view(result.messages, current)
        counter = processor.counter
        rendering = sum(counter.count(a) - counter.count(b)
                        for a, b in zip(shown, result.messages, strict=True) if a is not b)
        unsent_hint = 0 if hinted else processor.hint_tokens
        return Turn(prompt=self._with_system(shown, processor.hint if hinted else None),
                    messages=result.messages, edits=result.edits, events=result.events,
                    update=update, state=merge_session_state(state, update),
                    tokens=result.tokens, sent_tokens=result.tokens + rendering - unsent_hint)

    def prompt(self, messages: Sequence[Message], state: Mapping[str, Any] | None
               ) -> list[Message]:
        """The prompt for ``messages`` as they are, compressing nothing (what
        :attr:`Turn.prompt` is for a working view that needs no compression)."""
        current = SessionState.from_json(state)
        hint = (reload_hint_for(self.config, self.counter)
                if any(CompressedMarker.of(m) for m in messages) else None)
        return self._with_system(render_view(messages, current), hint)

    def _with_system(self, shown: list[Message], hint: Message | None) -> list[Message]:
        """ctxmgr's system messages (guidance, then the reload hint) after the leading ones."""
        return after_system(shown, [m for m in (self.guidance, hint) if m is not None])

    # -- the model's usage report ----------------------------------------------------------

    def received_tokens(self, sent: Sequence[Message], state: Mapping[str, Any] | None, *,
                        store: Store, session: str | Scope, overhead: int = 0) -> int:
        """What a request the model received counts, at the session's ratio: ``sent``, its
        messages as they reached the model (after every other middleware or wrapper), and
        ``overhead`` (:meth:`overhead` of what went beside them, its tool schemas). This is
        what :meth:`usage` calibrates against: counting what ctxmgr meant to send instead
        would count what others added twice, in the ratio and in ``unseen_overhead``."""
        processor = self.processor(store, session, SessionState.from_json(state))
        return processor.counter.count_messages(sent) + self._ratio_of(overhead, processor)

    def usage(self, state: Mapping[str, Any] | None, reported: Any,
              sent_tokens: int | None = None) -> dict[str, Any]:
        """The state change once the model reported the input tokens of a call ({} when
        there is nothing to learn).

        Args:
            reported: the input tokens the provider reported (anything else is ignored).
            sent_tokens: :attr:`Turn.sent_tokens` of that call; ``None``: the one kept in
                the state with ``{"sent_tokens": ...}`` when the call was prepared (for
                integrations that see the answer only at the next call).
        """
        current = SessionState.from_json(state)
        update: dict[str, Any] = {}
        if sent_tokens is None:
            sent_tokens = current.sent_tokens
            if sent_tokens is not None:
                update["sent_tokens"] = None
            if current.sent_after is not None:
                update["sent_after"] = None
        if self.calibrate and sent_tokens is not None:
            after = current.calibration.observed(counted=sent_tokens, reported=reported)
            if after is not None:
                update["calibration"] = after.to_json()
        return update

    def observe(self, state: Mapping[str, Any] | None, *, expected: Sequence[Message],
                sent: Sequence[Message], store: Store,
                session: str | Scope) -> dict[str, Any]:
        """The state change once the messages the model actually received are known.

        An integration that cannot see the whole request when it prepares a call (a
        middleware with others inside it, a memory a chat engine wraps in its own text)
        gives here what it ``expected`` the model to receive and what it was ``sent``;
        the tokens beyond it raise the session's ``unseen_overhead``, counted in every
        later call ({} when it did not change). It keeps the largest seen: a chat engine
        packs retrieved text into the room it finds, so what it adds shrinks as the
        history grows, and the history must not grow into that room. Messages are matched
        by id and content.
        """
        current = SessionState.from_json(state)
        counter = self.processor(store, session, current).counter
        want = {m.id: m for m in expected}
        got = {m.id: m for m in sent}
        extra = (sum(counter.count(m) for m in sent if want.get(m.id) != m)
                 - sum(counter.count(m) for m in expected if got.get(m.id) != m))
        if extra <= current.unseen_overhead:
            return {}
        return {"unseen_overhead": extra}

    # -- ctxmgr's tools --------------------------------------------------------------------

    def answer(self, name: str, tool_input: Any, history: Sequence[Message],
               state: Mapping[str, Any] | None, *, store: Store, session: str | Scope,
               tool_use_id: str | None = None) -> ToolAnswer:
        """Answer a call of ctxmgr's tool ``name`` (one of :attr:`tool_specs`), with its
        arguments as the model sent them; never raises on the model's input.

        Args:
            history: the session's messages, the call's own assistant message included.
            tool_use_id: the call's id, when the framework gives it (a memo write is then
                found by it; else by its arguments).
        """
        if name == CONTEXT_RELOAD_TOOL.name:
            return self.reload(tool_input, history, state, store=store, session=session)
        if name == CONTEXT_SEARCH_TOOL.name:
            return self.search(tool_input, history, state, store=store, session=session)
        if name == ARCHIVE_TOOL.name:
            return self.archive(tool_input, history, state)
        if name == MEMO_TOOL.name:
            return self.memo(tool_input, history, store=store, session=session,
                             tool_use_id=tool_use_id)
        return _answer(f"Error: ctxmgr has no tool {name!r}.")

    @never_raises("context_reload", _answer)
    def reload(self, tool_input: Any, history: Sequence[Message],
               state: Mapping[str, Any] | None, *, store: Store,
               session: str | Scope) -> ToolAnswer:
        """Answer ``context_reload`` within the room the prompt (``history`` and what the
        state says is sent beside it) leaves; never raises on the model's input."""
        current = SessionState.from_json(state)
        processor = self.processor(store, session, current)
        view = _view(processor, history, current)
        return reload_answer(processor, tool_input, state=current,
                             used_tokens=_used(processor, view, current))

    @never_raises("context_search", _answer)
    def search(self, tool_input: Any, history: Sequence[Message],
               state: Mapping[str, Any] | None, *, store: Store,
               session: str | Scope) -> ToolAnswer:
        """Answer ``context_search`` over what the session hid from the model (offloaded
        ranges, memos, archived results), within the room the prompt leaves; never
        raises on the model's input."""
        current = SessionState.from_json(state)
        processor = self.processor(store, session, current)
        view = _view(processor, history, current)
        return search_answer(processor, tool_input, state=current, view=view,
                             used_tokens=_used(processor, view, current),
                             memos=self.memos(store, session) if self._given.memo else None)

    @never_raises("message_archiving", _answer)
    def archive(self, tool_input: Any, history: Sequence[Message],
                state: Mapping[str, Any] | None) -> ToolAnswer:
        """Answer ``message_archiving`` on ``history``; the archive is a state change,
        the history is never edited. Never raises on the model's input."""
        before = SessionState.from_json(state).archive
        after, text = handle_archive_call(history, before, tool_input, config=self.config)
        return ToolAnswer(text=text, update=archive_changes(before, after))

    @never_raises("memo", _answer)
    def memo(self, tool_input: Any, history: Sequence[Message], *, store: Store,
             session: str | Scope, tool_use_id: str | None = None) -> ToolAnswer:
        """Answer ``memo``; after a write, the call's ``content`` is shown elided from then
        on (a state change). Never raises on the model's input.

        Args:
            history: the session's messages, the assistant message making this call
                included: the call is found there, by ``tool_use_id`` or, without one,
                as the latest ``memo`` write with these arguments.
        """
        result = self.memos(store, session).run_memo_call(tool_input)
        if result.placeholder is None:
            return ToolAnswer(text=result.text)
        found = _memo_call(history, tool_use_id, tool_input)
        if found is None:
            return ToolAnswer(text=result.text)
        elision = MemoElision(message_id=found[0], tool_use_id=found[1],
                              placeholder=result.placeholder)
        return ToolAnswer(text=result.text, update={"memos_add": [elision.to_json()]})

    def __repr__(self) -> str:
        return (f"SessionEngine({self.config!r}, project={self.project!r}, "
                f"tools={[s.name for s in self.tool_specs]})")


def _scope_of(session: str | Scope) -> Scope:
    """A session given by its label alone is the scope of the thread's own agent."""
    return session if isinstance(session, Scope) else Scope.of_thread(session)


def _view(processor: ContextProcessor, history: Sequence[Message],
          current: SessionState) -> list[Message]:
    """The working view a tool call is answered beside: ``history`` with the stand-ins the
    state records (a framework that kept the originals hands those over)."""
    try:
        return processor.view(history, current.compression)
    except CtxmgrError:
        return list(history)


def _used(processor: ContextProcessor, view: Sequence[Message], current: SessionState) -> int:
    """Tokens of the prompt as it stands: the view, the hint and what is sent beside."""
    return processor.counter.count_messages(view) + processor.hint_tokens + current.overhead


def _unelided(result: ProcessResult, history: Sequence[Message],
              counted: Sequence[Message]) -> ProcessResult:
    """``result`` with the memo calls it kept as they are in ``history``: they were
    counted as their placeholder (:func:`~ctxmgr.session.prompt.elide_memos`), and the
    history is never edited for a memo."""
    swap = {id(c): h for c, h in zip(counted, history, strict=True) if c is not h}
    if not swap:
        return result
    return dataclasses.replace(result, messages=[swap.get(id(m), m) for m in result.messages])


def _pruned(state: SessionState, view: Sequence[Message]) -> dict[str, Any]:
    """Drop archive entries and memo elisions whose message left the working view."""
    if not state.archive.entries and not state.memos:
        return {}
    present = {m.id for m in view}
    changes: dict[str, Any] = {}
    archived = state.archive.to_dict()["archived"]
    if gone := [e for e in archived if e["message_id"] not in present]:
        changes["archive_remove"] = gone
    kept = [e for e in state.memos if e.message_id in present]
    if len(kept) != len(state.memos):
        changes["memos"] = [e.to_json() for e in kept]
    return changes


def _memo_call(history: Sequence[Message], tool_use_id: str | None,
               tool_input: Any) -> tuple[str, str] | None:
    """(message id, tool-use id) of the latest memo call ``tool_use_id`` names or, without
    it, of the latest memo write whose arguments are ``tool_input``."""
    for m in reversed(history):
        for use in reversed(m.tool_uses):
            if tool_use_id is not None:
                if use.id == tool_use_id:
                    return m.id, use.id
            elif (use.name == MEMO_TOOL.name and isinstance(tool_input, Mapping)
                  and use.input.get("action") == "write"
                  and use.input.get("key") == tool_input.get("key")
                  and use.input.get("content") == tool_input.get("content")):
                return m.id, use.id
    return None
