"""``ContextHook``: ctxmgr as the ``pre_model_hook`` of ``create_react_agent``.

Example::

    from langgraph.prebuilt import create_react_agent
    from ctxmgr_langgraph import ContextAgentState, ContextHook

    hook = ContextHook(max_tokens=32_000, system_prompt=PROMPT, tools=tools)
    agent = create_react_agent(model, [*tools, *hook.tools], prompt=PROMPT,
                               pre_model_hook=hook, state_schema=ContextAgentState)

On every call the hook returns ``llm_input_messages``, never empty: that channel
has no reducer and stays in the checkpoint, so a hook that skipped it on one call
would feed the model the previous call's view. Compressions also go into
``messages`` (same-id stand-ins, ``RemoveMessage``), so the compressed prefix is
the state itself and stays byte-identical until the next compression.

The hook cannot see the request's system prompt and tool schemas: pass them as
``system_prompt`` and ``tools`` so the budget counts them (ctxmgr's own tools are
counted already). The model's answer comes after the hook returns, so what a call
sent is kept in ctxmgr's channel and calibrated against the answer's
``usage_metadata`` at the next call. It runs sync under ``invoke`` / ``stream`` and
async under ``ainvoke`` / ``astream``. Each compression goes to the run's callback
handlers as the custom event ``ctxmgr.compression``, under the hook's own run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, NotRequired, Unpack

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

try:
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import RunnableConfig, RunnableLambda
    from langgraph.prebuilt.chat_agent_executor import AgentState
    from langgraph.runtime import get_runtime
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangGraph: pip install ".[langgraph]"') from exc

__all__ = ["ContextAgentState", "ContextHook"]


class ContextAgentState(AgentState):
    """``create_react_agent``'s state with ctxmgr's JSON dict (pass as ``state_schema``)."""

    ctxmgr: NotRequired[Annotated[dict[str, Any], merge_context_state]]


class ContextHook(ThreadDeletion, RunnableLambda[Mapping[str, Any], dict[str, Any]]):
    """A node that compresses the history before the model call and hands it the prompt.

    Returns ``{"llm_input_messages": prompt}`` on every call, plus the compressions
    for ``messages`` and ctxmgr's state changes when there are any.

    Args:
        config: see :class:`~ctxmgr_langgraph.ContextMiddleware` for this and the
            other options.
        system_prompt: the system prompt the model is sent (counted in the budget).
        tools: the agent's own tools (their schemas are counted in the budget).
        model: the chat model the agent calls: without a window in ``max_tokens`` or
            the config, its profile's ``max_input_tokens`` is the window, and its name
            picks the tokenizer (the hook cannot see the model otherwise).
    """

    def __init__(
        self,
        config: AutoContextConfig | None = None,
        *,
        system_prompt: str | BaseMessage | None = None,
        tools: Iterable[Any] = (),
        name: str = "ctxmgr_pre_model_hook",
        **options: Unpack[SessionOptions],
    ) -> None:
        self.sessions = GraphSessions(config, owner=type(self).__name__, **options)
        self.tools = context_tools(self.sessions)
        self.overhead = self.sessions.overhead(system_prompt, [*tools, *self.tools])
        """Tokens of the system prompt and every tool schema."""
        super().__init__(self._run, afunc=self._arun, name=name)

    @property
    def config(self) -> AutoContextConfig:
        return self.sessions.config

    def _arguments(self, state: Mapping[str, Any], config: RunnableConfig
                   ) -> tuple[list[BaseMessage], dict[str, Any] | None, dict[str, Any],
                              dict[str, Any]]:
        messages = list(_get(state, "messages") or [])
        context = _get(state, CONTEXT_KEY)
        try:
            runtime: Any = get_runtime()
        except (RuntimeError, KeyError):  # called outside a graph
            runtime = None
        learned = self.sessions.usage(context,
                                      self.sessions.answer_to_last_call(context, messages))
        if learned:
            context = merge_context_state(context, learned)
        return messages, context, learned, {
            "session": self.sessions.session_of(config, runtime), "overhead": self.overhead,
            "store": self.sessions.store_for(getattr(runtime, "store", None)),
            "run_config": config, "view_only": agent_of(config, runtime) is not None}

    def _run(self, state: Mapping[str, Any], config: RunnableConfig) -> dict[str, Any]:
        messages, context, learned, kwargs = self._arguments(state, config)
        return self._update(self.sessions.prepare(messages, context, **kwargs), learned)

    async def _arun(self, state: Mapping[str, Any], config: RunnableConfig) -> dict[str, Any]:
        messages, context, learned, kwargs = self._arguments(state, config)
        return self._update(await self.sessions.aprepare(messages, context, **kwargs), learned)

    @staticmethod
    def _update(call: PreparedCall, learned: dict[str, Any]) -> dict[str, Any]:
        # the answer comes after the hook returns: what it sent, and after which message,
        # waits in the state for the next call (see GraphSessions.answer_to_last_call)
        last = call.turn.messages[-1].id if call.turn.messages else None
        update = call.update({**learned, "sent_tokens": call.turn.sent_tokens,
                              "sent_after": last})
        update["llm_input_messages"] = call.prompt
        return update


def _get(state: Any, key: str) -> Any:
    if isinstance(state, Mapping):
        return state.get(key)
    return getattr(state, key, None)
