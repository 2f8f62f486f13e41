"""The key argument of a tool call: what names a call in a stand-in's record and in
replay's ``actions_retained``, so the agent (and the measure) can tell which calls were
already made. The rule is in :mod:`ctxmgr.autocontext.actions`' docstring."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import json_objects

from ctxmgr.autocontext.actions import KEY_CHARS, collapse_whitespace, key_argument, name_parts
from ctxmgr.messages import ToolUseBlock


def key(**arguments: Any) -> str:
    return key_argument(ToolUseBlock(id="c1", name="tool", input=arguments))


# ---------------------------------------------------------------- which argument


def test_a_path_comes_first_wherever_it_is_among_the_arguments() -> None:
    assert key(command="cat the file", path="src/app.py") == "src/app.py"
    assert key(query="the readme", filename="README.md") == "README.md"  # an extension
    assert key(old_str="x = 1", new_str="x = 2", path="/repo/pkg/mod.py") == "/repo/pkg/mod.py"


def test_a_command_with_spaces_is_not_taken_for_a_path() -> None:
    assert key(command="cd /repo && ls src/") == "cd /repo && ls src/"


def test_without_a_path_the_first_string_that_is_not_a_plain_word_is_the_key() -> None:
    assert key(mode="fast", command="grep -rn TODO src") == "grep -rn TODO src"
    assert key(user_id="mia_li_3668") == "mia_li_3668"
    assert key(reservation_id="ABC123", cabin="economy") == "ABC123"


def test_an_id_is_the_key_even_after_a_bare_count() -> None:
    assert key(limit=5, user_id="mia_li_3668") == "mia_li_3668"
    assert key(user_id="mia_li_3668", limit=5) == "mia_li_3668"


def test_plain_words_and_numbers_alone_give_the_first_of_them() -> None:
    assert key(mode="fast", level="high") == "fast"
    assert key(limit=5, mode="fast") == "5"
    assert key(ratio=0.5) == "0.5"


def test_a_call_without_string_or_number_arguments_has_no_key() -> None:
    assert key() == ""
    assert key(verbose=True, cursor=None) == ""  # booleans and null name nothing
    assert key(command="   ", note="\n\n") == ""  # nor does whitespace


def test_only_top_level_values_count() -> None:
    assert key(options={"path": "a/b.py"}, query="find usages") == "find usages"
    assert key(files=["a/b.py", "c/d.py"]) == ""


# ---------------------------------------------------------------- its name


def test_a_multi_line_value_is_named_by_its_first_non_empty_line_whitespace_collapsed() -> None:
    assert key(command="\n\n  cd /repo &&   pytest -q\n  tests/test_booking.py") == \
        "cd /repo && pytest -q"
    heredoc = "cat > repro.py << 'EOF'\nimport json\nprint(json.dumps({}))\nEOF"
    assert key(command=heredoc) == "cat > repro.py << 'EOF'"


def test_a_long_value_without_a_path_at_its_end_keeps_its_start_cut_at_a_word() -> None:
    command = "python -m pytest tests/test_models.py tests/test_views.py -x -q --tb=short"
    assert key(command=command) == \
        "python -m pytest tests/test_models.py tests/test_views.py …"
    note = ("Calculate the total cost for upgrading both passengers to business class and "
            "compare it with the budget.")
    assert key(thought=note) == "Calculate the total cost for upgrading both passengers to …"


def test_a_value_of_exactly_60_characters_is_kept_whole() -> None:
    command = "echo " + "x" * 55
    assert key(command=command) == command


def test_a_long_value_without_a_late_boundary_is_cut_where_the_room_ends() -> None:
    # a word boundary before character 44 would throw away more than a quarter of it
    command = "python -m pytest tests/test_something_long.py::TestClass::test_method_x -x"
    assert key(command=command) == command[:58] + " …"
    assert key(command="x" * 80) == "x" * 58 + " …"


def test_a_command_keeps_the_path_it_ends_on() -> None:
    # issue 41: the record named this call 'grep -n -B20 "def test_reindl"', with no file
    assert key(command='grep -n -B20 "def test_reindl" ./pvlib/tests/test_irradiance.py') \
        == 'grep -n -B20 "def test_reindl" … tests/test_irradiance.py'
    assert key(command="sed -n '1871,1920p' /testbed/src/sqlfluff/dialects/dialect_ansi.py") \
        == "sed -n '1871,1920p' … src/sqlfluff/dialects/dialect_ansi.py"


def test_what_follows_the_path_comes_with_it_when_it_fits() -> None:
    assert key(command='grep -n "def iter_partials" src/sqlfluff/core/linter/runner.py -A20') \
        == 'grep -n "def iter_partials" … core/linter/runner.py -A20'
    assert key(command='grep -n -B10 -A10 "@pytest.fixture" ./pvlib/tests/test_irradiance.py'
                       ' | grep -A10 "irrad_data"') \
        == 'grep -n -B10 -A10 "@pytest.fixture" … test_irradiance.py …'


def test_a_long_start_is_cut_beside_the_file_name() -> None:
    assert key(command='cd /testbed && grep -n "def get_group_by_cols" '
                       "django/db/models/expressions.py") \
        == 'cd /testbed && grep -n "def get_group_by_co … expressions.py'


def test_a_path_early_in_the_line_needs_no_ellipsis_before_it() -> None:
    command = "cat src/sqlfluff/rules/L036.py | grep -n -B5 -A15 \"ws_to_delete\" | head -40"
    assert key(command=command) == "cat src/sqlfluff/rules/L036.py | grep -n -B5 -A15 …"


def test_a_redirection_or_a_sed_script_is_not_taken_for_the_path() -> None:
    command = ("cd /testbed && git diff src/sqlfluff/rules/L003.py > my_patch.txt 2>/dev/null "
               "&& echo done")
    assert key(command=command).endswith("… my_patch.txt …")


def test_the_parts_of_a_name_are_the_stretches_between_its_ellipses() -> None:
    assert name_parts('grep -n "x" … tests/test_a.py …') == ('grep -n "x"', "tests/test_a.py")
    assert name_parts("cat a.py") == ("cat a.py",)
    assert name_parts("") == ()


# ---------------------------------------------------------------- properties


@settings(max_examples=200, deadline=None)
@given(arguments=json_objects())
def test_the_key_shows_pieces_of_one_top_level_values_first_line_in_60_characters(
        arguments: dict[str, Any]) -> None:
    head = key_argument(ToolUseBlock(id="c1", name="tool", input=arguments))
    assert len(head) <= KEY_CHARS
    if not head:
        return
    lines = [collapse_whitespace(next((ln for ln in str(v).splitlines() if ln.strip()), ""))
             for v in arguments.values()
             if isinstance(v, str | int | float) and not isinstance(v, bool)]
    assert any(_in_order(name_parts(head), line) for line in lines), (head, arguments)
    assert head == head.strip() and "\n" not in head


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.sampled_from([
    "grep", "-n", "-A20", "|", "head", "&&", "cd", "/testbed", '"def test_x"', "2>&1",
    "src/pkg/module_name.py", "./a/very/long/directory/name/file_name.py", "x" * 70,
    "django/db/models/expressions.py", "'s/a/b/g'", "Ümlaut", "数据库"]), min_size=1,
    max_size=20))
def test_a_long_line_is_named_by_pieces_of_it_in_order(words: list[str]) -> None:
    line = " ".join(words)
    name = key(command=line)
    assert len(name) <= KEY_CHARS and _in_order(name_parts(name), line)
    assert (name == line) == (len(line) <= KEY_CHARS)


def _in_order(parts: tuple[str, ...], line: str) -> bool:
    at = 0
    for part in parts:
        k = line.find(part, at)
        if k < 0:
            return False
        at = k + len(part)
    return True


@pytest.mark.parametrize("arguments", [
    {"path": "src/app.py", "command": "cat src/app.py"},
    {"command": "pytest -q", "timeout": 30},
    {"reservation_id": "ZFA04Y"},
])
def test_the_key_depends_only_on_the_arguments(arguments: dict[str, Any]) -> None:
    one = ToolUseBlock(id="a", name="bash", input=arguments)
    other = ToolUseBlock(id="b", name="str_replace_editor", input=dict(arguments))
    assert key_argument(one) == key_argument(other) == key_argument(one)
