"""``ContextMiddleware``: ctxmgr in ``langchain.agents.create_agent``, in one line.

Example::

    from langchain.agents import create_agent
    from ctxmgr import AutoContextConfig
    from ctxmgr_langgraph import ContextMiddleware

    agent = create_agent(model, tools, system_prompt=PROMPT,
                         middleware=[*other_middleware,
                                     ContextMiddleware(max_tokens=128_000)])

Before every model call (``wrap_model_call`` and its async twin) the history is
compressed when it is over budget, counting the system prompt, the tool schemas
of this request and the room kept for the answer. Each compression goes to the
run's callback handlers as the custom event ``ctxmgr.compression`` (under the model
node's run) and, with OpenTelemetry installed, is a ``ctxmgr.compress`` span. The
compressions are persisted into ``messages`` through the reducer along with the
model's answer (same-id stand-in, ``RemoveMessage`` for the rest of the range), so
later calls send the compressed prefix unchanged until the next compression. Archived results and
written memos are shown to the model as placeholders; the originals stay in the
state or in the offload store, reloadable with ``context_reload``.

**Put it last in the middleware list.** The first middleware is the outermost
wrapper, so ContextMiddleware sees the request as every middleware before it in
the list left it, and nothing that one after it adds. What the model really
receives is recorded (a LangChain callback for the duration of the call): tokens
beyond what ContextMiddleware sent are counted in every later call of the thread,
and the first time it happens a warning says to move ContextMiddleware last.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import Annotated, Any, NotRequired, Unpack, cast

from ctxmgr import AutoContextConfig
from ctxmgr_langgraph.session import (
    GraphSessions,
    PreparedCall,
    SessionOptions,
    ThreadDeletion,
    agent_of,
)
from ctxmgr_langgraph.state import CONTEXT_KEY, merge_context_state
from ctxmgr_langgraph.tools import context_tools
from ctxmgr_langgraph.tracing import current_run_config

try:
    from langchain.agents.middleware import (
        AgentMiddleware,
        AgentState,
        ExtendedModelResponse,
        ModelRequest,
        ModelResponse,
    )
    from langchain.agents.middleware.types import PrivateStateAttr
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.messages import AIMessage, AnyMessage, BaseMessage
    from langchain_core.tracers.context import register_configure_hook
    from langgraph.types import Command
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangChain: pip install ".[langgraph]"') from exc

__all__ = ["ContextMiddleware", "ContextMiddlewareState"]


class _SentMessages(BaseCallbackHandler):
    """Records the messages of every chat-model call made while it is active."""

    run_inline = True

    def __init__(self) -> None:
        self.prompts: list[list[BaseMessage]] = []

    def on_chat_model_start(self, serialized: Any, messages: list[list[BaseMessage]],
                            **kwargs: Any) -> None:
        self.prompts.extend(messages)


_SENT: ContextVar[_SentMessages | None] = ContextVar("ctxmgr_sent_messages", default=None)
register_configure_hook(_SENT, inheritable=True)


class ContextMiddlewareState(AgentState[Any]):
    """The agent state with ctxmgr's JSON dict (kept out of the agent's input and output)."""

    ctxmgr: NotRequired[Annotated[dict[str, Any], PrivateStateAttr, merge_context_state]]


class ContextMiddleware(ThreadDeletion, AgentMiddleware[ContextMiddlewareState, Any, Any]):
    """Keeps a ``create_agent`` agent inside its context window (put it last in the list).

    Example::

        ContextMiddleware(max_tokens=200_000)            # the model's context window
        ContextMiddleware(AutoContextConfig(max_tokens=200_000, token_ratio=0.7, memo=True))

    Args:
        config: every setting (``AutoContextConfig``: the window, when and how far to
            compress, the tools offered, calibration, the project...). Each field left
            out is read from ``CTXMGR_<FIELD>`` (environment, then ``.env``).
        max_tokens: the model's context window (overrides the config's). Without either,
            the window is read from the chat model's profile (``max_input_tokens``) at
            the first call, else 128,000 tokens are assumed and a warning says so, once.
        summarizer: a LangChain chat model, an object with ``summarize`` /
            ``asummarize``, or ``None`` (only the strategies that need no summary); left
            out, the deterministic extractive summarizer (no LLM).
        store: where offloads and memos go: a ctxmgr ``Store`` or a LangGraph
            ``BaseStore``. Default: the graph's own store when it was compiled
            with one, else in memory while the run's checkpointer keeps its history
            in memory (``InMemorySaver``, or none), else files under ``CTXMGR_HOME``
            (``~/.ctxmgr``). :meth:`delete_thread` removes a thread's.
        counter: token counter; left out, exact tiktoken for the chat model's name.
        on_event: called with every ``CompressionEvent``.
        session: one fixed session for every thread (default: the thread id).
        name: the middleware's name in the agent (default ``"ContextMiddleware"``).
            ``create_deep_agent`` puts a middleware named ``"SummarizationMiddleware"``
            in the place of its own summarization, in the main agent and in the
            general-purpose subagent (see the multi-agent guide).

    Raises:
        ConfigError: a bad setting (the message names it, the rule and the value).
        TypeError: a setting given as a keyword that lives in the config (the message
            says how to give it).
    """

    state_schema = ContextMiddlewareState

    def __init__(self, config: AutoContextConfig | None = None, *,
                 name: str = "ContextMiddleware", **options: Unpack[SessionOptions]) -> None:
        super().__init__()
        self.sessions = GraphSessions(config, owner="ContextMiddleware", **options)
        self.tools = context_tools(self.sessions)
        self._warned = False
        self._name = name

    @property
    def name(self) -> str:
        """Its name among the agent's middleware (two with one name are refused)."""
        return self._name

    @property
    def config(self) -> AutoContextConfig:
        return self.sessions.config

    def _arguments(self, request: ModelRequest[Any]) -> dict[str, Any]:
        self.sessions.use_model(request.model)  # its window and tokenizer, if none given
        runtime = request.runtime
        run_config = current_run_config()
        return {
            "session": self.sessions.session_of(run_config, runtime),
            "store": self.sessions.store_for(getattr(runtime, "store", None)),
            "overhead": self.sessions.overhead(request.system_message, request.tools),
            "state_messages": (request.state or {}).get("messages", ()),
            "run_config": run_config,
            "view_only": agent_of(run_config, runtime) is not None,
        }

    def wrap_model_call(
        self, request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        context, arguments = _context(request), self._arguments(request)
        call = self.sessions.prepare(request.messages, context, **arguments)
        recorder = _SentMessages()
        token = _SENT.set(recorder)
        try:
            response = handler(request.override(messages=_any(call)))
        finally:
            _SENT.reset(token)
        return self._answer(call, request, context, arguments, recorder, response)

    async def awrap_model_call(
        self, request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        context, arguments = _context(request), self._arguments(request)
        call = await self.sessions.aprepare(request.messages, context, **arguments)
        recorder = _SentMessages()
        token = _SENT.set(recorder)
        try:
            response = await handler(request.override(messages=_any(call)))
        finally:
            _SENT.reset(token)
        return self._answer(call, request, context, arguments, recorder, response)

    def _answer(self, call: PreparedCall, request: ModelRequest[Any],
                context: Mapping[str, Any] | None, arguments: dict[str, Any],
                recorder: _SentMessages, response: ModelResponse[Any] | AIMessage
                ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        if isinstance(response, AIMessage):
            response = ModelResponse(result=[response])
        answer = next((m for m in reversed(response.result) if isinstance(m, AIMessage)), None)
        where = {"session": arguments["session"], "store": arguments["store"]}
        received = None
        unseen: dict[str, Any] = {}
        if recorder.prompts:  # what the model received, after every middleware inside this
            expected = [*([request.system_message] if request.system_message else []),
                        *call.prompt]
            sent = max(recorder.prompts, key=len)

            def received() -> int:
                return self.sessions.received(call.turn.state, sent, tools=request.tools,
                                              **where)

            if not _same_messages(sent, expected):  # else nothing was added: skip counting
                unseen = self.sessions.sent_to_model(call.turn.state, expected=expected,
                                                     sent=sent, **where)
        changes = self.sessions.usage(context, answer, call.turn.sent_tokens,
                                      received=received)
        changes.update(unseen)
        if unseen.get("unseen_overhead") and not self._warned:
            self._warned = True
            message = (f"the model received {unseen['unseen_overhead']} tokens more than "
                       "ContextMiddleware sent: middleware after it in the list adds to "
                       "the request. They are counted from the next call on; put "
                       "ContextMiddleware last in create_agent's middleware list")
            warnings.warn(message, stacklevel=2)
        update = call.update(changes)
        if not update:
            return response
        return ExtendedModelResponse(model_response=response, command=Command(update=update))


def _same_messages(sent: list[BaseMessage], expected: list[BaseMessage]) -> bool:
    """Whether the model received the very messages ContextMiddleware prepared (what
    happens when no middleware inside it changed the request)."""
    return len(sent) == len(expected) and all(a is b for a, b in zip(sent, expected,
                                                                     strict=True))


def _context(request: ModelRequest[Any]) -> Mapping[str, Any] | None:
    value = (request.state or {}).get(CONTEXT_KEY)
    return value if isinstance(value, Mapping) else None


def _any(call: PreparedCall) -> list[AnyMessage]:
    return cast("list[AnyMessage]", call.prompt)
