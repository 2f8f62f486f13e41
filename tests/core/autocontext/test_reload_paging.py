"""context_reload never overflows: a long range comes back in pages sized to the room."""

from __future__ import annotations

import json
import random

import pytest
from builders import C, call, result, system, user
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmgr import AutoContextConfig, AutoContextMemory, Tuning, default_counter
from ctxmgr.autocontext import CONTEXT_RELOAD_TOOL
from ctxmgr.autocontext.paging import MIN_PAGE_TOKENS, paginate
from ctxmgr.autocontext.reload import render_reloaded
from ctxmgr.session.calibration import Calibration
from ctxmgr.tokens import TiktokenCounter


def compressed_memory() -> tuple[AutoContextMemory, str]:
    mem = AutoContextMemory(AutoContextConfig(max_tokens=8000,
                                              tuning=Tuning(min_compression_tokens=500)),
                            counter=C)
    mem.add([system(), user("task", id="u0")])
    for k in range(60):
        body = "\n".join(f"line {k}.{n}: " + "x" * 60 for n in range(20))
        mem.add([call(f"c{k}", id=f"a{k}"), result(f"c{k}", body, id=f"t{k}")])
    events = [e for e in mem.compress_if_needed() if e.status == "applied"]
    biggest = max(events, key=lambda e: len(e.replaced_ids))
    assert biggest.offload_id is not None
    return mem, biggest.offload_id


def test_pages_join_back_to_the_text_and_each_fits_the_room() -> None:
    text = "\n".join(f"row {n} " + "y" * (n % 90) for n in range(3000))
    pages = paginate(text, 500, C)
    assert "".join(pages) == text and len(pages) > 5
    assert all(C.count_text(p) <= 500 for p in pages)
    assert all(p.endswith("\n") for p in pages[:-1])  # cut at line breaks


class _Tallied(TiktokenCounter):
    """The exact counter, keeping how many characters it was asked to count."""

    def __init__(self, encoding: str) -> None:
        super().__init__(encoding=encoding)
        self.chars = 0

    def count_text(self, text: str) -> int:
        self.chars += len(text)
        return super().count_text(text)


def _range_text(rng: random.Random) -> str:
    """A reload text as tool output makes them: numbered code, blank lines, paths that
    start lines with '/', a long JSON line, non-ASCII."""
    rows: list[str] = []
    for n in range(rng.randrange(200, 900)):
        kind = rng.random()
        if kind < 0.5:
            rows.append(f"{n:6d}\t{'    ' * rng.randrange(3)}x_{rng.randrange(10**6)} = "
                        f"call(a, {rng.randrange(99)})")
        elif kind < 0.6:
            rows.append(" " * rng.randrange(3))
        elif kind < 0.7:
            rows.append(f"/usr/lib/python3/{rng.randrange(10**4)}.py:{n}: error")
        elif kind < 0.75:
            rows.append(json.dumps({f"k{i}": "v" * rng.randrange(40) for i in range(40)}))
        else:
            rows.append(rng.choice(["[tool result id=c1]", "énoncé ünï 中文 🙂", "}", "\t}",
                                    "- item", "# heading"]))
    return "\n".join(rows)


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_pages_cut_from_line_counts_fit_and_the_range_is_counted_once(encoding: str) -> None:
    """With a counter whose counts add up line by line, every page still fits when counted
    on its own, joins back to the text, and ends at a line break unless a line is longer
    than half a page. Where no line is (the 3,000-token pages here), cutting every page
    costs one count of the text, where searching each page's end cost 3-4; a page that
    must cut a long line still searches its end by characters."""
    rng = random.Random(encoding)
    scaled = Calibration(ratio=1.35).counter(TiktokenCounter(encoding=encoding))
    for _ in range(6):
        text = _range_text(rng)
        for limit in (150, 700, 3000):
            counter = _Tallied(encoding)
            pages = paginate(text, limit, counter)
            assert "".join(pages) == text
            assert all(counter.count_text(p) <= limit for p in pages)
            cut = 0
            for page in pages[:-1]:  # at a line break, or in a line over half the page
                cut += len(page)
                line = text[text.rfind("\n", 0, cut) + 1:text.find("\n", cut)]
                assert page.endswith("\n") or 2 * len(line) > len(page)
            tallied = counter.chars - sum(map(len, pages))
            if limit == 3000:  # no line is longer than half a page
                assert tallied == len(text)
            pages = paginate(text, limit, scaled)  # calibrated: scaled counts, still exact
            assert "".join(pages) == text
            assert all(scaled.count_text(p) <= limit for p in pages)


def test_a_page_is_never_smaller_than_the_floor() -> None:
    pages = paginate("z" * 5000, 3, C)
    assert all(C.count_text(p) <= MIN_PAGE_TOKENS for p in pages)
    assert len(pages) == -(-C.count_text("z" * 5000) // MIN_PAGE_TOKENS)


def test_a_long_range_comes_back_in_pages_that_say_how_to_get_the_next() -> None:
    mem, oid = compressed_memory()
    whole = render_reloaded(mem.reload(oid))
    room = 400
    first = mem.handle_reload_call({"uuid": oid}, reload_room=room)
    assert C.count_text(first) <= room
    head, _, body = first.partition("\n\n")
    assert ", page 1 of " in head and json.dumps({"uuid": oid, "page": 2}) in head
    n = int(head.split(" of ")[1].split(".")[0])
    pages = [body] + [mem.handle_reload_call({"uuid": oid, "page": k}, reload_room=room)
                      .partition("\n\n")[2] for k in range(2, n + 1)]
    assert "".join(pages) == whole  # every byte, in order
    last = mem.handle_reload_call({"uuid": oid, "page": n}, reload_room=room)
    assert "This is the last page." in last.partition("\n\n")[0]
    assert mem.handle_reload_call({"uuid": oid, "page": n + 1}, reload_room=room).startswith(
        f"Error: uuid {oid} has {n} page(s)")


def test_by_default_the_memory_pages_to_the_room_its_window_has_left() -> None:
    mem, oid = compressed_memory()
    answer = mem.handle_reload_call({"uuid": oid})
    assert mem.tokens + C.count_text(answer) <= mem.config.max_tokens


def test_a_range_that_fits_comes_back_whole_as_before() -> None:
    mem, oid = compressed_memory()
    whole = mem.handle_reload_call({"uuid": oid}, reload_room=None)
    text = render_reloaded(mem.reload(oid))
    assert whole == (f"Reloaded {len(mem.reload(oid))} original message(s) for uuid {oid} "
                     f"({len(text):,} characters, {C.count_text(text):,} tokens):\n\n{text}")
    assert mem.handle_reload_call({"uuid": oid}, reload_room=10**9) == whole


def test_bad_page_numbers_are_one_clear_line() -> None:
    mem, oid = compressed_memory()
    for bad in (0, -1, "two", 1.5, True):
        assert mem.handle_reload_call({"uuid": oid, "page": bad}, reload_room=300).startswith(
            "Error: page must be a whole number from 1")
    schema = CONTEXT_RELOAD_TOOL.to_openai()["function"]["parameters"]
    assert schema["properties"]["page"]["type"] == "integer" and schema["required"] == ["uuid"]


def test_pages_fit_the_room_with_an_exact_tokenizer_too() -> None:
    """A BPE splits the uuid the note repeats into many tokens: every page still fits."""
    exact = default_counter()
    mem, oid = compressed_memory()
    memory = AutoContextMemory(mem.config, counter=exact, store=mem.offload.store)
    room = 300
    first = memory.handle_reload_call({"uuid": oid}, reload_room=room)
    n = int(first.partition("\n\n")[0].split(" of ")[1].split(".")[0])
    assert n > 2 and exact.count_text(first) <= room
    for k in (2, n):
        page = memory.handle_reload_call({"uuid": oid, "page": k}, reload_room=room)
        assert exact.count_text(page) <= room, k


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(st.text(alphabet=" ab{}\u00e9\u4e2d0129", max_size=300), min_size=1,
                      max_size=120),
       size=st.sampled_from([100, 150, 400, 1200]))
def test_any_text_is_cut_into_pages_that_fit_and_end_at_a_late_line_break(
        lines: list[str], size: int) -> None:
    text = "\n".join(lines)
    pages = paginate(text, size, C)
    assert "".join(pages) == text and all(pages[1:])
    assert all(C.count_text(p) <= size for p in pages)
    for page in pages[:-1]:  # a page ends at a line break when one is in its second half
        assert page.endswith("\n") or "\n" not in page[len(page) // 2:]
