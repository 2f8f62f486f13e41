"""``ContextMiddleware``: ctxmgr in ``langchain.agents.create_agent``, in one line.

Example::

    from langchain.agents import create_agent
    from ctxmgr import AutoContextConfig
    from ctxmgr_langgraph import ContextMiddleware

    agent = create_agent(model, tools, system_prompt=PROMPT,
                         middleware=[ContextMiddleware(AutoContextConfig(max_tokens=128_000))])

Before every model call (``wrap_model_call`` and its async twin) the history is
compressed when it is over budget, counting the system prompt, the tool schemas
of this request and the room kept for the answer. The compressions are persisted
into ``messages`` through the reducer along with the model's answer (same-id
stand-in, ``RemoveMessage`` for the rest of the range), so later calls send the
compressed prefix unchanged until the next compression. Archived results and
written memos are shown to the model as placeholders; the originals stay in the
state or in the offload store, reloadable with ``context_reload``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, NotRequired, Unpack, cast

from ctxmgr import AutoContextConfig
from ctxmgr_langgraph.engine import ContextEngine, EngineOptions, PreparedCall
from ctxmgr_langgraph.state import CONTEXT_KEY, merge_context_state

try:
    from langchain.agents.middleware import (
        AgentMiddleware,
        AgentState,
        ExtendedModelResponse,
        ModelRequest,
        ModelResponse,
    )
    from langchain.agents.middleware.types import PrivateStateAttr
    from langchain_core.messages import AIMessage, AnyMessage
    from langgraph.types import Command
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangChain: pip install ".[langgraph]"') from exc

__all__ = ["ContextMiddleware", "ContextMiddlewareState"]


class ContextMiddlewareState(AgentState[Any]):
    """The agent state with ctxmgr's JSON dict (kept out of the agent's input and output)."""

    ctxmgr: NotRequired[Annotated[dict[str, Any], PrivateStateAttr, merge_context_state]]


class ContextMiddleware(AgentMiddleware[ContextMiddlewareState, Any, Any]):
    """Keeps a ``create_agent`` agent inside its context window.

    Args:
        config: window, trigger and strategies (``AutoContextConfig``).
        summarizer: a LangChain chat model, an object with ``summarize`` /
            ``asummarize``, ``"extractive"`` (default: deterministic, no LLM) or
            ``None`` (only the strategies that need no summary).
        counter: token counter; default exact tiktoken.
        store: where offloads and memos go: a ctxmgr ``Store`` or a LangGraph
            ``BaseStore``. Default: the graph's own store when it was compiled
            with one, else files under ``CTXMGR_HOME`` (``~/.ctxmgr``).
        project: namespace above the sessions (default: from the working directory).
        session: one fixed session for every thread (default: the thread id).
        message_archiving, memo: offer the archiving / memo tool; ``None`` reads
            ``CTXMGR_MESSAGE_ARCHIVING`` / ``CTXMGR_MEMO`` from the environment or
            ``.env`` (off when unset).
        context_reload: offer the ``context_reload`` tool (default on).
        reserve_output_tokens: room kept for the answer; overrides the config's
            (``"auto"``: an eighth of ``max_tokens``, at most 4,096).
        calibrate: scale counts by the model's reported ``usage_metadata`` input
            tokens, so budgets hold when its tokenizer is not tiktoken's.
        guidance: tell the model, in a system message, when to archive and to
            write memos (when those tools are on).
        max_memos: memos allowed per session (default 50).
        on_event: called with every ``CompressionEvent``.
    """

    state_schema = ContextMiddlewareState

    def __init__(
        self,
        config: AutoContextConfig | None = None,
        **options: Unpack[EngineOptions],
    ) -> None:
        super().__init__()
        self.engine = ContextEngine(config, **options)
        self.tools = list(self.engine.tools)

    @property
    def config(self) -> AutoContextConfig:
        return self.engine.config

    def _arguments(self, request: ModelRequest[Any]) -> dict[str, Any]:
        runtime = request.runtime
        state = request.state or {}
        return {
            "session": self.engine.session_of(None, runtime),
            "store": self.engine.store_for(getattr(runtime, "store", None)),
            "overhead": self.engine.overhead_tokens(request.system_message, request.tools),
            "state_messages": state.get("messages", ()),
        }

    def wrap_model_call(
        self, request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        context = _context(request)
        call = self.engine.prepare(request.messages, context, **self._arguments(request))
        return self._answer(call, context, handler(request.override(messages=_any(call))))

    async def awrap_model_call(
        self, request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        context = _context(request)
        call = await self.engine.aprepare(request.messages, context, **self._arguments(request))
        return self._answer(call, context, await handler(request.override(messages=_any(call))))

    def _answer(self, call: PreparedCall, context: Mapping[str, Any] | None,
                response: ModelResponse[Any] | AIMessage
                ) -> ModelResponse[Any] | ExtendedModelResponse[Any]:
        if isinstance(response, AIMessage):
            response = ModelResponse(result=[response])
        answer = next((m for m in reversed(response.result) if isinstance(m, AIMessage)), None)
        update = call.update(self.engine.calibration(context, call.sent_tokens, answer))
        if not update:
            return response
        return ExtendedModelResponse(model_response=response, command=Command(update=update))


def _context(request: ModelRequest[Any]) -> Mapping[str, Any] | None:
    value = (request.state or {}).get(CONTEXT_KEY)
    return value if isinstance(value, Mapping) else None


def _any(call: PreparedCall) -> list[AnyMessage]:
    return cast("list[AnyMessage]", call.prompt)
