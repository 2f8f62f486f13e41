"""AutoContextConfig: defaults, derived budgets, window-scaled sizes, validation."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest

from ctxmgr import Tuning
from ctxmgr.autocontext import AutoContextMemory
from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.prompts import (
    CURRENT_LARGE_PROMPT,
    CURRENT_ROUND_PROMPT,
    PREVIOUS_ROUND_PROMPT,
    TOOL_RUN_PROMPT,
)
from ctxmgr.autocontext.strategies import STRATEGY_NAMES
from ctxmgr.errors import ConfigError, CtxmgrError
from ctxmgr.session import UNSET

# ---------------------------------------------------------------- defaults


def test_defaults_are_the_documented_ones() -> None:
    cfg = AutoContextConfig()
    assert cfg.max_tokens is UNSET and cfg.window == 128_000  # the model's, else 128,000
    # chosen on cost and fact availability on the recorded runs (benchmarks/RESULTS.md)
    assert cfg.token_ratio == 0.8
    assert cfg.target_ratio == 0.1
    assert cfg.tuning.identifiers_chars == "auto" and cfg.identifiers_limit == 19_200
    assert cfg.msg_threshold == 100
    assert cfg.tuning.last_keep == 50
    assert cfg.tuning.large_payload_threshold == "auto" and cfg.large_chars == 5 * 1024
    assert cfg.tuning.offload_preview_chars == "auto" and cfg.preview_chars == 200
    assert cfg.tuning.min_consecutive_tool_messages == 6
    assert cfg.tuning.min_compression_tokens == "auto" and cfg.min_range_tokens == 5000
    assert cfg.tuning.current_round_compression_ratio == 0.3
    assert cfg.summary_timeout_s == 60
    assert cfg.disabled_strategies == frozenset()
    assert cfg.never_compress_tools == frozenset()
    assert cfg.pinned_ids == frozenset()


def test_summarizer_input_is_clipped_at_600_characters_by_default() -> None:
    assert AutoContextConfig().tuning.summary_input_chars == 600


def test_default_prompts_are_the_shipped_per_strategy_prompts() -> None:
    cfg = AutoContextConfig()
    assert cfg.tuning.tool_run_prompt == TOOL_RUN_PROMPT
    assert cfg.tuning.previous_round_prompt == PREVIOUS_ROUND_PROMPT
    assert cfg.tuning.current_large_prompt == CURRENT_LARGE_PROMPT
    assert cfg.tuning.current_round_prompt == CURRENT_ROUND_PROMPT
    assert "{ratio}" in CURRENT_ROUND_PROMPT  # strategy 6 fills in its target share
    for prompt in (TOOL_RUN_PROMPT, PREVIOUS_ROUND_PROMPT, CURRENT_LARGE_PROMPT,
                   CURRENT_ROUND_PROMPT):
        assert "exact arguments" in prompt and "error messages" in prompt


def test_strategy_names_number_the_strategies_cheapest_first() -> None:
    assert STRATEGY_NAMES == {1: "tool_runs", 2: "offload_protected", 3: "offload_all",
                              4: "previous_rounds", 5: "current_large", 6: "current_round",
                              7: "offload_history", 8: "offload_working_set",
                              9: "user_turns"}


# ---------------------------------------------------------------- derived budgets


def test_trigger_and_target_derive_from_the_budget() -> None:
    cfg = AutoContextConfig()
    # 128,000 less a 4,096-token reserve for the answer, less the 5 % safety margin
    assert cfg.reserve_tokens == 4096 and cfg.budget_tokens == 117_708
    assert cfg.trigger_tokens == int(117_708 * 0.8)
    assert cfg.target_tokens == int(117_708 * 0.1)


@pytest.mark.parametrize(("window", "reserve"), [(4000, 500), (16_000, 2000), (32_000, 4000),
                                                 (40_000, 4096)])
def test_the_answer_reserve_scales_with_small_windows(window: int, reserve: int) -> None:
    assert AutoContextConfig(max_tokens=window).reserve_tokens == reserve


def test_a_reserve_that_leaves_no_prompt_is_refused() -> None:
    with pytest.raises(ConfigError, match="reserve_output_tokens must leave room"):
        AutoContextConfig(max_tokens=1000, reserve_output_tokens=1000)


def test_derived_budgets_round_down_to_whole_tokens() -> None:
    cfg = AutoContextConfig(max_tokens=1001, token_ratio=0.75, target_ratio=0.5,
                            reserve_output_tokens=0, tuning=Tuning(safety_margin=0))
    assert (cfg.trigger_tokens, cfg.target_tokens) == (750, 500)


def test_on_a_large_window_the_thresholds_are_the_configured_ones() -> None:
    cfg = AutoContextConfig()
    assert cfg.large_chars == 5 * 1024
    assert cfg.min_range_tokens == 5000


@pytest.mark.parametrize(("max_tokens", "large_chars", "preview_chars", "min_range_tokens"),
                         [(4000, 500, 50, 800), (16_000, 2000, 200, 3200),
                          (20_480, 2560, 200, 4096), (25_000, 3125, 200, 5000),
                          (40_960, 5120, 200, 5000)])
def test_small_windows_scale_the_large_preview_and_worth_summarizing_thresholds_down(
        max_tokens: int, large_chars: int, preview_chars: int, min_range_tokens: int) -> None:
    cfg = AutoContextConfig(max_tokens=max_tokens)
    assert (cfg.large_chars, cfg.preview_chars, cfg.min_range_tokens) == (
        large_chars, preview_chars, min_range_tokens)


def test_cached_token_price_defaults_to_a_tenth_and_none_turns_the_gate_off() -> None:
    assert AutoContextConfig().tuning.cached_token_price == 0.1
    off = AutoContextConfig(tuning=Tuning(cached_token_price=None))
    assert off.tuning.cached_token_price is None
    with pytest.raises(ConfigError, match="cached_token_price must be in"):
        AutoContextConfig(tuning=Tuning(cached_token_price=0))


def test_every_field_is_overridable() -> None:
    cfg = AutoContextConfig(
        max_tokens=32_000, token_ratio=0.9, msg_threshold=40, target_ratio=0.4,
        reserve_output_tokens=0, summary_timeout_s=1.5,
        disabled_strategies={6}, never_compress_tools={"read_skill"}, pinned_ids={"m1"},
        tuning=Tuning(last_keep=10, large_payload_threshold=1000, offload_preview_chars=50,
                      min_consecutive_tool_messages=3, min_compression_tokens=0, safety_margin=0,
                      keep_tool_results=5, current_round_compression_ratio=0.2,
                      summary_input_chars=500, tool_run_prompt="a", previous_round_prompt="b",
                      current_large_prompt="c", current_round_prompt="d {ratio}"),
    )
    assert cfg.trigger_tokens == 28_800 and cfg.target_tokens == 12_800
    assert cfg.large_chars == 1000 and cfg.min_range_tokens == 0
    assert cfg.tuning.summary_input_chars == 500
    assert cfg.disabled_strategies == frozenset({6})
    assert cfg.never_compress_tools == frozenset({"read_skill"})
    assert cfg.pinned_ids == frozenset({"m1"})
    t = cfg.tuning
    assert (t.tool_run_prompt, t.previous_round_prompt, t.current_large_prompt,
            t.current_round_prompt) == ("a", "b", "c", "d {ratio}")


def test_enabled_reflects_disabled_strategies() -> None:
    cfg = AutoContextConfig(disabled_strategies=[1, 6])
    assert [n for n in range(1, 7) if cfg.enabled(n)] == [2, 3, 4, 5]


def test_collections_are_normalised_to_frozensets() -> None:
    cfg = AutoContextConfig(disabled_strategies=[2, 2], never_compress_tools=("skill",),
                            pinned_ids=iter(["a", "b"]))
    assert cfg.disabled_strategies == frozenset({2})
    assert cfg.never_compress_tools == frozenset({"skill"})
    assert cfg.pinned_ids == frozenset({"a", "b"})
    hash(cfg.pinned_ids)


def test_boundary_values_are_accepted() -> None:
    cfg = AutoContextConfig(token_ratio=1.0, target_ratio=1.0,
                            reserve_output_tokens=0,
                            tuning=Tuning(current_round_compression_ratio=1.0, last_keep=0,
                                          offload_preview_chars=0, min_compression_tokens=0,
                                          safety_margin=0, keep_tool_results=0))
    assert cfg.trigger_tokens == cfg.window == cfg.target_tokens == cfg.budget_tokens


# ---------------------------------------------------------------- value object


def test_config_is_frozen() -> None:
    cfg = AutoContextConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.max_tokens = 1  # type: ignore[misc]


def test_config_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        AutoContextConfig(1000)  # type: ignore[misc]


def test_replace_revalidates() -> None:
    cfg = AutoContextConfig()
    assert dataclasses.replace(cfg, max_tokens=8000).trigger_tokens == int(7000 * 0.95 * 0.8)
    with pytest.raises(ConfigError):
        dataclasses.replace(cfg, token_ratio=0)


def test_equal_settings_give_equal_configs() -> None:
    assert AutoContextConfig(pinned_ids=["a"]) == AutoContextConfig(pinned_ids={"a"})


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("token_ratio", 0),
        ("token_ratio", 1.5),
        ("token_ratio", -0.1),
        ("token_ratio", math.nan),
        ("token_ratio", True),
        ("target_ratio", 0),
        ("current_round_compression_ratio", 0),
        ("current_round_compression_ratio", 1.01),
    ],
)
def test_ratios_must_lie_in_zero_one(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=rf"{field} must be in \(0, 1\], got"):
        AutoContextConfig().evolve(**{field: value})


@pytest.mark.parametrize(
    "field",
    ["max_tokens", "msg_threshold", "max_memos", "large_payload_threshold",
     "min_consecutive_tool_messages", "summary_input_chars"],
)
@pytest.mark.parametrize("value", [0, -1])
def test_positive_fields_reject_zero_and_negatives(field: str, value: int) -> None:
    with pytest.raises(ConfigError, match=rf"{field} must be an int > 0.*, got {value}"):
        AutoContextConfig().evolve(**{field: value})


@pytest.mark.parametrize("field", ["last_keep", "keep_tool_results", "offload_preview_chars",
                                   "min_compression_tokens", "reserve_output_tokens"])
def test_non_negative_fields_reject_negatives(field: str) -> None:
    with pytest.raises(ConfigError, match=rf"{field} must be an int >= 0.*, got -1"):
        AutoContextConfig().evolve(**{field: -1})


@pytest.mark.parametrize("value", [True, "1000", None, [1000], 8000.5, 8000.0])
def test_a_window_must_be_an_int(value: object) -> None:
    """Regression: ``max_tokens=8000.5`` was accepted; bools are not numbers either."""
    with pytest.raises(ConfigError, match=rf"max_tokens must be an int > 0, got "
                                          rf"{re.escape(repr(value))}$"):
        AutoContextConfig(max_tokens=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(("field", "value", "rule"), [
    ("msg_threshold", 10.5, "an int > 0"),
    ("last_keep", False, "an int >= 0"),
    ("max_memos", True, "an int > 0"),
    ("summary_timeout_s", 0, "a number > 0"),
    ("summary_timeout_s", math.inf, "a number > 0"),
    ("summary_cooldown_s", -1, "a number >= 0"),
    ("safety_margin", 0.5, r"a number in \[0, 0.5\)"),
    ("memo", "yes", "True or False"),
    ("calibrate", 1, "True or False"),
    ("reload_hint", None, "True or False"),
    ("store_retry", 3, "a StoreRetry"),
    ("tool_run_prompt", "  ", "a non-empty str"),
    ("project", "", "a non-empty str"),
    ("max_sessions", 1.0, "an int > 0"),
])
def test_every_setting_refuses_the_wrong_type_naming_field_rule_and_value(
        field: str, value: object, rule: str) -> None:
    with pytest.raises(ConfigError, match=rf"^{field} must be {rule}, got "
                                          rf"{re.escape(repr(value)[:10])}"):
        AutoContextConfig().evolve(**{field: value})


def test_target_ratio_may_not_exceed_token_ratio() -> None:
    with pytest.raises(ConfigError, match=r"target_ratio must not exceed token_ratio"):
        AutoContextConfig(token_ratio=0.5, target_ratio=0.6)


@pytest.mark.parametrize("bad", [{0}, {-1}, {"6"}, {True}])
def test_disabled_strategies_must_be_strategy_numbers(bad: set[object]) -> None:
    with pytest.raises(ConfigError, match=r"disabled_strategies must hold strategy numbers"):
        AutoContextConfig(disabled_strategies=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [{10}, {1, 42}])
def test_a_compressor_refuses_to_disable_a_strategy_that_does_not_exist(bad: set[int]) -> None:
    config = AutoContextConfig(disabled_strategies=bad)
    with pytest.raises(ConfigError, match=r"got \[(10|42)\]; the strategies are 1 \(tool_runs\)"):
        AutoContextMemory(config)


@pytest.mark.parametrize("field", ["disabled_strategies", "never_compress_tools", "pinned_ids"])
@pytest.mark.parametrize("value", ["read_skill", 3])
def test_collection_fields_reject_strings_and_scalars(field: str, value: object) -> None:
    # a bare string would silently become a set of characters
    with pytest.raises(ConfigError, match=rf"{field} must be a collection of \w+, got"):
        AutoContextConfig(**{field: value})


def test_a_tuning_setting_given_at_the_top_says_where_it_goes() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'last_keep'"):
        AutoContextConfig(last_keep=3)  # type: ignore[call-arg]
    assert AutoContextConfig().evolve(last_keep=3).tuning.last_keep == 3
    with pytest.raises(ConfigError, match="'last_kept' is not a setting"):
        AutoContextConfig().evolve(last_kept=3)


def test_config_errors_are_value_errors_and_ctxmgr_errors() -> None:
    with pytest.raises(ValueError) as info:
        AutoContextConfig(token_ratio=1.5)
    assert isinstance(info.value, CtxmgrError)
    assert "1.5" in str(info.value)


# ---------------------------------------------------------------- window-scaled sizes


@pytest.mark.parametrize(
    ("window", "large", "preview", "min_range", "identifiers", "record", "user_note"), [
        (4_000, 500, 50, 800, 1200, 1000, 12_000),
        (16_000, 2000, 200, 3200, 2400, 4000, 48_000),
        (32_000, 4000, 200, 5000, 4800, 4000, 96_000),
        (128_000, 5120, 200, 5000, 19_200, 4000, 384_000)])
def test_auto_sizes_follow_the_window_by_their_named_rules(
        window: int, large: int, preview: int, min_range: int, identifiers: int, record: int,
        user_note: int) -> None:
    cfg = AutoContextConfig(max_tokens=window)
    assert (cfg.large_chars, cfg.preview_chars, cfg.min_range_tokens, cfg.identifiers_limit,
            cfg.record_limit, cfg.user_note_limit) == (
        large, preview, min_range, identifiers, record, user_note)


def test_the_record_comes_first_and_the_identifiers_line_takes_what_is_left() -> None:
    # 0.55 characters per window token in all, the record first (up to 0.25 and 4,000),
    # the identifiers line 0.15 per token, at least 2,400 where 0.3 per token allows it
    assert AutoContextConfig(max_tokens=16_000,
                             tuning=Tuning(record_chars=0)).identifiers_limit == 2400
    assert AutoContextConfig(max_tokens=16_000,
                             tuning=Tuning(record_chars=7000)).identifiers_limit == 1800
    assert AutoContextConfig(max_tokens=16_000,
                             tuning=Tuning(record_chars=9000)).identifiers_limit == 0


def test_a_size_given_as_a_number_is_used_as_given_on_any_window() -> None:
    cfg = AutoContextConfig(max_tokens=16_000,
                            tuning=Tuning(large_payload_threshold=5120, offload_preview_chars=300,
                                          min_compression_tokens=5000, identifiers_chars=0))
    assert (cfg.large_chars, cfg.preview_chars, cfg.min_range_tokens,
            cfg.identifiers_limit) == (5120, 300, 5000, 0)


def test_repr_shows_what_was_set_and_the_effective_values() -> None:
    text = repr(AutoContextConfig(max_tokens=16_000, tuning=Tuning(last_keep=9)))
    assert text.startswith("AutoContextConfig(max_tokens=16000, tuning=Tuning(last_keep=9); ")
    assert "effective: reserve_tokens=2000, budget_tokens=13300, trigger_tokens=10640" in text
    assert ("large_chars=2000, preview_chars=200, min_range_tokens=3200, "
            "identifiers_chars=2400, record_chars=4000, user_note_chars=48000") in text
    assert "_prompt" not in text  # the long prompts stay out unless customised


def test_every_event_carries_the_effective_values() -> None:
    from builders import C, call, result, system, user

    from ctxmgr import AutoContextMemory

    mem = AutoContextMemory(AutoContextConfig(max_tokens=8000), counter=C)
    mem.add([system(), user("task", id="u0")])
    for k in range(40):
        mem.add([call(f"c{k}", id=f"a{k}"), result(f"c{k}", "x" * 3000, id=f"t{k}")])
    events = mem.compress_if_needed()
    assert events and all(e.effective_config == AutoContextConfig(max_tokens=8000).effective()
                          for e in events)
    assert events[0].to_dict()["effective_config"]["large_chars"] == 1000


def test_a_size_must_be_a_number_or_auto() -> None:
    with pytest.raises(ConfigError, match="large_payload_threshold must be an int > 0 or 'auto'"):
        AutoContextConfig(tuning=Tuning(large_payload_threshold="big"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="identifiers_chars must be an int >= 0 or 'auto'"):
        AutoContextConfig(tuning=Tuning(identifiers_chars="many"))  # type: ignore[arg-type]
