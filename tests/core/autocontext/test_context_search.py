"""context_search: one detail back from what was compressed away, cheaply and exactly."""

from __future__ import annotations

import random
import re

import pytest
import regex
from builders import C, call, result, system, user
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmgr import AutoContextConfig, AutoContextMemory, InMemoryStore, Tuning, default_counter
from ctxmgr.autocontext import CONTEXT_SEARCH_TOOL
from ctxmgr.autocontext.hidden import Passage
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr.autocontext.search import (
    MAX_COUNTED,
    SEARCH_MAX_TOKENS,
    _collect,
    _leading_literal,
    _regex_matches,
)
from ctxmgr.replay.visible import visible_text

_HIT = re.compile(r"^\[uuid=([0-9a-f]{16}) page (\d+) of (\d+); ", re.M)


def _names(seed: int, n: int) -> list[str]:
    """``n`` distinct made-up function names (no fixture phrasing to lean on)."""
    rng = random.Random(seed)
    parts = ["lint", "parse", "load", "flush", "merge", "render", "scan", "emit", "probe"]
    names: set[str] = set()
    while len(names) < n:
        names.add(f"{rng.choice(parts)}_{rng.choice(parts)}_{rng.randrange(10**6)}")
    return sorted(names)


def _memory(seed: int = 0, groups: int = 60, *, store: InMemoryStore | None = None,
            session: str = "default") -> tuple[AutoContextMemory, list[str]]:
    """A coding run of ``groups`` greps, each defining one function on a numbered line,
    compressed to an 8k window (most of it offloaded)."""
    names = _names(seed, groups)
    # a short identifiers line (800 characters): most of the names leave the prompt
    mem = AutoContextMemory(AutoContextConfig(max_tokens=8000,
                                              tuning=Tuning(min_compression_tokens=500,
                                                            identifiers_chars=800)),
                            counter=C, store=store, session=session)
    mem.add([system(), user("fix the linter", id="u0")])
    _greps(mem, names)
    return mem, names


def _greps(mem: AutoContextMemory, names: list[str], *, round_: str = "m",
           first_line: int = 100) -> None:
    """One grep per name, each result 30 numbered lines with ``def <name>(path):`` on one
    of them, compressing after each (``round_`` keeps ids and files apart)."""
    for k, name in enumerate(names):
        lines = [f"{first_line + n}: {round_}{k} " + "x" * 50 for n in range(30)]
        lines[k % 30] = f"{first_line + k % 30}: def {name}(path):"
        mem.add([call(f"{round_}c{k}", id=f"{round_}a{k}",
                      args={"command": f"grep -n def src/{round_}{k}.py"}),
                 result(f"{round_}c{k}", "\n".join(lines), id=f"{round_}t{k}")])
        mem.compress_if_needed()


def _hidden(mem: AutoContextMemory, names: list[str]) -> list[str]:
    prompt = "\n".join(visible_text(m) for m in mem.prompt)
    return [n for n in names if n not in prompt]


def test_one_search_finds_a_line_the_prompt_lost_and_names_the_page_that_holds_it() -> None:
    mem, names = _memory(seed=1)
    lost = _hidden(mem, names)
    assert len(lost) >= 10  # the run was compressed: definitions left the prompt
    for name in lost:
        answer = mem.handle_search_call({"query": name})
        line = next(x for x in answer.splitlines() if x.startswith("> "))
        assert f"def {name}(path):" in line  # the line itself, with its line number
        uuid, page, pages = _HIT.search(answer).groups()
        reloaded = mem.handle_reload_call({"uuid": uuid, "page": int(page)})
        assert f"def {name}(path):" in reloaded  # the page it named holds it
        assert f"page {page} of {pages}" in reloaded or pages == "1"


def test_a_search_after_a_later_compression_finds_what_that_compression_hid() -> None:
    mem, names = _memory(seed=5)
    assert "def " in mem.handle_search_call({"query": _hidden(mem, names)[0]})  # caches filled
    later = _names(6, 40)
    _greps(mem, later, round_="n", first_line=200)
    lost = _hidden(mem, later)
    assert lost  # the later compressions hid some of them
    for name in lost:
        assert f"def {name}(path):" in mem.handle_search_call({"query": name})


def test_hits_come_from_the_originals_never_from_a_summary_of_them() -> None:
    mem, names = _memory(seed=2, groups=90)
    nested = [oid for m in mem.prompt for oid in find_offload_ids(m.text)]
    assert nested
    answer = mem.handle_search_call({"query": "grep -n def src/m0.py"})
    # the oldest call is inside a range a later summary absorbed: found, as the call itself
    assert "bash call" in answer and '"grep -n def src/m0.py"' in answer
    for uuid in _HIT.findall(answer):
        assert all("CONTEXT_OFFLOAD" not in x for x in answer.splitlines()
                   if x.startswith("> ")), uuid


def test_literal_and_case_sensitive_by_default_with_a_case_blind_fallback() -> None:
    mem, names = _memory(seed=3)
    name = _hidden(mem, names)[0]
    assert mem.handle_search_call({"query": name}).startswith("1 lines match")
    upper = mem.handle_search_call({"query": name.upper()})
    assert "lines matching, case aside," in upper and name in upper
    # characters special to a regex are literal unless regex is true
    assert mem.handle_search_call({"query": "def .*\\("}).startswith("No match for")
    assert "def " in mem.handle_search_call({"query": r"def \w+_\d+\(", "regex": True})


@pytest.mark.parametrize("bad", [
    "not json", 5, [], {}, {"query": ""}, {"query": "   "}, {"query": 7},
    {"query": "x", "regex": "maybe"}, {"query": "x", "max_results": 0},
    {"query": "x", "max_results": True}, {"query": "x", "page": -1},
    {"query": "x" * 5000}, {"query": "(unclosed", "regex": True},
])
def test_bad_input_is_one_line_that_says_what_to_send(bad: object) -> None:
    mem, _ = _memory(seed=4, groups=20)
    answer = mem.handle_search_call(bad)
    assert answer.startswith("Error:") and "\n" not in answer and len(answer) < 400


def test_a_runaway_regular_expression_is_stopped_with_one_line() -> None:
    mem = AutoContextMemory(AutoContextConfig(max_tokens=2000,
                                              tuning=Tuning(min_compression_tokens=100)),
                            counter=C)
    mem.add([system(), user("go", id="u0")])
    for k in range(12):
        mem.add([call(f"c{k}", id=f"a{k}"), result(f"c{k}", "x" * 3000 + " ", id=f"t{k}")])
    mem.compress_if_needed()
    answer = mem.handle_search_call({"query": "(x+x+)+y", "regex": True})
    assert answer.startswith("Error: the regular expression") and "\n" not in answer


def test_many_matches_come_in_pages_within_the_cap_and_the_count_is_told() -> None:
    mem, _ = _memory(seed=5, groups=80)
    counter = default_counter()
    first = mem.handle_search_call({"query": "xxxxx", "max_results": 10})
    assert counter.count_text(first) <= SEARCH_MAX_TOKENS
    total = int(re.match(r"(?:more than )?(\d+) lines match", first).group(1))
    assert total > 100
    assert f'{total - 10} more: the same call with "page": 2.' in first
    second = mem.handle_search_call({"query": "xxxxx", "max_results": 10, "page": 2})
    assert "; 11-20):" in second and counter.count_text(second) <= SEARCH_MAX_TOKENS
    shown = [x for a in (first, second) for x in a.splitlines() if x.startswith("> ")]
    assert len(shown) == len(set(shown)) == 20  # page 2 goes on where page 1 stopped
    assert mem.handle_search_call({"query": "xxxxx", "page": 10**6}).startswith("Error:")
    # 2,400 lines match: counted to MAX_COUNTED, then "more than"
    assert first.startswith(f"more than {MAX_COUNTED} lines match") and MAX_COUNTED >= 1000


def test_a_page_asked_larger_than_the_cap_holds_is_cut_and_says_its_size() -> None:
    mem, _ = _memory(seed=9, groups=80)
    answer = mem.handle_search_call({"query": "xxxxx", "max_results": 20})
    assert default_counter().count_text(answer) <= SEARCH_MAX_TOKENS
    size = int(re.search(r'the same call with "max_results": (\d+), "page": 2', answer)[1])
    assert size < 20 and f"; 1-{size}):" in answer


def test_an_answer_never_takes_more_than_the_room_left() -> None:
    mem, _ = _memory(seed=6, groups=80)
    answer = mem.handle_search_call({"query": "xxxxx", "max_results": 20})
    assert mem.tokens + C.count_text(answer) <= mem.config.max_tokens


def test_a_search_never_reads_another_session() -> None:
    store = InMemoryStore()
    alice, alice_names = _memory(seed=7, store=store, session="alice")
    bob, _ = _memory(seed=8, store=store, session="bob")
    for name in _hidden(alice, alice_names)[:10]:
        assert bob.handle_search_call({"query": name}).startswith("No match for")
        assert name in alice.handle_search_call({"query": name})


def test_the_tool_schema_is_what_the_issue_asks() -> None:
    params = CONTEXT_SEARCH_TOOL.to_openai()["function"]["parameters"]
    assert params["required"] == ["query"]
    assert set(params["properties"]) == {"query", "regex", "max_results", "page"}
    assert CONTEXT_SEARCH_TOOL.to_anthropic()["name"] == "context_search"


def test_a_result_is_named_by_the_call_before_it_even_when_ranges_split_them() -> None:
    """A walk names a tool result by the latest call with its id said before it, in the
    conversation's order, across nested ranges (providers reuse call ids)."""
    from ctxmgr.autocontext.hidden import HiddenOriginals
    from ctxmgr.autocontext.offload import OffloadStore
    from ctxmgr.messages import Message, text_message

    def stand_in(offload_id: str, id: str) -> Message:
        marker = {"compressed": True, "offload_id": offload_id, "range": True, "strategy": 4}
        return text_message("assistant", f"summary <!-- CONTEXT_OFFLOAD: uuid={offload_id} -->",
                            id=id, metadata={"ctxmgr": marker})

    offload = OffloadStore(InMemoryStore(), project="p", session="s")
    inner = offload.save([call("c1", "a1", name="read_file")])
    outer = offload.save([stand_in(inner, "s1"), result("c1", "x = 1", "t1"),
                          call("c1", "a2", name="grep"), result("c1", "src/a.py:3: x", "t2"),
                          user("thanks", id="u1")])
    view = [system(), stand_in(outer, "s2")]

    labels = [p.label for p in HiddenOriginals(offload).passages(view)]

    assert labels == ["assistant, read_file call", "read_file result", "assistant, grep call",
                      "grep result", "user"]


def _each_alone(passages: list[Passage], pattern: str) -> list[tuple[str, int, int]]:
    """What a search finds taking one passage at a time: (passage, line start, match
    start) of the first match on each line not shown already, newest passage first."""
    compiled = regex.compile(pattern)
    out = []
    seen = set()
    for p in reversed(passages):
        pos = 0
        while pos <= len(p.text):
            m = compiled.search(p.text, pos)
            if m is None:
                break
            start = p.text.rfind("\n", 0, m.start()) + 1
            end = p.text.find("\n", m.start())
            end = len(p.text) if end < 0 else end
            if p.text[start:end].strip() not in seen:
                seen.add(p.text[start:end].strip())
                out.append((p.source, start, m.start()))
            pos = end + 1
    return out


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(st.text(alphabet="ab x\n", max_size=12), min_size=1, max_size=150),
       pattern=st.sampled_from([
           "ab", "a b", "b\\s+a", "a[\\s\\S]*?b", "(?s)x.+a", "x*", "\\bab\\b", "(?i)AB",
           "b\\n", "\\n\\n", "[^a]x", "^a", "b$", "\\Aa", "a\\Z", "(?<=b)a", "a(?!b)",
           "\\Ba", "(?m)^x", "(?r)ab"]))
def test_a_regex_finds_what_it_finds_in_each_passage_alone(texts: list[str],
                                                          pattern: str) -> None:
    # passages are searched in chunks joined by a newline, for speed: a match across two
    # passages, an anchor or a lookaround must not find more, fewer or other lines
    passages = [Passage(text=t, source=f"p{k}") for k, t in enumerate(texts)]
    hits, total = _collect(_regex_matches(passages[::-1], regex.compile(pattern)),
                           want=10**6)
    assert [(h.passage.source, h.start, h.match[0]) for h in hits] == _each_alone(
        passages, pattern)
    assert total == len(hits)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="abc x.\n", max_size=300),
       pattern=st.lists(st.sampled_from(["a", "b", "c", "x", " ", "ab", "a*", "b?", "c+",
                                          "\\w", ".", "[ab]", "x{1,2}", "(?:ab)", "\\n"]),
                        min_size=1, max_size=7).map("".join))
def test_every_match_of_a_regex_starts_with_its_leading_literal(text: str,
                                                                pattern: str) -> None:
    """What lets a regular expression pass by a range whose raw bytes lack its leading
    literal: every match begins with it."""
    compiled = regex.compile(pattern)
    literal = _leading_literal(compiled)
    if literal is not None:
        assert len(literal) >= 3
        assert all(m.group().startswith(literal) for m in compiled.finditer(text))
