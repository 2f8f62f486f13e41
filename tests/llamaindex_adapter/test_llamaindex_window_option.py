"""``ContextMemory(max_tokens=N)`` takes the window directly, as ``from_defaults`` does (it
used to be ignored, leaving 128,000); without a window, a warning says once which is
assumed."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from ctxmgr import AutoContextConfig, InMemoryStore
from ctxmgr_llamaindex import ContextMemory


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ctxmgr._warnings._warned", set())


def _caught(build: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = build()
    return made, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_the_constructor_takes_max_tokens_and_keeps_it_in_its_dict() -> None:
    memory, warned = _caught(lambda: ContextMemory(max_tokens=6000, store=InMemoryStore()))
    assert memory.config.max_tokens == 6000 and warned == []
    again = ContextMemory.model_validate(memory.model_dump())
    assert again.config.max_tokens == 6000


def test_from_defaults_with_a_config_or_a_window_does_not_warn() -> None:
    for build in (lambda: ContextMemory.from_defaults(max_tokens=9000),
                  lambda: ContextMemory.from_defaults(config=AutoContextConfig())):
        assert _caught(build)[1] == []


def test_no_window_warns_once_at_the_first_call_that_128k_is_assumed() -> None:
    memory, warned = _caught(ContextMemory.from_defaults)
    assert memory.config.max_tokens == 128_000 and warned == []
    _, warned = _caught(memory.get)
    assert len(warned) == 1 and "128,000-token window is assumed" in warned[0]
    assert _caught(ContextMemory().get)[1] == []  # once per process


def test_the_llm_s_window_is_taken_when_none_is_given_without_a_warning() -> None:
    from llama_index.core.llms import MockLLM

    memory, warned = _caught(lambda: ContextMemory.from_defaults(llm=MockLLM()))
    _, more = _caught(memory.get)
    assert memory.config.max_tokens == MockLLM().metadata.context_window
    assert warned == more == []
