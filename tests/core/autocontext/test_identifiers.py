"""A stand-in can name the paths and identifiers its summary lost."""

from __future__ import annotations

import dataclasses
import json

from builders import C, call, result, system, user
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmgr import AutoContextConfig, AutoContextMemory, Tuning
from ctxmgr.autocontext.identifiers import (
    VisibleIdentifiers,
    distinctive_after,
    distinctive_strings,
    identifiers_note,
    preview_note,
)
from ctxmgr.autocontext.marker import offload_tag
from ctxmgr.messages import Message, ToolResultBlock, text_message


def test_the_rule_keeps_paths_identifiers_and_numbers_not_plain_words() -> None:
    text = "Traceback: lint_path in src/sqlfluff/core/linter.py line 800, FAILED 3f2a9c1e"
    assert list(distinctive_strings(text)) == [
        "lint_path", "src/sqlfluff/core/linter.py", "3f2a9c1e"]


def test_the_note_names_what_the_summary_lacks_most_recent_first_within_its_size() -> None:
    padding = " and some plain words around it" * 4
    replaced = [result("c1", "old_helper in a/old.py" + padding, id="t1"),
                result("c2", "new_helper in b/new_module.py" + padding, id="t2")]
    note = identifiers_note(replaced, "summary mentions old_helper", 200)
    assert note == "Identifiers in the original: b/new_module.py, new_helper, a/old.py"
    assert identifiers_note(replaced, "", 0) == ""
    assert len(identifiers_note(replaced, "", 45)) <= 45


def test_the_note_names_values_not_json_keys_argument_names_or_offload_ids() -> None:
    # what the agent copies next: the values; keys and argument names are the tool's
    # schema, repeated in every record, and an offload id is reloaded by the stand-in's tag
    rows = [{"reservation_id": "XEHM4B", "payment_method": "gift_card_6847880",
             "status": "confirmed", "cabin": "economy", "insurance": "no"},
            {"reservation_id": "59XX6W", "payment_method": "certificate_3765853",
             "status": "confirmed", "cabin": "business", "insurance": "yes"}]
    replaced = [call("c1", id="a1", name="get_user_details",
                     args={"user_id": "mohamed_silva_9265"}),
                result("c1", json.dumps(rows) + "\n<!-- CONTEXT_OFFLOAD: uuid=2c641fa2902fac9c -->",
                       id="t1")]
    note = identifiers_note(replaced, "", 400)
    assert set(note.removeprefix("Identifiers in the original: ").split(", ")) == {
        "XEHM4B", "59XX6W", "gift_card_6847880", "certificate_3765853", "mohamed_silva_9265"}
    # a key that is also a value somewhere is a value
    sort = [result("c2", json.dumps({"sort_by": "reservation_id", "rows": rows}), id="t2")]
    assert "reservation_id" in identifiers_note(sort, "", 400)


def test_summaries_carry_the_note_by_default_and_not_when_switched_off() -> None:
    h = [system(), user("task", id="u0")]
    for k in range(40):
        h += [call(f"c{k}", id=f"a{k}"),
              result(f"c{k}", f"def handler_{k}(): in pkg/module_{k}.py\n" + "x" * 1500,
                     id=f"t{k}")]
    plain = AutoContextMemory(AutoContextConfig(max_tokens=16_000,
                                                tuning=Tuning(identifiers_chars=0)),
                              counter=C)
    noted = AutoContextMemory(AutoContextConfig(max_tokens=16_000), counter=C)
    for mem in (plain, noted):
        mem.add(h)
        mem.compress_if_needed()
    def text(mem: AutoContextMemory) -> str:
        return "\n".join(m.text + "".join(r.text for r in m.tool_results)
                         for m in mem.messages)
    assert "Identifiers in the original:" not in text(plain)
    assert "Identifiers in the original:" in text(noted)
    assert sum(f"pkg/module_{k}.py" in text(noted) for k in range(40)) > sum(
        f"pkg/module_{k}.py" in text(plain) for k in range(40))


def test_the_note_never_outweighs_half_of_what_it_stands_for() -> None:
    # grep output over a tree is nearly all paths: the stand-in must still free half
    paths = "\n".join(f"src/pkg_{k}/module_{k}.py:{k}: def handler_{k}():" for k in range(400))
    note = identifiers_note([result("c1", paths, id="t1")], "", 100_000)
    assert "src/pkg_399/module_399.py" in note  # most recent first
    assert len(note) <= len(paths) // 2


def test_the_note_leaves_out_blobs() -> None:
    replaced = [result("c1", "aGVsbG8gd29ybGQ" * 40 + " real_helper", id="t1")]
    assert identifiers_note(replaced, "", 10_000) == "Identifiers in the original: real_helper"


def test_the_note_leaves_out_what_the_rest_of_the_prompt_shows() -> None:
    replaced = [result("c1", "shared_util.py and own_helper_1" + " plain words" * 10,
                       id="t1")]
    note = identifiers_note(replaced, "", 200, elsewhere=frozenset({"shared_util.py"}))
    assert note == "Identifiers in the original: own_helper_1"


def test_visible_identifiers_follow_replacements() -> None:
    work = [result("c1", "shared_util.py one_1", id="t1"),
            result("c2", "shared_util.py two_22", id="t2")]
    visible = VisibleIdentifiers(work)
    assert visible.outside(0, 1) == {"shared_util.py"}
    stand_in = [user("[offloaded]", id="t1")]  # the first result gave way to a bare note
    visible.replace(0, 1, stand_in)
    work[0:1] = stand_in
    assert visible.outside(1, 2) == frozenset()  # now only the second one shows it


def test_a_message_is_read_once_and_an_edited_copy_afresh() -> None:
    # every step indexes the whole prompt: each message's strings are read once and kept
    # on it (it never changes); a copy with other content is read again
    padding = " and some plain words around it" * 4
    first = result("c1", "old_helper in a/old.py" + padding, id="t1")
    assert VisibleIdentifiers([first, user("x", id="u1")]).outside(0, 1) == frozenset()
    assert "distinctive" in first._derived
    other = ToolResultBlock(tool_use_id="c1", content="new_helper in b/new.py" + padding)
    edited = dataclasses.replace(first, content=(other,))
    assert edited._derived == {}
    assert identifiers_note([edited], "", 200) == (
        "Identifiers in the original: b/new.py, new_helper")
    assert identifiers_note([first], "", 200) == (
        "Identifiers in the original: a/old.py, old_helper")


def _identifier_lines(messages: list[Message]) -> list[str]:
    return [line for m in messages
            for line in (m.text + "".join(r.text for r in m.tool_results)).splitlines()
            if line.startswith("Identifiers in the original:")]


def _history(shared_in_tail: bool) -> list[Message]:
    h = [system(), user("task", id="u0")]
    for k in range(40):
        shared = " pkg/shared_util.py" if shared_in_tail or k < 30 else ""
        h += [call(f"c{k}", id=f"a{k}"),  # the path comes last: past any preview's cut
              result(f"c{k}", f"def handler_{k}(): in pkg/module_{k}.py\n" + "x" * 1500 + shared,
                     id=f"t{k}")]
    return h


def test_a_string_the_kept_messages_show_is_not_repeated_on_every_stand_in() -> None:
    mem = AutoContextMemory(AutoContextConfig(max_tokens=16_000), counter=C)
    mem.add(_history(shared_in_tail=True))
    assert mem.compress_if_needed()
    lines = _identifier_lines(mem.messages)
    assert lines and not any("pkg/shared_util.py" in line for line in lines)
    assert any("pkg/shared_util.py" in m.text + "".join(r.text for r in m.tool_results)
               for m in mem.messages)  # still in the prompt, in a kept result


def test_a_string_only_compressed_messages_showed_stays_in_the_prompt_once() -> None:
    mem = AutoContextMemory(AutoContextConfig(max_tokens=16_000), counter=C)
    mem.add(_history(shared_in_tail=False))
    assert mem.compress_if_needed()
    text = "\n".join(m.text + "".join(r.text for r in m.tool_results) for m in mem.messages)
    assert "pkg/shared_util.py" in text
    assert sum("pkg/shared_util.py" in line for line in _identifier_lines(mem.messages)) <= 1


_PIECES = st.sampled_from(["a", "Ab", "x_1", "src/", ".py", "-", ":", ".", "/", " ", "\n",
                           "9f3a", "QUERY", "é", "语", "\"k\":", "dir/sub/file_name.py"])


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=40), cut=st.integers(min_value=0, max_value=400))
def test_the_strings_after_a_cut_are_read_from_the_whole_texts(pieces: list[str],
                                                               cut: int) -> None:
    # a preview's note reads its rest's strings from the message's, not the rest again
    text = "".join(pieces)
    at = min(cut, len(text))
    assert distinctive_after(text, list(distinctive_strings(text)), at) == list(
        distinctive_strings(text[at:]))


@settings(max_examples=100, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=60), cut=st.integers(min_value=0, max_value=600),
       tagged=st.booleans())
def test_a_preview_note_is_the_note_of_what_the_preview_leaves_out(
        pieces: list[str], cut: int, tagged: bool) -> None:
    text = "".join(pieces) + (f"\n{offload_tag('ab12cd34ef56ab78')}" if tagged else "")
    at = min(cut, len(text))
    m = result("c1", text, id="t1")
    assert preview_note(m, text, at, 200) == identifiers_note(
        [text_message("tool", text[at:])], text[:at], 200)
