"""The search index beside each offloaded range: a restarted session searches from it as
it would from the messages, a literal search reads only the ranges that may hold it,
and a missing, damaged or unwritable index only costs time."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest
from builders import C, call, result, system, user
from faults import FaultyStore

from ctxmgr import AutoContextConfig, AutoContextMemory, FileStore, Tuning, default_counter
from ctxmgr.autocontext.hidden import HiddenOriginals
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.autocontext.offload import INDEX_SUFFIX
from ctxmgr.autocontext.paging import line_counts
from ctxmgr.autocontext.reload import reload_pages, reload_text_pages, render_reloaded
from ctxmgr.autocontext.search_index import (
    RangeIndex,
    encode_index,
    message_entries,
    saved_line_counts,
)
from ctxmgr.messages import Message, text_message
from ctxmgr.replay.visible import visible_text
from ctxmgr.store.base import Store
from ctxmgr.store.retention import delete_session
from ctxmgr.tokens import TiktokenCounter

CONFIG = AutoContextConfig(max_tokens=8000, tuning=Tuning(min_compression_tokens=500,
                                                          history_notes_first=False))
"""Summaries first, so that names leave the prompt (with history notes first every name of
these runs stays in view, and a search would have nothing to find)."""
WORDS = ["lint", "parse", "load", "flush", "merge", "render", "scan", "emit", "probe"]


def _run(mem: AutoContextMemory, seed: int, steps: int = 70) -> list[str]:
    """A coding run of greps, file reads and a note from the user, compressed after each
    step; the made-up names it defined, oldest first."""
    rng = random.Random(seed)
    names = []
    mem.add([system(), user("fix the linter", id="u0")])
    for k in range(steps):
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{rng.randrange(10**6)}"
        names.append(name)
        lines = [f"{100 + n}: {rng.choice(WORDS)} timeout={rng.randrange(90)} " + "x" * 40
                 for n in range(rng.randrange(10, 60))]
        lines[k % len(lines)] = f"{100 + k % len(lines)}: def {name}(path):  # Ünïcode ✓"
        cmd = "grep -n def" if k % 3 else "cat -n"
        mem.add([call(f"c{k}", id=f"a{k}", args={"command": f"{cmd} src/m{k}.py"}),
                 result(f"c{k}", "\n".join(lines), id=f"t{k}")])
        if k % 17 == 5:
            mem.add([text_message("user", f"also keep {name} public", id=f"u{k}")])
        mem.compress_if_needed()
    return names


QUERIES = [
    {"query": "def "},  # a common word: every range
    {"query": "timeout=1", "max_results": 5, "page": 2},
    {"query": r"def \w+_probe_\d+\(", "regex": True, "max_results": 3},
    # anchored at a passage's start: never looked for in a range's whole text
    {"query": r"^\[tool result id=c1\d\]\n", "regex": True, "max_results": 4},
    {"query": r"x\n\d+: def \w+_emit_", "regex": True, "max_results": 2},  # over a line end
    {"query": "FLUSH_LINT"},  # only case-blind
    {"query": "Ünïcode ✓"},
    {"query": "also keep"},
    {"query": "src/m3.py"},
    {"query": "nothing like this anywhere"},
]


def _answers(state: dict, store: Store, names: list[str]) -> list[str]:
    """Each query's answer, the first after a restart, then the same again (warm)."""
    out = []
    for query in [*QUERIES, *({"query": n} for n in names)]:
        mem = AutoContextMemory.from_json(state, config=CONFIG, counter=C, store=store)
        out += [mem.handle_search_call(query), mem.handle_search_call(query)]
    return out


def _indexes(store: FileStore, root: Path) -> list[Path]:
    return sorted(root.rglob(f"*{INDEX_SUFFIX}"))


def test_a_restarted_session_searches_from_its_indexes_as_from_its_messages(
        tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    mem = AutoContextMemory(CONFIG, counter=C, store=store)
    names = _run(mem, seed=1)
    state = mem.to_json()
    blobs = mem.offload.ids()
    assert len(blobs) >= 15 and len(_indexes(store, tmp_path)) == len(blobs)
    with_index = _answers(state, store, names[::7])
    assert sum("lines match" in a for a in with_index) >= 10
    assert with_index[6].startswith("10 lines match")  # the anchored one: c10 to c19
    for path in _indexes(store, tmp_path):  # an older session: messages only
        path.unlink()
    assert mem.offload.ids() == blobs  # an index is never taken for a range
    assert _answers(state, store, names[::7]) == with_index


def test_a_literal_search_after_a_restart_reads_only_the_ranges_that_may_hold_it() -> None:
    read: list[str] = []
    store = FaultyStore(index_faults=True, fail_get=lambda key, n: read.append(key) or False)
    mem = AutoContextMemory(CONFIG, counter=C, store=store)
    names = _run(mem, seed=2, steps=200)  # long enough that some names leave the prompt
    fresh = AutoContextMemory.from_json(mem.to_json(), config=CONFIG, counter=C, store=store)
    prompt = "\n".join(visible_text(m) for m in fresh.prompt)
    lost = [n for n in names if n not in prompt]
    assert lost
    read.clear()
    answer = fresh.handle_search_call({"query": lost[0]})
    assert f"def {lost[0]}(path):" in answer
    assert not [k for k in read if k.endswith(".json")]  # no message decoded
    uuid = answer.split("uuid=")[1].split(" ")[0]
    page = int(answer.split(" page ")[1].split(" ")[0])
    assert f"def {lost[0]}(path):" in fresh.handle_reload_call({"uuid": uuid, "page": page})
    # a regular expression, and a literal found only case aside, too
    fresh = AutoContextMemory.from_json(mem.to_json(), config=CONFIG, counter=C, store=store)
    read.clear()
    for query in ({"query": rf"def {lost[0][:-2]}\d\d\(", "regex": True},
                  {"query": lost[0].upper()}):
        assert f"def {lost[0]}(path):" in fresh.handle_search_call(query)
    assert not [k for k in read if k.endswith(".json")]


def test_a_damaged_index_is_read_from_the_messages_and_says_so(
        caplog: pytest.LogCaptureFixture) -> None:
    store = FaultyStore(index_faults=True)
    mem = AutoContextMemory(CONFIG, counter=C, store=store)
    names = _run(mem, seed=3)
    state = mem.to_json()
    good = _answers(state, store, names[::9])
    ids = mem.offload.ids()
    damage = [b"", b"{}\n[]\n", b"not json at all", b'{"v": 1}\n[]\ntext',
              # whole in form, but its text is not what its head says
              b'{"v": 1, "id": "%s", "messages": 2, "inner": [], "uses": {}, "shown": 1, '
              b'"bytes": 9}\n[[5, null, [], "user", null]]\nhello',
              None]  # its own head and text, its layout of the messages lost
    for oid, bad in zip(ids, damage, strict=False):
        key = f"{oid}{INDEX_SUFFIX}"
        if bad is None:
            head, _, text = (store.inner.get(mem.offload.namespace, key) or b"").split(b"\n", 2)
            bad = b"\n".join((head, b"[[1, 2, 3]]", text))
        store.planted[key] = bad.replace(b"%s", oid.encode())
    assert _answers(state, store, names[::9]) == good
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="ctxmgr.autocontext.hidden"):
        mem = AutoContextMemory.from_json(state, config=CONFIG, counter=C, store=store)
        for query in QUERIES:
            mem.handle_search_call(query)
    # each damaged index named once by the session that read it
    assert sum("search index of" in r.getMessage() for r in caplog.records) == len(damage)


def test_an_index_that_cannot_be_written_leaves_compression_and_search_whole(
        caplog: pytest.LogCaptureFixture) -> None:
    store = FaultyStore(index_faults=True, fail_put=lambda key, n: key.endswith(INDEX_SUFFIX))
    mem = AutoContextMemory(CONFIG, counter=C, store=store)
    with caplog.at_level(logging.WARNING, logger="ctxmgr.autocontext.offload"):
        names = _run(mem, seed=4)
    assert mem.offload.ids() and all(e.status == "applied" for e in mem.events)
    assert "could not write search index" in caplog.text
    fresh = AutoContextMemory.from_json(mem.to_json(), config=CONFIG, counter=C, store=store)
    assert f"def {names[0]}(path):" in fresh.handle_search_call({"query": names[0]})


def test_the_index_lays_out_the_reload_text_message_by_message() -> None:
    msgs: list[Message] = [
        user("keep \ud800 lone surrogates and Ünïcode", id="u1"),
        call("c1", id="a1", args={"path": "src/a.py"}),
        result("c1", "1: x\n\n2: y", id="t1"),
        result("c0", "a result whose call is in an earlier range", id="t0"),
        text_message("assistant", "", id="empty"),
    ]
    raw = encode_index("ab" * 16, msgs)
    index = RangeIndex("ab" * 16, raw)
    entries, text = index.entries()
    assert text == render_reloaded(msgs)
    assert entries == message_entries(msgs)
    assert [e.label for e in entries][1:4] == ["assistant, bash call", "bash result",
                                               "tool result"]
    assert entries[3].call == "c0" and entries[2].call is None
    assert index.may_hold("Ünïcode".encode()) and not index.may_hold(b"missing")
    assert index.messages == index.shown == 5 and index.uses == {"c1": "bash"}
    with pytest.raises(ValueError, match="index of"):
        RangeIndex("cd" * 16, raw)  # another range's index is never taken


def test_deleting_a_session_removes_its_indexes_too(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    mem = AutoContextMemory(CONFIG.evolve(project="p"), counter=C, store=store, session="s")
    _run(mem, seed=5, steps=40)
    assert _indexes(store, tmp_path)
    delete_session(store, project="p", session="s")
    assert not _indexes(store, tmp_path) and not list(tmp_path.rglob("*.json"))


@pytest.mark.parametrize("seed", [6, 7])
def test_a_search_reads_the_originals_newest_first_exactly_as_the_walk_lays_them_out(
        seed: int) -> None:
    """A search reads ranges lazily, newest first (so one that has seen enough stops
    before the oldest are decoded): the same passages, labels and places as the walk in
    conversation order, reversed, summaries of summaries opened where they stand."""
    mem = AutoContextMemory(CONFIG, counter=C)
    _run(mem, seed=seed, steps=150)
    view = mem.messages
    assert any(CompressedMarker.of(m) for r in mem.offload.ids()
               for m in mem.offload.load(r))  # ranges hold stand-ins of older ranges
    walked = HiddenOriginals(mem.offload).passages(view)
    lazy, count = HiddenOriginals(mem.offload).newest_first(view, None)
    assert list(lazy) == walked[::-1]
    assert count == len(walked) > 250
    # by id alone, a range may come before the one holding it, and a result before the
    # range of its call: the walk in that order labels it "tool result", a search names
    # its call's tool from every range
    by_id = HiddenOriginals(mem.offload).passages(())
    lazy, _ = HiddenOriginals(mem.offload).newest_first((), None)
    pairs = list(zip(lazy, by_id[::-1], strict=True))
    assert all((a.text, a.source, a.offset) == (b.text, b.source, b.offset) for a, b in pairs)
    assert {(a.label, b.label) for a, b in pairs if a.label != b.label} <= {
        ("bash result", "tool result")}
    # passing by the ranges that cannot hold a word leaves out only their passages
    needle = b"def probe_"
    kept, count = HiddenOriginals(mem.offload).newest_first(
        view, lambda index: index.may_hold(needle))
    kept = list(kept)
    assert count == len(walked) and len(kept) < len(walked)
    assert [p for p in kept if b"def probe_" in p.text.encode()] == [
        p for p in walked[::-1] if b"def probe_" in p.text.encode()]


def test_a_range_indexed_with_its_line_counts_is_paged_as_counting_it_again_would() -> None:
    """A compression that counted its range line by line (for the tag's size) keeps the
    counts in the index, so a search names pages without counting the range again: the
    same pages a reload cuts by counting, for the tokenizer that counted them only."""
    exact = default_counter()  # tiktoken: its counts add up line by line
    mem = AutoContextMemory(AutoContextConfig(max_tokens=32_000,
                                              tuning=Tuning(min_compression_tokens=500)),
                            counter=exact)
    _run(mem, seed=8, steps=200)
    ns, ids = mem.offload.namespace, mem.offload.ids()
    assert len(ids) >= 5
    other = TiktokenCounter(encoding="o200k_base")
    for oid in ids:
        index = RangeIndex(oid, mem.offload.store.get(ns, f"{oid}{INDEX_SUFFIX}") or b"")
        text, messages = index.text(), mem.offload.load(oid)
        saved = saved_line_counts(index.saved_counts, exact, len(text))
        counted = line_counts(text, exact)
        assert saved is not None and counted is not None
        assert (saved.starts, saved.before, saved.whole) == (counted.starts, counted.before,
                                                             counted.whole)
        for room in (300, 2_000):
            assert reload_text_pages(oid, len(messages), text, room, exact, lines=saved) == (
                reload_pages(oid, messages, room, exact))
        assert saved_line_counts(index.saved_counts, other, len(text)) is None
        assert saved_line_counts(index.saved_counts, exact, len(text) + 1) is None
