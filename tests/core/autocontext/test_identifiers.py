"""A stand-in can name the paths and identifiers its summary lost."""

from __future__ import annotations

from builders import C, call, result, system, user

from ctxmgr import AutoContextConfig, AutoContextMemory
from ctxmgr.autocontext.identifiers import distinctive_strings, identifiers_note


def test_the_rule_keeps_paths_identifiers_and_numbers_not_plain_words() -> None:
    text = "Traceback: lint_path in src/sqlfluff/core/linter.py line 800, FAILED 3f2a9c1e"
    assert list(distinctive_strings(text)) == [
        "lint_path", "src/sqlfluff/core/linter.py", "3f2a9c1e"]


def test_the_note_names_what_the_summary_lacks_most_recent_first_within_its_size() -> None:
    replaced = [result("c1", "old_helper in a/old.py", id="t1"),
                result("c2", "new_helper in b/new_module.py", id="t2")]
    note = identifiers_note(replaced, "summary mentions old_helper", 200)
    assert note == "Identifiers in the original: b/new_module.py, new_helper, a/old.py"
    assert identifiers_note(replaced, "", 0) == ""
    assert len(identifiers_note(replaced, "", 45)) <= 45


def test_summaries_carry_the_note_when_switched_on() -> None:
    h = [system(), user("task", id="u0")]
    for k in range(40):
        h += [call(f"c{k}", id=f"a{k}"),
              result(f"c{k}", f"def handler_{k}(): in pkg/module_{k}.py\n" + "x" * 1500,
                     id=f"t{k}")]
    plain = AutoContextMemory(AutoContextConfig(max_tokens=16_000), counter=C)
    noted = AutoContextMemory(AutoContextConfig(max_tokens=16_000, identifiers_chars=600),
                              counter=C)
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
