"""AutoContextMemory: the stateful wrapper (working view, originals, offloads, events),
reload, and JSON persistence with a FileStore."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import builders
import pytest
from builders import LARGE, C, dicts, expand, plain_window, split_settings

from ctxmgr.autocontext.events import CompressionEvent
from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OFFLOAD_TAG_RE
from ctxmgr.autocontext.reload import CONTEXT_RELOAD_TOOL
from ctxmgr.autocontext.rounds import is_compressed, is_final_answer, layout
from ctxmgr.autocontext.summarizers import ExtractiveSummarizer
from ctxmgr.errors import ContextOverflowError, OffloadNotFoundError
from ctxmgr.messages import Message, text_message
from ctxmgr.pairing import validate_pairing
from ctxmgr.store.files import FileStore


@pytest.fixture(autouse=True)
def _strategies_in_their_own_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise the strategies in their own order (summaries before the
    history notes of strategy 7): ``Tuning.history_notes_first`` is off here."""
    monkeypatch.setenv("CTXMGR_HISTORY_NOTES_FIRST", "false")

# ---------------------------------------------------------------- builders

# the tool groups these histories were sized with
group = partial(builders.group, command="cat {key}", head="out")
groups = partial(builders.groups, command="cat {key}", head="out")


def two_rounds() -> list[Message]:
    return [text_message("system", "You are an agent.", id="sys"),
            text_message("user", "first task", id="u1"), *groups("a", 4, LARGE),
            text_message("assistant", "first answer", id="f1"),
            text_message("user", "second task", id="u2"), *groups("b", 4, LARGE)]


def memory(**kw: Any) -> AutoContextMemory:
    settings, kw = split_settings(kw)
    cfg = kw.pop("config", None) or plain_window(max_tokens=12_000, target_ratio=0.3,
                                                      last_keep=6)
    return AutoContextMemory(cfg.evolve(**settings), counter=C, **kw)


def reachable_ids(messages: Sequence[Message], mem: AutoContextMemory) -> set[str]:
    """Offload ids the working view leads to, directly or through reloaded stand-ins."""
    found: set[str] = set()
    for m in messages:
        meta = m.metadata.get("ctxmgr")
        if meta and meta.get("compressed"):
            found.add(meta["offload_id"])
            found |= reachable_ids(mem.reload(meta["offload_id"]), mem)
    return found


# ================================================================= history


def test_add_takes_one_message_or_many_and_keeps_order() -> None:
    mem = memory()
    h = two_rounds()
    mem.add(h[0])
    mem.add(h[1:5])
    mem.add(iter(h[5:]))
    assert mem.messages == h and mem.originals == h


def test_messages_originals_and_events_are_copies() -> None:
    mem = memory()
    mem.add(two_rounds())
    mem.messages.clear()
    mem.originals.clear()
    mem.events.append(None)  # type: ignore[arg-type]
    assert len(mem.messages) == len(two_rounds()) and mem.events == []


def test_tokens_track_the_working_view() -> None:
    mem = memory()
    assert mem.tokens == C.count_messages([])
    mem.add(two_rounds())
    assert mem.tokens == C.count_messages(two_rounds())


def test_default_summarizer_is_extractive_and_none_disables_llm_strategies() -> None:
    assert isinstance(memory().summarizer, ExtractiveSummarizer)
    mem = memory(summarizer=None)
    mem.add(two_rounds())
    events = mem.compress_if_needed()
    assert events and {e.strategy for e in events} <= {2, 3}


# ================================================================= compression


def test_compress_if_needed_does_nothing_below_the_trigger() -> None:
    mem = memory(config=plain_window(max_tokens=100_000))
    mem.add(two_rounds())
    assert not mem.needs_compression()
    assert mem.compress_if_needed() == [] and mem.events == []
    assert mem.messages == two_rounds()


def test_compress_if_needed_compresses_and_records_events() -> None:
    seen: list[CompressionEvent] = []
    mem = memory(on_event=seen.append)
    h = two_rounds()
    mem.add(h)
    assert mem.needs_compression()
    events = mem.compress_if_needed()
    assert events and events == mem.events == seen
    assert mem.tokens == C.count_messages(mem.prompt) <= mem.config.target_tokens
    assert not mem.needs_compression()
    assert dicts(mem.originals) == dicts(h)
    assert dicts(expand(mem.messages, mem)) == dicts(h)
    assert validate_pairing(mem.messages) == []


def test_each_call_returns_its_own_events_and_memory_keeps_them_all() -> None:
    mem = memory()
    mem.add(two_rounds())
    first = mem.compress_if_needed()
    mem.add(groups("c", 6, LARGE))
    second = mem.compress_if_needed()
    assert first and second
    assert mem.events == first + second
    assert dicts(expand(mem.messages, mem)) == dicts([*two_rounds(), *groups("c", 6, LARGE)])


def test_force_compresses_below_the_trigger() -> None:
    mem = memory(config=plain_window(max_tokens=20_000, token_ratio=0.75, last_keep=6))
    mem.add(two_rounds())
    assert not mem.needs_compression() and mem.compress_if_needed() == []
    assert mem.compress_if_needed(force=True)


def test_acompress_if_needed_matches_compress_if_needed() -> None:
    sync, async_ = memory(), memory()
    sync.add(two_rounds())
    async_.add(two_rounds())
    a = sync.compress_if_needed()
    b = asyncio.run(async_.acompress_if_needed())

    def shape(mem: AutoContextMemory) -> str:
        return re.sub(r"[0-9a-f]{16}", "ID", json.dumps(dicts(mem.messages), sort_keys=True))

    assert [(e.strategy, e.replaced_ids) for e in a] == [(e.strategy, e.replaced_ids) for e in b]
    assert shape(sync) == shape(async_) and sync.tokens == async_.tokens
    assert asyncio.run(async_.acompress_if_needed()) == []


def test_compressed_summaries_are_never_counted_as_final_answers() -> None:
    # one long task with no final answer yet: strategy 1 summarizes its older tool calls
    mem = memory(config=plain_window(max_tokens=12_000, last_keep=6))
    mem.add([text_message("system", "agent", id="sys"), text_message("user", "task", id="u1"),
             *groups("a", 10, LARGE)])
    events = mem.compress_if_needed()
    assert 1 in {e.strategy for e in events}
    summaries = [m for m in mem.messages if is_compressed(m)]
    assert summaries and not any(is_final_answer(m) for m in summaries)
    lay = layout(mem.messages, mem.config, C)
    assert lay.latest_final == -1 and lay.rounds == ()
    assert lay.in_flight is not None and mem.messages[lay.in_flight.start].id == "a9.call"


def test_a_round_ending_in_a_summary_is_not_a_finished_round() -> None:
    mem = memory(config=plain_window(max_tokens=12_000, last_keep=2,
                                          min_compression_tokens=0))
    mem.add(two_rounds())
    mem.add(text_message("assistant", "second answer", id="f2"))
    mem.add(text_message("user", "third task", id="u3"))
    mem.compress_if_needed(force=True)
    lay = layout(mem.messages, mem.config, C)
    finals = [mem.messages[i].id for _, i in lay.rounds]
    assert set(finals) <= {"f1", "f2"}
    assert all(not is_compressed(mem.messages[i]) for _, i in lay.rounds)


# ================================================================= reload


def test_reload_returns_the_originals_of_every_event() -> None:
    mem = memory()
    h = two_rounds()
    mem.add(h)
    by_id = {m.id: m for m in h}
    for e in mem.compress_if_needed():
        assert e.offload_id is not None
        assert [m.id for m in mem.reload(e.offload_id)] == list(e.replaced_ids)
    first = mem.events[0]
    assert dicts(mem.reload(str(first.offload_id))) == dicts(
        [by_id[i] for i in first.replaced_ids])


def test_reload_of_an_unknown_id_raises_offload_not_found() -> None:
    mem = memory()
    for bad in ("0" * 32, "not-an-id", ""):
        with pytest.raises(OffloadNotFoundError) as info:
            mem.reload(bad)
        assert isinstance(info.value, KeyError)


def test_the_reload_tool_returns_the_original_text_verbatim() -> None:
    mem = memory()
    h = two_rounds()
    mem.add(h)
    mem.compress_if_needed()
    tags = {t for m in mem.messages
            for t in OFFLOAD_TAG_RE.findall(m.text + "".join(b.text for b in m.tool_results))}
    assert tags
    for tag in tags:
        first = mem.handle_reload_call({"uuid": f" {tag} "})
        originals = mem.reload(tag)
        assert first.startswith(f"Reloaded {len(originals)} original message(s) for uuid {tag}")
        pages, page = [first], 1  # a long range comes back in pages: follow them
        while f'"page": {page + 1}' in pages[-1].partition("\n\n")[0]:
            page += 1
            pages.append(mem.handle_reload_call({"uuid": tag, "page": page}))
        answer = "".join(p.partition("\n\n")[2] for p in pages)
        for m in originals:
            for b in m.tool_results:
                assert b.text in answer
            for b in m.tool_uses:
                assert b.id in answer and b.name in answer
            assert m.text in answer


def test_offload_ids_are_16_hex_digits_and_an_earlier_versions_32_still_reload() -> None:
    mem = memory()
    mem.add(two_rounds())
    mem.compress_if_needed()
    ids = {e.offload_id for e in mem.events if e.offload_id}
    assert ids and all(re.fullmatch(r"[0-9a-f]{16}", str(i)) for i in ids)
    # a range a version before 16-digit ids offloaded: its tag names 32 digits
    old_id, originals = "ab" * 16, two_rounds()[:2]
    mem.offload.save(originals, old_id)
    stand_in = f"earlier work\n<!-- CONTEXT_OFFLOAD: uuid={old_id} -->"
    assert OFFLOAD_TAG_RE.findall(stand_in) == [old_id]
    assert dicts(mem.reload(old_id)) == dicts(originals)
    assert mem.handle_reload_call({"uuid": old_id}).startswith(
        f"Reloaded 2 original message(s) for uuid {old_id}")


def test_the_reload_tool_answers_bad_input_without_raising() -> None:
    mem = memory()
    assert "No messages found for uuid" in mem.handle_reload_call({"uuid": "f" * 32})
    for bad in (None, "abc", {}, {"uuid": 5}, {"uuid": "  "}):
        assert mem.handle_reload_call(bad).startswith("Error: ")
    assert CONTEXT_RELOAD_TOOL.name == "context_reload"
    assert CONTEXT_RELOAD_TOOL.to_openai()["function"]["parameters"]["required"] == ["uuid"]


# ================================================================= persistence


def test_json_round_trip_with_a_file_store_keeps_view_originals_and_reload(
        tmp_path: Path) -> None:
    root = tmp_path / "store"
    mem = memory(store=FileStore(root), project="proj", session="s1")
    h = two_rounds()
    mem.add(h)
    mem.compress_if_needed()
    text = json.dumps(mem.to_json())  # plain JSON

    again = AutoContextMemory.from_json(text, config=mem.config, counter=C,
                                        store=FileStore(root), session="s1")
    assert dicts(again.messages) == dicts(mem.messages)
    assert dicts(again.originals) == dicts(h)
    assert again.events == []  # events went to the log and on_event; state stays small
    assert again.tokens == mem.tokens
    assert dicts(expand(again.messages, again)) == dicts(h)
    files = sorted(p.name for p in (root / "projects" / "proj" / "offload" / "s1").iterdir())
    # each range: its messages, and its search index beside them
    assert files == sorted(f"{e.offload_id}{suffix}" for e in mem.events
                           for suffix in (".json", ".search"))


def test_from_json_accepts_the_dict_and_continues_compressing(tmp_path: Path) -> None:
    mem = memory(store=FileStore(tmp_path))
    mem.add(two_rounds())
    mem.compress_if_needed()
    again = AutoContextMemory.from_json(mem.to_json(), config=mem.config, counter=C,
                                        store=FileStore(tmp_path))
    again.add(groups("c", 6, LARGE))
    assert again.compress_if_needed()
    assert dicts(expand(again.messages, again)) == dicts([*two_rounds(), *groups("c", 6, LARGE)])


def test_offloads_are_namespaced_by_session(tmp_path: Path) -> None:
    mem = memory(store=FileStore(tmp_path), session="one")
    mem.add(two_rounds())
    [first, *_] = mem.compress_if_needed()
    other = memory(store=FileStore(tmp_path), session="two")
    with pytest.raises(OffloadNotFoundError):
        other.reload(str(first.offload_id))


# ================================================================= overflow


def overflowing() -> list[Message]:
    return [text_message("system", "S" * 8000, id="sys"), text_message("user", "task", id="u1"),
            *groups("a", 2, 8000), text_message("assistant", "done", id="f1"),
            text_message("user", "more", id="u2")]


def test_overflow_raises_with_tokens_limit_and_excess() -> None:
    mem = memory(config=plain_window(max_tokens=2000, last_keep=0))
    mem.add(overflowing())
    with pytest.raises(ContextOverflowError) as info:
        mem.compress_if_needed()
    assert info.value.limit == 2000 and info.value.excess == info.value.tokens - 2000 > 0


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_after_an_overflow_the_recorded_events_match_the_working_view(mode: str) -> None:
    mem = memory(config=plain_window(max_tokens=2000, last_keep=0))
    mem.add(overflowing())
    with pytest.raises(ContextOverflowError):
        if mode == "sync":
            mem.compress_if_needed()
        else:
            asyncio.run(mem.acompress_if_needed())
    applied = {e.offload_id for e in mem.events if e.status == "applied"}
    assert applied <= reachable_ids(mem.messages, mem)
    assert mem.tokens == C.count_messages(mem.prompt)


def test_repr_names_size_and_budget() -> None:
    mem = memory()
    mem.add(two_rounds())
    assert repr(mem) == (f"AutoContextMemory(messages={len(two_rounds())}, tokens={mem.tokens}, "
                         f"max_tokens=12000, events=0)")
