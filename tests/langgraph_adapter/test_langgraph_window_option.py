"""The model's window goes straight to the constructors: ``ContextMiddleware(max_tokens=N)``,
``ContextHook`` and ``ContextNode`` alike; without a window or a config, a warning says
once that 128,000 tokens are assumed and how to set it."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from test_context_tools import call, read_file, run

from ctxmgr import AutoContextConfig, CompressionEvent
from ctxmgr_langgraph import ContextHook, ContextMiddleware, ContextNode
from ctxmgr_langgraph.testing import ScriptedChatModel


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sees the once-per-process warning as a new process would."""
    monkeypatch.setattr("ctxmgr._warnings._warned", set())


def _caught(build: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("cls", [ContextMiddleware, ContextHook, ContextNode])
def test_max_tokens_is_taken_directly_without_a_warning(cls: Any) -> None:
    made: list[Any] = []
    assert _caught(lambda: made.append(cls(max_tokens=6000))) == []
    assert made[0].config.max_tokens == 6000


def test_max_tokens_overrides_the_configs_window_and_keeps_the_rest() -> None:
    middleware = ContextMiddleware(AutoContextConfig(max_tokens=50_000, token_ratio=0.5),
                                   max_tokens=8000)
    assert (middleware.config.max_tokens, middleware.config.token_ratio) == (8000, 0.5)


def _first_call(middleware: ContextMiddleware, model: Any = None) -> list[str]:
    """The warnings of a create_agent run's first model call through ``middleware``."""
    model = model or ScriptedChatModel(messages=iter(["done"]))
    graph = create_agent(model, [read_file], middleware=[middleware])
    return _caught(lambda: graph.invoke({"messages": [("user", "hi")]}))


def test_no_window_warns_once_at_the_first_call_that_128k_is_assumed_and_how_to_set_it(
        ) -> None:
    middleware = ContextMiddleware()
    assert _caught(ContextMiddleware) == []  # nothing is known of the model yet
    first = _first_call(middleware)
    assert len(first) == 1
    assert "128,000-token window is assumed" in first[0]
    assert "max_tokens=" in first[0]
    assert middleware.config.max_tokens == 128_000
    assert _first_call(ContextMiddleware(AutoContextConfig())) == []  # once per process


def test_the_chat_model_s_profile_gives_the_window_when_none_is_given() -> None:
    model = ScriptedChatModel(messages=iter(["done"]), profile={"max_input_tokens": 32_000})
    middleware = ContextMiddleware()
    assert _first_call(middleware, model) == []
    assert middleware.config.max_tokens == 32_000
    hook = ContextHook(model=model)
    assert hook.config.max_tokens == 32_000
    given = ContextMiddleware(max_tokens=16_000)
    _first_call(given, ScriptedChatModel(messages=iter(["done"]),
                                         profile={"max_input_tokens": 32_000}))
    assert given.config.max_tokens == 16_000  # the user's window wins


def test_a_create_agent_run_keeps_to_the_window_given_as_max_tokens() -> None:
    events: list[CompressionEvent] = []
    reads = [call("read_file", {"path": "big.py"}, f"c{i}", i) for i in range(4)]
    model = ScriptedChatModel(messages=iter([*reads, "done"]))
    middleware = ContextMiddleware(AutoContextConfig(reserve_output_tokens=500), max_tokens=12_000,
                                   on_event=events.append)
    graph = create_agent(model, [read_file], middleware=[middleware],
                         checkpointer=InMemorySaver())
    run(graph)
    applied = [e for e in events if e.status == "applied"]
    assert applied and applied[-1].tokens_after <= 12_000 - 500
    assert {e.to_dict()["effective_config"]["max_tokens"] for e in applied} == {12_000}
