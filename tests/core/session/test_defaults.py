"""What an integration uses when the user gives none: one rule each for the window, the
tokenizer, the store and the summarizer."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from builders import user

from ctxmgr import ConfigError, ExtractiveSummarizer, FileStore, InMemoryStore
from ctxmgr.session import (
    UNSET,
    ModelInfo,
    choose_counter,
    choose_store,
    choose_summarizer,
    choose_window,
    in_process_store,
    summary_prompt,
)
from ctxmgr.tokens import ApproximateCounter, TiktokenCounter


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ctxmgr._warnings._warned", set())


def test_the_window_is_the_user_s_else_the_model_s_else_128k_with_one_warning() -> None:
    assert choose_window(8000, ModelInfo(window=32_000)) == 8000
    assert choose_window(UNSET, ModelInfo(window=32_000, name="gpt-4o")) == 32_000
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert choose_window(UNSET, ModelInfo(name="gpt-4o")) == 128_000
        assert choose_window(UNSET) == 128_000
    assert len(caught) == 1 and "128,000-token window is assumed" in str(caught[0].message)


def test_a_window_larger_than_the_model_s_is_refused() -> None:
    with pytest.raises(ConfigError, match="max_tokens must not exceed the model's window, "
                                          "got 200000 for a model that takes 128000"):
        choose_window(200_000, ModelInfo(window=128_000))


def test_a_model_that_says_nothing_useful_gives_nothing() -> None:
    assert ModelInfo(window=0, name="") == ModelInfo()
    assert ModelInfo(window=True) == ModelInfo()  # type: ignore[arg-type]


def test_the_tokenizer_is_the_user_s_else_the_model_s_encoding() -> None:
    given = ApproximateCounter()
    assert choose_counter(given, ModelInfo(name="gpt-4o")) is given
    counter = choose_counter(UNSET, ModelInfo(name="gpt-4o"))
    assert isinstance(counter, TiktokenCounter) and "o200k" in counter.cache_key
    with pytest.raises(ConfigError, match="counter must be a ctxmgr TokenCounter"):
        choose_counter(len)  # type: ignore[arg-type]


def test_the_store_lives_as_long_as_the_history(tmp_path: Path) -> None:
    given = InMemoryStore()
    assert choose_store(given, durable=True, home=tmp_path) is given
    files = choose_store(None, durable=True, home=tmp_path)
    assert isinstance(files, FileStore) and files.root == tmp_path
    assert choose_store(None, durable=False, home=tmp_path) is in_process_store()


def test_the_summarizer_is_chosen_one_way() -> None:
    class Model:  # a framework's chat model, as an adapter knows it
        pass

    assert isinstance(choose_summarizer(UNSET), ExtractiveSummarizer)
    assert choose_summarizer(None) is None
    own = ExtractiveSummarizer()
    assert choose_summarizer(own) is own
    wrapped = choose_summarizer(Model(), adapt=lambda m: own if isinstance(m, Model) else None)
    assert wrapped is own
    with pytest.raises(ConfigError, match="summarizer='extractive' is not accepted: leave "
                                          "summarizer out for the deterministic"):
        choose_summarizer("extractive")
    with pytest.raises(ConfigError, match="summarizer must be an object with summarize"):
        choose_summarizer(42)


def test_every_adapter_asks_its_model_for_a_summary_alike() -> None:
    assert summary_prompt([], "  ") == (None, "(no messages)")
    system, transcript = summary_prompt([user("fix the bug", id="u0")], "Keep the paths.")
    assert system == "Keep the paths." and "fix the bug" in transcript
