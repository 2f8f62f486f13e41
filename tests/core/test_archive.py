"""The message-archiving tool, driven the way a model drives it.

Each test builds an OpenAI-format history, appends the assistant turn that
calls ``message_archiving`` (arguments as JSON text, as a provider sends
them), runs the tool on the neutral history, appends the tool result and
renders what the model would see next.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import json_values, openai_conversations

from ctxmgr.archive import (
    ARCHIVE_TOOL,
    ARCHIVE_TOOL_NAME,
    MAX_LISTED_NOTES,
    ArchiveEvent,
    ArchiveState,
    archive_placeholder,
    handle_archive_call,
    render_archived,
)
from ctxmgr.convert import from_anthropic, from_openai, to_anthropic, to_openai
from ctxmgr.errors import ConfigError
from ctxmgr.messages import Message, ToolResultBlock, ToolUseBlock
from ctxmgr.pairing import validate_pairing
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.tokens import default_counter

JSON = dict[str, Any]


class Session:
    """An OpenAI-format history plus the archive state, as an adapter would keep them."""

    def __init__(self, raw: list[JSON]) -> None:
        self.raw = list(raw)
        self.state = ArchiveState()
        self.calls = 0
        self.events: list[ArchiveEvent] = []

    @property
    def messages(self) -> list[Message]:
        return from_openai(self.raw)

    def call(self, arguments: Any, *, raw_arguments: str | None = None) -> str:
        """The model calls the tool; returns the tool result it gets back."""
        self.calls += 1
        call_id = f"call_archive_{self.calls}"
        text_args = raw_arguments if raw_arguments is not None else json.dumps(arguments)
        self.raw.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": ARCHIVE_TOOL_NAME, "arguments": text_args}}]})
        messages = self.messages
        (use,) = messages[-1].tool_uses  # what an adapter hands the tool
        self.state, text = handle_archive_call(messages, self.state, dict(use.input),
                                               on_event=self.events.append)
        self.raw.append({"role": "tool", "tool_call_id": call_id, "content": text})
        return text

    def rendered(self) -> list[Message]:
        return render_archived(self.messages, self.state)


def _large_result_ids(messages: list[Message] | tuple[Message, ...], over: int) -> list[str]:
    return [b.tool_use_id for m in messages for b in m.tool_results if len(b.text) > over]


def _results_by_id(messages: list[Message]) -> dict[str, list[ToolResultBlock]]:
    out: dict[str, list[ToolResultBlock]] = {}
    for m in messages:
        for b in m.tool_results:
            out.setdefault(b.tool_use_id, []).append(b)
    return out


# --- on real SWE runs ------------------------------------------------------------------


def test_archiving_every_result_over_2000_chars_of_swe_runs_leaves_placeholders_and_valid_pairing(
    swe_trajectories: list[Trajectory],
) -> None:
    counter = default_counter()
    for t in swe_trajectories:
        session = Session(list(t.raw))
        ids = _large_result_ids(t.messages, 2000)
        assert ids, t.id
        text = session.call({"action": "archive", "tool_use_ids": ids,
                             "summary": "large output, already acted on"})

        assert text == f"Archived {len(ids)} tool result(s)", t.id
        before = counter.count_messages(session.messages)  # with the archive call and result
        rendered = session.rendered()
        after = counter.count_messages(rendered)
        results = _results_by_id(rendered)
        originals = _results_by_id(session.messages)
        for tid in ids:
            (block,) = results[tid]
            assert block.content == archive_placeholder(tid, "large output, already acted on")
            assert f"(tool_use_id: {tid})" in block.text
        untouched = [b for m in rendered for b in m.tool_results if b.tool_use_id not in ids]
        assert all(b == originals[b.tool_use_id][0] for b in untouched)
        # the drop is (almost) all of the archived results' tokens
        archived_tokens = sum(counter.count_text(originals[tid][0].text) for tid in ids)
        placeholder_tokens = sum(counter.count_text(results[tid][0].text) for tid in ids)
        assert before - after >= archived_tokens - placeholder_tokens - 10 * len(ids), t.id
        assert after < before * 0.9, (t.id, before, after)
        # every tool_use block is still there, with its id; pairing holds for both providers
        assert [u for m in rendered for u in m.tool_uses] == \
            [u for m in session.messages for u in m.tool_uses]
        assert [m.id for m in rendered] == [m.id for m in session.messages]
        assert validate_pairing(rendered, rules="openai") == []
        assert validate_pairing(rendered, rules="anthropic") == []
        body = to_anthropic(rendered)
        assert validate_pairing(from_anthropic(body["messages"], system=body.get("system")),
                                rules="anthropic") == []


def test_unarchiving_swe_results_gives_back_the_exact_original_messages(
    swe_trajectories: list[Trajectory],
) -> None:
    for t in swe_trajectories:
        session = Session(list(t.raw))
        ids = _large_result_ids(t.messages, 2000)
        session.call({"action": "archive", "tool_use_ids": ids})
        assert to_openai(session.rendered()) != session.raw

        text = session.call({"action": "unarchive", "tool_use_ids": ids})

        assert text == f"Unarchived {len(ids)} tool result(s)"
        assert len(session.state) == 0
        assert to_openai(session.rendered()) == session.raw
        assert session.raw[: len(t.raw)] == list(t.raw)


def test_archive_state_lives_in_plain_json_between_calls(
    swe_trajectories: list[Trajectory],
) -> None:
    t = swe_trajectories[0]
    session = Session(list(t.raw))
    session.call({"action": "archive", "tool_use_ids": _large_result_ids(t.messages, 2000),
                  "summary": "ünïcode summary"})
    checkpoint = json.loads(json.dumps(session.state.to_dict()))  # what a checkpointer stores

    restored = ArchiveState.from_dict(checkpoint)

    assert restored == session.state
    assert ArchiveState.from_json(session.state.to_json()) == session.state
    assert to_openai(render_archived(session.messages, restored)) == \
        to_openai(session.rendered())


# --- per-id answers --------------------------------------------------------------------


def _history_with(results: dict[str, str], *, in_flight: list[str] = ()) -> list[JSON]:
    raw: list[JSON] = [{"role": "system", "content": "sys"}, {"role": "user", "content": "task"}]
    for tid, content in results.items():
        raw.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": tid, "type": "function", "function": {"name": "bash", "arguments": "{}"}}]})
        raw.append({"role": "tool", "tool_call_id": tid, "content": content})
    if in_flight:
        raw.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": tid, "type": "function", "function": {"name": "bash", "arguments": "{}"}}
            for tid in in_flight]})
    return raw


def test_archive_refuses_results_of_100_chars_or_fewer() -> None:
    session = Session(_history_with({"short": "x" * 100, "long": "y" * 101}))

    text = session.call({"action": "archive", "tool_use_ids": ["short", "long"]})

    assert text.splitlines()[0] == "Archived 1 tool result(s)"
    assert "- 'short': not archived: the result is only 100 characters" in text
    assert "100 characters or fewer" in text
    assert not session.state.is_archived("short")
    assert session.state.is_archived("long")


def test_archive_answers_unknown_ids_one_line_each() -> None:
    session = Session(_history_with({"a": "y" * 500}))

    text = session.call({"action": "archive", "tool_use_ids": ["nope", "a", "also-nope"]})

    assert text.splitlines() == [
        "Archived 1 tool result(s)",
        "- 'nope': not archived: unknown tool_use_id (no tool call with this id in the "
        "conversation)",
        "- 'also-nope': not archived: unknown tool_use_id (no tool call with this id in the "
        "conversation)",
    ]


def test_archiving_10000_unknown_ids_answers_in_a_capped_result() -> None:
    session = Session(_history_with({"a": "y" * 500}))
    ids = ["a", *(f"bogus-{i}-" + "z" * 200 for i in range(10_000))]

    text = session.call({"action": "archive", "tool_use_ids": ids})

    lines = text.splitlines()
    assert lines[0] == "Archived 1 tool result(s)"
    assert len(lines) == 1 + MAX_LISTED_NOTES + 1
    assert lines[-1] == (f"- and {10_000 - MAX_LISTED_NOTES} more id(s) refused or noted "
                         f"(only the first {MAX_LISTED_NOTES} are listed)")
    assert len(text) < 6_000


def test_archive_refuses_in_flight_calls_including_its_own() -> None:
    # the model calls a tool and the archiving tool in parallel, naming both
    raw = _history_with({"a": "y" * 500}, in_flight=["running"])
    arguments = {"action": "archive", "tool_use_ids": ["running", "call_archive"]}
    raw[-1]["tool_calls"].append({"id": "call_archive", "type": "function", "function": {
        "name": ARCHIVE_TOOL_NAME, "arguments": json.dumps(arguments)}})

    state, text = handle_archive_call(from_openai(raw), ArchiveState(), arguments)

    assert text.splitlines() == [
        "Archived 0 tool result(s)",
        "- 'running': not archived: in flight: the call has no result yet; archive it once "
        "its result is in",
        "- 'call_archive': not archived: in flight: the call has no result yet; archive it "
        "once its result is in",
    ]
    assert len(state) == 0


def test_archive_of_an_in_flight_id_that_was_answered_before_refuses_the_latest_call() -> None:
    raw = _history_with({"dup": "y" * 500}, in_flight=["dup"])

    state, text = handle_archive_call(from_openai(raw), ArchiveState(),
                                      {"action": "archive", "tool_use_ids": ["dup"]})

    assert text.splitlines()[1] == ("- 'dup': not archived: in flight: its latest call has no "
                                     "result yet; archive it once its result is in")
    assert len(state) == 0


def test_archive_says_when_a_call_was_never_answered() -> None:
    raw = _history_with({"a": "y" * 500}, in_flight=["lost"])
    raw.append({"role": "user", "content": "go on"})
    session = Session(raw)

    text = session.call({"action": "archive", "tool_use_ids": ["lost"]})

    assert "- 'lost': not archived: the call was never answered" in text


def test_archive_handles_an_id_repeated_in_one_call_once() -> None:
    session = Session(_history_with({"a": "y" * 500}))

    text = session.call({"action": "archive", "tool_use_ids": ["a", "a", " a "]})

    assert text.splitlines() == ["Archived 1 tool result(s)",
                                 "- 'a': repeated in this call; handled once",
                                 "- 'a': repeated in this call; handled once"]
    assert len(session.state) == 1


def test_archive_of_an_archived_result_says_so_and_may_update_its_summary() -> None:
    session = Session(_history_with({"a": "y" * 500}))
    session.call({"action": "archive", "tool_use_ids": ["a"]})

    again = session.call({"action": "archive", "tool_use_ids": ["a"]})
    with_summary = session.call({"action": "archive", "tool_use_ids": ["a"], "summary": "ys"})

    assert again == "Archived 0 tool result(s)\n- 'a': already archived"
    assert with_summary == "Archived 0 tool result(s)\n- 'a': already archived; summary updated"
    assert session.state.archived == {"a": "ys"}
    (block,) = [b for m in session.rendered() for b in m.tool_results if b.tool_use_id == "a"]
    assert block.content == archive_placeholder("a", "ys")
    assert block.content.endswith("\nSummary: ys")


def test_unarchive_answers_ids_that_are_not_archived_or_unknown() -> None:
    session = Session(_history_with({"a": "y" * 500, "b": "z" * 500}))
    session.call({"action": "archive", "tool_use_ids": ["a"]})

    text = session.call({"action": "unarchive", "tool_use_ids": ["a", "b", "zzz"]})

    assert text.splitlines() == [
        "Unarchived 1 tool result(s)",
        "- 'b': not unarchived: this result is not archived",
        "- 'zzz': not unarchived: unknown tool_use_id (no tool call with this id in the "
        "conversation)",
    ]


def test_a_reused_tool_call_id_resolves_to_its_latest_result_and_says_so(
    fixture_trajectories: list[Trajectory],
) -> None:
    # tau-airline-0 reuses two ids: the latest result of one is 5 chars, of the other 2710
    t = next(t for t in fixture_trajectories if t.id == "tau-airline-0-t0")
    session = Session(list(t.raw))
    short_id, long_id = "call_oIHazX6yQrB8hUwl4cRilFKj", "call_HGn16KZh9oNCruxsMJ4gYXan"

    text = session.call({"action": "archive", "tool_use_ids": [short_id, long_id]})

    lines = text.splitlines()
    assert lines[0] == "Archived 1 tool result(s)"
    assert lines[1].startswith(f"- '{short_id}': this id occurs 2 times in the conversation; "
                               "used the latest result")
    assert lines[1].endswith("not archived: the result is only 5 characters (results of 100 "
                             "characters or fewer are kept)")
    assert lines[2].startswith(f"- '{long_id}': this id occurs 2 times")
    assert lines[2].endswith("; archived")
    first, latest = _results_by_id(session.rendered())[long_id]
    assert first == _results_by_id(session.messages)[long_id][0]  # the earlier one untouched
    assert latest.content == archive_placeholder(long_id)
    assert validate_pairing(session.rendered()) == []


def test_an_archived_result_stays_archived_when_its_id_is_reused_later() -> None:
    session = Session(_history_with({"dup": "old " * 100}))
    session.call({"action": "archive", "tool_use_ids": ["dup"]})
    session.raw.extend(_history_with({"dup": "new " * 100})[2:])  # the id comes back later

    first, second = _results_by_id(session.rendered())["dup"]
    assert first.content == archive_placeholder("dup")
    assert second.content == "new " * 100

    text = session.call({"action": "archive", "tool_use_ids": ["dup"]})
    assert text.startswith("Archived 1 tool result(s)\n- 'dup': this id occurs 2 times")
    text = session.call({"action": "unarchive", "tool_use_ids": ["dup"]})
    assert text.splitlines()[0] == "Unarchived 1 tool result(s)"
    assert "1 other archived result(s) with this id remain archived" in text
    first, second = _results_by_id(session.rendered())["dup"]
    assert (first.content, second.content) == (archive_placeholder("dup"), "new " * 100)


@pytest.mark.parametrize(("arguments", "expected"), [
    ("not json", "Error: the input is not a JSON object"),
    ("[1, 2]", "Error: the input must be an object, got list"),
    ({"action": "delete", "tool_use_ids": ["a"]}, 'Error: action must be "archive" or'),
    ({"tool_use_ids": ["a"]}, 'Error: action must be "archive" or'),
    ({"action": "archive"}, "Error: tool_use_ids must be a non-empty list"),
    ({"action": "archive", "tool_use_ids": []}, "Error: tool_use_ids must be a non-empty list"),
    ({"action": "archive", "tool_use_ids": {"a": 1}}, "Error: tool_use_ids must be"),
    ({"action": "archive", "tool_use_ids": ["a"], "summary": 3}, "Error: summary must be a str"),
])
def test_malformed_tool_input_gets_an_explanation_not_an_exception(
    arguments: Any, expected: str
) -> None:
    raw = arguments if isinstance(arguments, str) else None
    session = Session(_history_with({"a": "y" * 500}))

    text = session.call(arguments, raw_arguments=raw) if raw is None else _call_raw(raw)

    assert text.startswith(expected)
    assert '"action": "archive" | "unarchive"' in text
    assert len(session.state) == 0


def _call_raw(raw: str) -> str:
    messages = from_openai(_history_with({"a": "y" * 500}))
    state, text = handle_archive_call(messages, ArchiveState(), raw)
    assert state == ArchiveState()
    return text


def test_bad_entries_in_tool_use_ids_are_reported_and_the_rest_are_archived() -> None:
    session = Session(_history_with({"a": "y" * 500}))

    text = session.call({"action": "ARCHIVE", "tool_use_ids": [7, "", None, "a"]})

    assert text.splitlines() == ["Archived 1 tool result(s)",
                                 "- tool_use_ids[0]: not a string (7); skipped",
                                 "- tool_use_ids[1]: empty id; skipped",
                                 "- tool_use_ids[2]: not a string (None); skipped"]


def test_a_single_id_given_as_a_string_is_accepted() -> None:
    session = Session(_history_with({"a": "y" * 500}))

    assert session.call({"action": "archive", "tool_use_ids": "a"}) == "Archived 1 tool result(s)"


def test_each_call_logs_its_result_line_and_emits_an_event(
    caplog: pytest.LogCaptureFixture,
) -> None:
    session = Session(_history_with({"a": "y" * 500, "b": "z" * 500}))

    with caplog.at_level(logging.INFO, logger="ctxmgr.archive"):
        session.call({"action": "archive", "tool_use_ids": ["a", "b", "c"]})
        session.call({"action": "unarchive", "tool_use_ids": ["b"]})

    assert [r.getMessage() for r in caplog.records if r.levelno == logging.INFO] == [
        "Archived 2 tool result(s)", "Unarchived 1 tool result(s)"]
    first, second = session.events
    assert (first.action, first.count, first.tool_use_ids) == ("archive", 2, ("a", "b"))
    assert first.notes == ("- 'c': not archived: unknown tool_use_id (no tool call with this "
                           "id in the conversation)",)
    assert first.text.startswith("Archived 2 tool result(s)\n")
    assert (second.action, second.count, second.tool_use_ids) == ("unarchive", 1, ("b",))


# --- rendering and state ------------------------------------------------------------------


def test_render_with_an_empty_state_returns_the_same_message_objects(
    swe_trajectories: list[Trajectory],
) -> None:
    messages = list(swe_trajectories[0].messages)

    rendered = render_archived(messages, ArchiveState())

    assert rendered == messages and all(a is b for a, b in zip(rendered, messages, strict=True))


def test_render_keeps_unarchived_messages_as_the_same_objects_and_error_flags() -> None:
    raw = _history_with({"a": "y" * 500, "b": "z" * 500})
    messages = from_openai(raw)
    tool_msg = next(m for m in messages if m.tool_results and m.tool_results[0].tool_use_id == "a")
    state = ArchiveState.from_dict({"archived": [
        {"tool_use_id": "a", "message_id": tool_msg.id, "summary": None}]})

    rendered = render_archived(messages, state)

    for old, new in zip(messages, rendered, strict=True):
        assert new.id == old.id
        assert (new is old) == (old is not tool_msg)


def test_archive_placeholder_names_the_id_and_appends_the_summary() -> None:
    assert archive_placeholder("call_1") == (
        "<system>This tool result has been archived. You can use the Message Archiving Tool "
        "to unarchive it if needed (tool_use_id: call_1).</system>")
    assert archive_placeholder("call_1", "the grep found 3 hits").endswith(
        "(tool_use_id: call_1).</system>\nSummary: the grep found 3 hits")


@pytest.mark.parametrize("data", [
    [1, 2], {"archived": "x"}, {"archived": [{"tool_use_id": "a"}]},
    {"archived": [{"tool_use_id": "a", "message_id": 3, "summary": None}]},
])
def test_archive_state_from_dict_rejects_data_it_did_not_write(data: Any) -> None:
    with pytest.raises(ConfigError, match="archive state"):
        ArchiveState.from_dict(data)


def test_archive_state_from_nothing_is_empty() -> None:
    assert ArchiveState.from_dict(None) == ArchiveState.from_dict({}) == ArchiveState()
    assert ArchiveState().to_dict() == {"version": 1, "archived": []}


def test_archive_tool_definition_is_valid_for_openai_and_anthropic() -> None:
    openai_tool = ARCHIVE_TOOL.to_openai()
    anthropic_tool = ARCHIVE_TOOL.to_anthropic()

    assert openai_tool["type"] == "function"
    assert openai_tool["function"]["name"] == anthropic_tool["name"] == "message_archiving"
    schema = anthropic_tool["input_schema"]
    assert schema == openai_tool["function"]["parameters"]
    assert schema["type"] == "object"
    assert schema["required"] == ["action", "tool_use_ids"]
    assert schema["properties"]["action"]["enum"] == ["archive", "unarchive"]
    assert schema["properties"]["tool_use_ids"]["minItems"] == 1
    assert "summary" in schema["properties"]
    json.dumps(openai_tool), json.dumps(anthropic_tool)  # plain JSON
    openai_tool["function"]["parameters"]["type"] = "changed"
    assert ARCHIVE_TOOL.to_openai()["function"]["parameters"]["type"] == "object"


# --- properties ----------------------------------------------------------------------------

_tool_inputs = st.one_of(
    json_values(),
    st.text(max_size=40),
    st.fixed_dictionaries(
        {"action": st.one_of(st.sampled_from(["archive", "unarchive", "Archive"]), json_values()),
         "tool_use_ids": st.one_of(json_values(), st.lists(st.one_of(st.text(max_size=30),
                                                                     json_values()),
                                                           max_size=5))},
        optional={"summary": st.one_of(st.text(max_size=50), json_values())},
    ),
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(history=openai_conversations(in_flight=None), tool_input=_tool_inputs)
def test_any_tool_input_gets_a_string_result_and_a_json_state(
    history: list[JSON], tool_input: Any
) -> None:
    messages = from_openai(history)

    state, text = handle_archive_call(messages, ArchiveState(), tool_input)

    assert isinstance(text, str) and text
    assert ArchiveState.from_json(state.to_json()) == state
    assert validate_pairing(render_archived(messages, state)) == \
        validate_pairing(messages)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(history=openai_conversations(in_flight=None), data=st.data())
def test_archive_then_unarchive_changes_nothing(history: list[JSON], data: st.DataObject) -> None:
    messages = from_openai(history)
    ids = sorted({b.id for m in messages for b in m.content if isinstance(b, ToolUseBlock)})
    chosen = data.draw(st.lists(st.sampled_from(ids), min_size=1, unique=True)) if ids else ["x"]

    state, _ = handle_archive_call(messages, ArchiveState(),
                                   {"action": "archive", "tool_use_ids": chosen})
    rendered = render_archived(messages, state)
    assert validate_pairing(rendered, rules="openai") == validate_pairing(messages)
    assert [m.id for m in rendered] == [m.id for m in messages]
    state, text = handle_archive_call(messages, state,
                                      {"action": "unarchive", "tool_use_ids": chosen})

    assert len(state) == 0, text
    assert to_openai(render_archived(messages, state)) == history


def test_archiving_one_of_several_results_in_an_anthropic_user_turn_keeps_the_others() -> None:
    body = {"system": "sys", "messages": [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"path": "a"}},
            {"type": "tool_use", "id": "toolu_b", "name": "read", "input": {"path": "b"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "A" * 300},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "B" * 300,
             "is_error": True}]},
    ]}
    messages = from_anthropic(body["messages"], system=body["system"])

    state, text = handle_archive_call(messages, ArchiveState(),
                                      {"action": "archive", "tool_use_ids": ["toolu_b"]})
    rendered = render_archived(messages, state)

    assert text == "Archived 1 tool result(s)"
    a, b = rendered[-1].tool_results
    assert (a.content, b.content, b.is_error) == ("A" * 300, archive_placeholder("toolu_b"), True)
    assert validate_pairing(rendered, rules="anthropic") == []
    state, _ = handle_archive_call(messages, state,
                                   {"action": "unarchive", "tool_use_ids": ["toolu_b"]})
    assert to_anthropic(render_archived(messages, state)) == body


def test_archive_keeps_results_the_compressor_keeps_verbatim() -> None:
    """Pinned message ids and never_compress_tools hold for archiving too."""
    from ctxmgr import AutoContextConfig

    messages = from_openai(_history_with({"doc": "d" * 500, "pinned": "p" * 500,
                                          "free": "f" * 500}))
    messages = [m if m.role != "assistant" or m.tool_uses[0].id != "doc" else
                Message(role="assistant", id=m.id, content=(ToolUseBlock(
                    id="doc", name="read_skill", input={}),)) for m in messages]
    pinned_id = next(m.id for m in messages if m.tool_results
                     and m.tool_results[0].tool_use_id == "pinned")
    cfg = AutoContextConfig(never_compress_tools={"read_skill"}, pinned_ids={pinned_id})
    state, text = handle_archive_call(
        messages, ArchiveState(), {"action": "archive", "tool_use_ids": ["doc", "pinned", "free"]},
        config=cfg)
    assert text.splitlines()[0] == "Archived 1 tool result(s)"
    assert "- 'doc': not archived: this result is pinned" in text
    assert "- 'pinned': not archived: this result is pinned" in text
    assert state.is_archived("free") and not state.is_archived("doc")
