"""context_reload in a session: one room rule, and pages that give back every byte."""

from __future__ import annotations

import json
import re

from builders import C, group, system, user

from ctxmgr import AutoContextConfig, InMemoryStore, Message, Tuning
from ctxmgr.autocontext.reload import reload_room, render_reloaded
from ctxmgr.session import SessionEngine, merge_session_state


def compressed() -> tuple[SessionEngine, InMemoryStore, list[Message], dict, str]:
    engine = SessionEngine(AutoContextConfig(max_tokens=8000, project="p",
                                             tuning=Tuning(min_compression_tokens=500,
                                                           cached_token_price=None)), counter=C)
    store = InMemoryStore()
    h = [system(), user("read the logs", id="u0")]
    for k in range(12):
        h += group(f"c{k}", 3000)
    turn = engine.prepare(h, None, store=store, session="s")
    biggest = max((e for e in turn.events if e.status == "applied"),
                  key=lambda e: len(e.replaced_ids))
    assert biggest.offload_id is not None
    return engine, store, turn.messages, turn.state, biggest.offload_id


def test_the_room_is_what_is_left_before_the_trigger_with_a_floor() -> None:
    cfg = AutoContextConfig(max_tokens=8000)
    floor = (cfg.trigger_tokens - cfg.target_tokens) // 2
    assert reload_room(cfg, 1000) == cfg.trigger_tokens - 1000
    assert reload_room(cfg, cfg.trigger_tokens + 500) == floor


def test_pages_line_up_and_give_back_every_byte_while_the_prompt_grows() -> None:
    """The first answer fixes the range's page size: however full the prompt is when the
    model asks for page N, it starts where page N-1 ended (LlamaIndex used to cut each
    page to the room left at that call: "page 1 of 42", then "has 2 page(s)")."""
    engine, store, view, state, oid = compressed()
    whole = render_reloaded(engine.processor(store, "s").reload(oid))
    bodies, page, pages = [], 1, None
    while True:
        answer = engine.reload({"uuid": oid, "page": page}, view, state, store=store,
                               session="s")
        state = merge_session_state(state, answer.update)
        head, _, body = answer.text.partition("\n\n")
        assert "Error" not in head, head
        total = int(head.split(" of ")[1].split(".")[0])
        assert pages in (None, total)
        pages = total
        bodies.append(body)
        view = [*view, user(answer.text, id=f"page-{page}")]  # the prompt grows
        if json.dumps({"uuid": oid, "page": page + 1}) not in head:
            break
        page += 1
    assert pages and pages > 2 and "".join(bodies) == whole
    assert list(state["reload_pages"]) == [oid]


def test_a_bad_call_is_a_tool_result_and_changes_no_state() -> None:
    engine, store, view, state, _ = compressed()
    for bad in ({"uuid": "0" * 32}, {}, "not json", {"uuid": "x", "page": 0}):
        answer = engine.reload(bad, view, state, store=store, session="s")
        assert answer.update == {} and answer.text


def test_a_search_names_the_page_a_later_reload_of_the_range_gives() -> None:
    """A search fixes the page size of each range it names, as a first reload does: the
    prompt then grows by the answer, and the page it named is still the page that holds
    the line."""
    engine, store, view, state, oid = compressed()
    found = engine.search({"query": "c2 output line"}, view, state, store=store, session="s")
    uuid, page = re.search(r"uuid=([0-9a-f]{16}) page (\d+) of", found.text).groups()
    state = merge_session_state(state, found.update)
    assert uuid in state["reload_pages"]
    view = [*view, user(found.text, id="search-answer")]  # the prompt grows
    reloaded = engine.reload({"uuid": uuid, "page": int(page)}, view, state, store=store,
                             session="s")
    assert "c2 output line" in reloaded.text


def test_a_search_looks_in_archived_results_and_memos_too() -> None:
    engine = SessionEngine(AutoContextConfig(max_tokens=64_000, project="p",
                                             message_archiving=True, memo=True), counter=C)
    store = InMemoryStore()
    h = [system(), user("read the logs", id="u0"), *group("c0", 400, head="disk at 97%")]
    archived = engine.archive({"action": "archive", "tool_use_ids": ["c0"]}, h, None)
    state = merge_session_state(None, archived.update)
    engine.memo({"action": "write", "key": "plan", "summary": "what to do",
                 "content": "free space on disk before 97% fills"}, h, store=store,
                session="s", tool_use_id="m1")
    answer = engine.search({"query": "97%", "max_results": 5}, h, state, store=store,
                           session="s").text
    assert "archived (message_archiving unarchive c0 restores it)" in answer
    assert "> c0 disk at 97%" in answer
    assert 'memo "plan" (memo read gives it whole)' in answer
    assert "> free space on disk before 97% fills" in answer
    other = engine.search({"query": "97%"}, h, None, store=store, session="other").text
    assert "memo" not in other  # another session has neither the memo nor the archive


def test_an_id_longer_than_any_offload_id_is_refused_in_one_line_and_keeps_no_page_key(
) -> None:
    engine, store, view, state, oid = compressed()

    for bogus in ("x" * 1_000_000, oid + "0" * 1_000_000, oid * 2 + " tail"):
        answer = engine.reload({"uuid": bogus, "page": 2}, view, state, store=store,
                               session="s")

        assert answer.text == (f"Error: uuid is {len(bogus.strip())} characters long; an "
                               "offload id is the hex digits of a "
                               "<!-- CONTEXT_OFFLOAD: uuid=ID --> tag (at most 32).")
        assert answer.update == {}


def test_a_memo_key_longer_than_any_valid_key_is_refused_in_one_line() -> None:
    engine = SessionEngine(AutoContextConfig(max_tokens=8000, project="p", memo=True), counter=C)
    for call in ({"action": "read", "key": "k" * 1_000_000},
                 {"action": "write", "key": "k" * 1_000_000, "summary": "s", "content": "c"}):
        answer = engine.memo(call, [], store=InMemoryStore(), session="s")

        assert len(answer.text.splitlines()) == 1 and len(answer.text) < 400
        assert answer.update == {}
