"""Token counters: exact tiktoken counts, structure, per-message cache, running tally."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import neutral_conversations, openai_conversations

from ctxmgr.convert.openai import from_openai
from ctxmgr.errors import ConfigError
from ctxmgr.messages import (
    Message,
    OpaqueBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    text_message,
)
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.session.calibration import Calibration
from ctxmgr.tokens import (
    LINE_START,
    ApproximateCounter,
    CallableCounter,
    TiktokenCounter,
    TokenTally,
    encoding_name_for_model,
)

ENCODINGS = ["cl100k_base", "o200k_base"]


def _texts(trajectories: list[Trajectory]) -> list[str]:
    """Every string a provider would tokenize in these runs."""
    out: list[str] = []
    for t in trajectories:
        for m in t.messages:
            out.append(m.text)
            out.extend(r.text for r in m.tool_results)
            for u in m.tool_uses:
                out.extend([u.id, u.name, u.raw_input or ""])
    return out


def _cookbook_count(raw: list[dict[str, Any]], enc: tiktoken.Encoding) -> int:
    """OpenAI cookbook's num_tokens_from_messages, extended to tool calls as documented."""
    def n(s: str) -> int:
        return len(enc.encode(s, disallowed_special=()))

    total = 3  # reply primer
    for m in raw:
        total += 3
        for key in ("role", "content", "name", "tool_call_id"):
            if isinstance(m.get(key), str):
                total += n(m[key])
        if "name" in m:
            total += 1
        for call in m.get("tool_calls") or ():
            fn = call["function"]
            total += 3 + n(call["id"]) + n(fn["name"]) + n(fn["arguments"])
    return total


def _counting_fn() -> tuple[list[str], CallableCounter]:
    seen: list[str] = []

    def fn(text: str) -> int:
        seen.append(text)
        return len(text.split())

    return seen, CallableCounter(fn)


# --------------------------------------------------------------------------- exactness


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_count_text_equals_tiktoken_on_real_trajectory_text(
    encoding: str, fixture_trajectories: list[Trajectory]
) -> None:
    counter = TiktokenCounter(encoding=encoding)
    reference = tiktoken.get_encoding(encoding)
    texts = _texts(fixture_trajectories)
    assert len(texts) > 1000
    for text in texts:
        assert counter.count_text(text) == len(reference.encode(text, disallowed_special=()))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_count_messages_equals_openai_cookbook_accounting_on_raw_trajectories(
    encoding: str, fixture_trajectories: list[Trajectory]
) -> None:
    counter = TiktokenCounter(encoding=encoding)
    reference = tiktoken.get_encoding(encoding)
    for t in fixture_trajectories:
        assert counter.count_messages(t.messages) == _cookbook_count(list(t.raw), reference), t.id


@pytest.mark.slow
def test_count_messages_equals_cookbook_accounting_on_every_shared_trajectory(
    shared_trajectories: list[Trajectory],
) -> None:
    counter = TiktokenCounter(encoding="o200k_base")
    reference = tiktoken.get_encoding("o200k_base")
    for t in shared_trajectories:
        assert counter.count_messages(t.messages) == _cookbook_count(list(t.raw), reference), t.id


def test_special_token_text_counts_as_plain_text() -> None:
    counter = TiktokenCounter(encoding="cl100k_base")
    text = "the file ends with <|endoftext|> and <|fim_prefix|>"
    enc = tiktoken.get_encoding("cl100k_base")
    assert counter.count_text(text) == len(enc.encode(text, disallowed_special=()))


def test_plain_message_costs_framing_role_and_text() -> None:
    counter = TiktokenCounter(encoding="o200k_base")
    enc = tiktoken.get_encoding("o200k_base")
    m = text_message("user", "Please fix the failing test in parser.py")
    assert counter.count(m) == 3 + len(enc.encode("user")) + len(enc.encode(m.text))
    assert counter.count_messages([m, m]) == 3 + 2 * counter.count(m)


# --------------------------------------------------------------------------- model names


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini-2024-07-18", "o200k_base"),
        ("chatgpt-4o-latest", "o200k_base"),
        ("gpt-4.1", "o200k_base"),
        ("gpt-4.1-nano", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("gpt-5.1-codex", "o200k_base"),
        ("o1", "o200k_base"),
        ("o1-preview", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("o4-mini", "o200k_base"),
        ("openai:gpt-4o", "o200k_base"),
        ("azure/gpt-4.1-mini", "o200k_base"),
        ("ft:gpt-4o-2024-08-06:my-org::abc123", "o200k_base"),
        ("GPT-4O", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("claude-sonnet-4-5", "cl100k_base"),
        ("deepseek-chat", "cl100k_base"),
        ("solo1", "cl100k_base"),
        ("", "cl100k_base"),
        (None, "cl100k_base"),
    ],
)
def test_model_name_picks_encoding(model: str | None, encoding: str) -> None:
    assert encoding_name_for_model(model) == encoding


def test_tiktoken_counter_for_a_model_uses_its_encoding_and_cache_key() -> None:
    new, old = TiktokenCounter("gpt-4o"), TiktokenCounter("gpt-4")
    assert new.encoding.name == "o200k_base" and old.encoding.name == "cl100k_base"
    assert new.cache_key != old.cache_key
    assert TiktokenCounter("gpt-4o-mini").cache_key == new.cache_key


def test_tiktoken_counter_accepts_a_ready_encoding() -> None:
    enc = tiktoken.get_encoding("cl100k_base")
    counter = TiktokenCounter(encoding=enc)
    assert counter.encoding is enc
    assert counter.cache_key == TiktokenCounter(encoding="cl100k_base").cache_key


# --------------------------------------------------------------------------- line sums

_PIECES = [*"abcXYZ019 \t\n\r/\\'\"-_.,:;(){}[]<>#$%^&*+=|~`!?@",
           "é", "中", "🙂", "\u00a0", "\u2028", "\x0b", "\x1c", "'s", "'ll", "  ", "\n\n",
           "\r\n", "//", "/*", "...", "\n/", "    ", "123456", "ünï", "\n    def ", "\n\t}"]


def _cut_counts(counter: TiktokenCounter, text: str) -> list[tuple[int, int]]:
    """(cut, exact tokens of the text before it) at every LINE_START cut, and the sum of
    the pieces' counts up to it."""
    cuts = [m.end() for m in LINE_START.finditer(text)]
    out, at, seen = [], 0, 0
    for cut in [*cuts, len(text)]:
        seen += counter.count_text(text[at:cut])
        out.append((counter.count_text(text[:cut]), seen))
        at = cut
    return out


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_counts_add_up_where_a_line_starts_with_a_printable_character(encoding: str) -> None:
    """What makes a range cost one count to cut into pages: cut at every LINE_START, the
    pieces' counts sum to the count of each prefix, on 1,500 generated texts of code,
    whitespace, line ends of every kind, slashes and non-ASCII characters."""
    counter = TiktokenCounter(encoding=encoding)
    assert counter.line_sum() is not None
    rng = random.Random(encoding)
    cuts = 0
    for _ in range(1500):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 300)))
        pairs = _cut_counts(counter, text)
        assert all(exact == summed for exact, summed in pairs), repr(text)
        cuts += len(pairs) - 1
    assert cuts > 5000


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES) | st.text(max_size=3), max_size=120).map("".join),
       st.sampled_from(ENCODINGS))
def test_counts_add_up_at_line_starts_on_any_text(text: str, encoding: str) -> None:
    counter = TiktokenCounter(encoding=encoding)
    assert all(exact == summed for exact, summed in _cut_counts(counter, text))


def test_a_cut_after_any_line_break_would_not_add_up() -> None:
    """Why LINE_START is narrow: before a blank line, or a line starting with '/', the
    tokenizers join pieces across the line break."""
    cl100k, o200k = (TiktokenCounter(encoding=e) for e in ENCODINGS)
    assert cl100k.count_text("x \n \n") != (cl100k.count_text("x \n")
                                             + cl100k.count_text(" \n"))
    assert o200k.count_text("f(a):\n/usr") != (o200k.count_text("f(a):\n")
                                               + o200k.count_text("/usr"))


def test_only_counters_known_to_add_up_say_so() -> None:
    other = tiktoken.Encoding("p50k_like", pat_str=r"\S+|\s+",
                              mergeable_ranks=tiktoken.get_encoding("cl100k_base")._mergeable_ranks,
                              special_tokens={})
    assert TiktokenCounter(encoding=other).line_sum() is None
    assert ApproximateCounter().line_sum() is None
    assert CallableCounter(len).line_sum() is None
    base = TiktokenCounter(encoding="cl100k_base")
    scaled = Calibration(ratio=1.3).counter(base)
    counter, total = scaled.line_sum() or (None, None)
    assert counter is base and total is not None
    text = "def f():\n    return 1\n" * 40
    assert total(base.count_text(text)) == scaled.count_text(text)


# --------------------------------------------------------------------------- structure


COUNTERS = [
    pytest.param(lambda: TiktokenCounter(encoding="cl100k_base"), id="tiktoken"),
    pytest.param(ApproximateCounter, id="approx"),
    pytest.param(lambda: CallableCounter(lambda s: 0), id="zero-callable"),
]


@pytest.mark.parametrize("make", COUNTERS)
def test_tool_calls_ids_and_opaque_blocks_never_count_zero(make: Any) -> None:
    counter = make()
    empty = Message(role="assistant", content=())
    call = Message(role="assistant", content=(ToolUseBlock(id="c1", name="f", input={}),))
    result = Message(role="tool", content=(ToolResultBlock(tool_use_id="c1", content=""),))
    bare_result = Message(role="tool", content=())
    opaque = Message(role="user", content=(OpaqueBlock(data={}),))
    bare_user = Message(role="user", content=())
    assert counter.count(call) > counter.count(empty)
    assert counter.count(result) > counter.count(bare_result)
    assert counter.count(opaque) > counter.count(bare_user)


@pytest.mark.parametrize("make", COUNTERS[:2])
def test_tool_call_id_name_and_arguments_are_all_counted(make: Any) -> None:
    counter = make()
    args = {"path": "src/parser.py", "pattern": "def parse_" * 20}
    base = ToolUseBlock(id="call_1", name="grep", input=args)
    cost = counter.count(Message(role="assistant", content=(base,)))
    for changed in (
        dataclasses.replace(base, id="call_1" + "x" * 40),
        dataclasses.replace(base, name="grep_" + "y" * 40),
        dataclasses.replace(base, input={**args, "extra": "z " * 40}),
    ):
        assert counter.count(Message(role="assistant", content=(changed,))) > cost


def test_opaque_block_costs_its_json_text() -> None:
    counter = TiktokenCounter(encoding="cl100k_base")
    data = {"type": "thinking", "thinking": "First, read the stack trace. " * 10}
    m = Message(role="assistant", content=(OpaqueBlock(data=data),))
    bare = Message(role="assistant", content=())
    expected = counter.count_text(json.dumps(data, ensure_ascii=False))
    assert counter.count(m) - counter.count(bare) == expected


def test_several_tool_results_in_one_message_cost_as_much_as_separate_tool_messages() -> None:
    counter = TiktokenCounter(encoding="cl100k_base")
    r1 = ToolResultBlock(tool_use_id="call_a", content="first output")
    r2 = ToolResultBlock(tool_use_id="call_b", content="second output, longer")
    together = Message(role="tool", content=(r1, r2))
    apart = [Message(role="tool", content=(r1,)), Message(role="tool", content=(r2,))]
    assert counter.count(together) == sum(counter.count(m) for m in apart)


def test_stale_raw_arguments_are_not_counted_after_input_changes() -> None:
    counter = TiktokenCounter(encoding="cl100k_base")
    [m] = from_openai([{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function",
         "function": {"name": "write", "arguments": '{"content": "short"}'}}]}])
    block = m.tool_uses[0]
    big = dataclasses.replace(block, input={"content": "a much longer body " * 50})
    assert big.raw_input == block.raw_input  # the recorded text is now stale
    assert counter.count(Message(role="assistant", content=(big,))) > counter.count(m) + 100


def test_openai_name_field_is_counted() -> None:
    counter = TiktokenCounter(encoding="cl100k_base")
    [plain, named] = from_openai([
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
        {"role": "tool", "tool_call_id": "c", "content": "ok", "name": "get_user_details"},
    ])
    assert counter.count(named) == counter.count(plain) + 1 + counter.count_text(
        "get_user_details")


def test_approximate_counter_divides_characters_and_rounds_up() -> None:
    counter = ApproximateCounter(4.0, per_message=2)
    assert counter.count_text("") == 0
    assert counter.count_text("abcd") == 1
    assert counter.count_text("abcde") == 2
    m = text_message("user", "x" * 40)
    assert counter.count(m) == 2 + 1 + 10  # framing, "user", 40 chars


def test_callable_counter_rejects_a_callable_that_returns_tokens_not_a_count() -> None:
    counter = CallableCounter(tiktoken.get_encoding("cl100k_base").encode)
    with pytest.raises(TypeError, match="must return an int"):
        counter.count_text("hello")


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: ApproximateCounter(0), "chars_per_token must be a positive finite number"),
        (lambda: ApproximateCounter(float("nan")), "chars_per_token"),
        (lambda: ApproximateCounter(per_message=-1), "per_message must be an int >= 0"),
        (lambda: CallableCounter("len"), "fn must be a callable"),  # type: ignore[arg-type]
        (lambda: TiktokenCounter("gpt-4o", encoding="o200k_base"), "not both"),
        (lambda: TiktokenCounter(encoding="p50k_base"), "encoding must be one of"),
    ],
)
def test_bad_counter_settings_raise_config_error(build: Any, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        build()


# --------------------------------------------------------------------------- cache


def test_cached_count_is_not_recomputed() -> None:
    seen, counter = _counting_fn()
    m = text_message("user", "count me once")
    first = counter.count(m)
    calls = len(seen)
    assert calls > 0
    assert counter.count(m) == first
    assert counter.count_messages([m, m, m]) == counter.per_request + 3 * first
    assert len(seen) == calls
    assert m._token_cache == {counter.cache_key: first}


def test_replaced_message_gets_a_fresh_count() -> None:
    seen, counter = _counting_fn()
    m = text_message("user", "one two three")
    assert counter.count(m) == 3 + 1 + 3
    edited = dataclasses.replace(m, content=(TextBlock(text="one two three four five"),))
    assert edited._token_cache == {}
    assert counter.count(edited) == 3 + 1 + 5
    assert counter.count(m) == 3 + 1 + 3


def test_each_counter_kind_keeps_its_own_cached_count() -> None:
    m = text_message("user", "word " * 100)
    a4, a4_again, a2 = ApproximateCounter(4), ApproximateCounter(4.0), ApproximateCounter(2)
    exact = TiktokenCounter(encoding="cl100k_base")
    assert a4.cache_key == a4_again.cache_key
    assert len({a4.cache_key, a2.cache_key, exact.cache_key}) == 3
    counts = {c.cache_key: c.count(m) for c in (a4, a2, exact)}
    assert m._token_cache == counts
    assert counts[a2.cache_key] > counts[a4.cache_key]


def test_callable_counters_share_cached_counts_only_when_given_the_same_name() -> None:
    assert CallableCounter(len).cache_key != CallableCounter(len).cache_key
    assert CallableCounter(len, name="chars").cache_key == CallableCounter(
        len, name="chars").cache_key
    assert CallableCounter(len, name="chars").cache_key != CallableCounter(
        len, name="chars", per_message=0).cache_key


# --------------------------------------------------------------------------- tally


def test_tally_equals_count_messages_after_appends_extends_and_resets(
    fixture_trajectories: list[Trajectory],
) -> None:
    counter = TiktokenCounter(encoding="o200k_base")
    messages = [m for t in fixture_trajectories for m in t.messages]
    tally = TokenTally(counter)
    assert tally.total == counter.count_messages([]) and len(tally) == 0
    for i, m in enumerate(messages[:50]):
        tally.append(m)
        assert tally.total == counter.count_messages(messages[: i + 1])
    tally.extend(messages[50:])
    assert len(tally) == len(messages)
    assert tally.total == counter.count_messages(messages)
    tally.reset(messages[::2])
    assert len(tally) == len(messages[::2])
    assert tally.total == counter.count_messages(messages[::2])
    assert TokenTally(counter, messages).total == tally.total + sum(
        counter.count(m) for m in messages[1::2])


def test_tally_reset_reuses_cached_counts() -> None:
    seen, counter = _counting_fn()
    history = [text_message("user", f"message number {i}") for i in range(20)]
    tally = TokenTally(counter, history)
    calls = len(seen)
    tally.reset(history[:10] + [text_message("assistant", "a new summary")])
    assert len(seen) == calls + 2  # only the new message: role + text
    assert len(tally) == 11


# --------------------------------------------------------------------------- property


_ids = st.text("abcdefghij_0123456789", min_size=1, max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6,
)
_text_blocks = st.builds(TextBlock, text=st.text(max_size=60))
_opaque_blocks = st.builds(OpaqueBlock, data=st.dictionaries(st.text(max_size=8), _json,
                                                             max_size=3))
_blocks = st.one_of(
    _text_blocks,
    _opaque_blocks,
    st.builds(ToolUseBlock, id=_ids, name=_ids,
              input=st.dictionaries(st.text(max_size=8), _json, max_size=3)),
    st.builds(ToolResultBlock, tool_use_id=_ids,
              content=st.text(max_size=60)
              | st.lists(_text_blocks | _opaque_blocks, max_size=3).map(tuple)),
)
_messages = st.builds(
    Message,
    role=st.sampled_from(["system", "user", "assistant", "tool"]),
    content=st.lists(_blocks, max_size=4).map(tuple),
)


def _edit(m: Message, data: st.DataObject) -> Message:
    kind = data.draw(st.sampled_from(["role", "add", "drop", "swap", "text"]))
    blocks = list(m.content)
    if kind == "role":
        return dataclasses.replace(m, role=data.draw(st.sampled_from(["user", "assistant"])))
    if kind == "add" or not blocks:
        blocks.insert(data.draw(st.integers(0, len(blocks))), data.draw(_blocks))
    elif kind == "drop":
        blocks.pop(data.draw(st.integers(0, len(blocks) - 1)))
    elif kind == "swap":
        blocks[data.draw(st.integers(0, len(blocks) - 1))] = data.draw(_blocks)
    else:
        blocks.append(TextBlock(text=data.draw(st.text(min_size=1, max_size=60))))
    return dataclasses.replace(m, content=tuple(blocks))


@pytest.mark.parametrize("make", COUNTERS[:2])
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(message=_messages, data=st.data())
def test_cached_count_equals_fresh_count_after_random_edits(
    make: Any, message: Message, data: st.DataObject
) -> None:
    counter = make()
    before = counter.count(message)
    current = message
    for _ in range(data.draw(st.integers(1, 4))):
        current = _edit(current, data)
        assert counter.count(current) == counter.count_uncached(current)
        assert counter.count(current) == make().count_uncached(current)
    assert counter.count(message) == before == counter.count_uncached(message)


_FRESH_SETTINGS = settings(max_examples=60, deadline=None,
                           suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                  HealthCheck.too_slow])


@_FRESH_SETTINGS
@given(history=neutral_conversations(), data=st.data())
def test_tally_over_a_conversation_equals_a_fresh_count_after_random_edits(
    history: list[Message], data: st.DataObject
) -> None:
    counter = TiktokenCounter(encoding="o200k_base")
    tally = TokenTally(counter, history)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(history) - 1))
        history[i] = _edit(history[i], data)
        if data.draw(st.booleans()):
            history.append(data.draw(_messages))
        tally.reset(history)
        fresh = counter.per_request + sum(map(counter.count_uncached, history))
        assert tally.total == fresh == counter.count_messages(history)


@_FRESH_SETTINGS
@given(raw=openai_conversations(odd=False))
def test_count_messages_equals_cookbook_accounting_on_generated_conversations(
    raw: list[dict[str, Any]],
) -> None:
    counter = TiktokenCounter(encoding="cl100k_base")
    reference = tiktoken.get_encoding("cl100k_base")
    assert counter.count_messages(from_openai(raw)) == _cookbook_count(raw, reference)
