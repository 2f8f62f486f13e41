"""context_reload in pages: every answer fits the room left, and the pages put together
give back the whole original, byte for byte."""

from __future__ import annotations

import json
import re

import pytest
from builders import C, call, result, user
from hypothesis import given
from hypothesis import strategies as st

from ctxmgr import (
    CONTEXT_RELOAD_PAGED_TOOL,
    AutoContextConfig,
    InMemoryStore,
    OffloadStore,
    handle_paged_reload_call,
    handle_reload_call,
    page_text,
    reload_room,
)
from ctxmgr.autocontext.reload_pages import PAGE_FRAME_TOKENS, min_page_tokens

NEXT = re.compile(r'offset=(\d+) for the next part\.\]$')


def offload_with(text: str) -> tuple[OffloadStore, str]:
    offload = OffloadStore(InMemoryStore())
    originals = [user("task", id="u"), call("c1", id="a1"), result("c1", text, id="t1")]
    return offload, offload.save(originals)


def read_all_pages(offload: OffloadStore, uuid: str, room: int) -> tuple[list[str], str]:
    """Follow the offsets to the end; returns the answers and the pages' text joined."""
    answers: list[str] = []
    parts: list[str] = []
    offset = 0
    while True:
        answer = handle_paged_reload_call(offload, {"uuid": uuid, "offset": offset},
                                          room_tokens=room, counter=C)
        answers.append(answer)
        lines = answer.split("\n")
        if offset:
            assert lines[0].startswith(f"[context_reload uuid={uuid}, continued at character")
            lines = lines[1:]
        found = NEXT.search(answer)
        if found is None:
            parts.append("\n".join(lines))
            return answers, "".join(parts)
        parts.append("\n".join(lines[:-2]))  # the page, less "" and the footer line
        offset = int(found.group(1))


def test_a_range_that_fits_comes_back_whole_as_handle_reload_call_gives_it() -> None:
    offload, uuid = offload_with("small output")
    whole = handle_reload_call(offload, {"uuid": uuid})
    assert handle_paged_reload_call(offload, {"uuid": uuid}, room_tokens=10_000,
                                    counter=C) == whole


def test_a_long_range_comes_back_in_pages_that_each_fit_the_room() -> None:
    offload, uuid = offload_with("".join(f"line {i}: " + "x" * 70 + "\n" for i in range(400)))
    room = 1000
    answers, joined = read_all_pages(offload, uuid, room)
    assert len(answers) > 5
    for answer in answers:
        assert C.count_text(answer) <= room
    assert joined == handle_reload_call(offload, {"uuid": uuid})


def test_pages_end_at_a_line_break_when_one_is_near() -> None:
    text = "".join(f"line {i}: " + "y" * 50 + "\n" for i in range(200))
    part, following = page_text(text, 0, 300, C)
    assert following is not None and part.endswith("\n")


@given(st.text(min_size=1, max_size=3000), st.integers(min_value=1, max_value=200))
def test_page_text_pages_join_to_the_text(text: str, budget: int) -> None:
    offset, parts = 0, []
    while True:
        part, following = page_text(text, offset, budget, C)
        assert part  # always progress
        parts.append(part)
        if following is None:
            break
        offset = following
    assert "".join(parts) == text


def test_an_offset_past_the_end_says_so() -> None:
    offload, uuid = offload_with("abc")
    answer = handle_paged_reload_call(offload, {"uuid": uuid, "offset": 10**6},
                                      room_tokens=500, counter=C)
    assert answer.startswith("Nothing more:") and "past its end" in answer


@pytest.mark.parametrize("bad", [-1, "3", 1.5, True])
def test_a_bad_offset_gets_a_clear_error(bad: object) -> None:
    offload, uuid = offload_with("abc")
    answer = handle_paged_reload_call(offload, {"uuid": uuid, "offset": bad},
                                      room_tokens=500, counter=C)
    assert answer.startswith("Error: offset must be a whole number >= 0")


def test_unknown_ids_and_bad_input_get_the_reload_tool_answers() -> None:
    offload, _ = offload_with("abc")
    unknown = handle_paged_reload_call(offload, {"uuid": "nope"}, room_tokens=500, counter=C)
    assert unknown.startswith("No messages found for uuid 'nope'")
    assert handle_paged_reload_call(offload, "not json", room_tokens=500,
                                    counter=C).startswith("Error: the input is not a JSON")
    as_json = handle_paged_reload_call(offload, json.dumps({"uuid": "nope"}), room_tokens=500,
                                       counter=C)
    assert as_json == unknown


def test_the_room_is_what_is_left_before_the_trigger_and_never_below_a_page() -> None:
    cfg = AutoContextConfig(max_tokens=10_000)
    assert reload_room(cfg, prompt_tokens=1000) == cfg.trigger_tokens - 1000
    assert reload_room(cfg, prompt_tokens=cfg.trigger_tokens + 5) == min_page_tokens(cfg) == 400
    assert min_page_tokens(AutoContextConfig(max_tokens=4000)) == 256
    assert min_page_tokens(AutoContextConfig(max_tokens=4000)) > PAGE_FRAME_TOKENS


def test_the_paged_tool_takes_an_offset_beside_the_uuid() -> None:
    spec = CONTEXT_RELOAD_PAGED_TOOL.to_openai()
    assert spec["function"]["name"] == "context_reload"
    assert set(spec["function"]["parameters"]["properties"]) == {"uuid", "offset"}
    assert "offset" in spec["function"]["description"]
