"""The graphs ``bench_server.py`` serves: the example agent with and without ctxmgr.

Both are ``examples/langgraph_server/agent.py``'s ``create_agent`` graph, with one more
middleware first in the list (the outermost): it times every model call as the model
node sees it (ctxmgr's work before and after the model, and the model, which answers
at once) and appends ``{"ms", "input_tokens"}`` to the thread's ``bench_calls``, so
the client reads every call's figures from the thread's state.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, NotRequired

from agent import build_agent  # the example app, copied next to this file by the bench
from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ExtendedModelResponse,
    ModelRequest,
    ModelResponse,
)
from langchain_core.messages import AIMessage
from langgraph.types import Command


class CallTimes(AgentState[Any]):
    bench_calls: NotRequired[Annotated[list[dict[str, float]], operator.add]]


class TimeModelCalls(AgentMiddleware[CallTimes, Any, Any]):
    """Records each model call's wall time and the input tokens the model reported."""

    state_schema = CallTimes

    def wrap_model_call(self, request: ModelRequest[Any],
                        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]) -> Any:
        start = time.perf_counter()
        response = handler(request)
        return _record(response, start)

    async def awrap_model_call(
            self, request: ModelRequest[Any],
            handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]) -> Any:
        start = time.perf_counter()
        response = await handler(request)
        return _record(response, start)


def _record(response: ModelResponse[Any], start: float) -> ExtendedModelResponse[Any]:
    ms = (time.perf_counter() - start) * 1000
    answer = next((m for m in reversed(response.result) if isinstance(m, AIMessage)), None)
    usage: Any = (answer.usage_metadata or {}) if answer is not None else {}
    call = {"ms": ms, "input_tokens": float(usage.get("input_tokens", 0))}
    return ExtendedModelResponse(model_response=response,
                                 command=Command(update={"bench_calls": [call]}))


agent = build_agent(middleware=[TimeModelCalls()])
plain = build_agent(ctxmgr=False, middleware=[TimeModelCalls()])
