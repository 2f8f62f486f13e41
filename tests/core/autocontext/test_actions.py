"""The key argument of a tool call: what names a call in a stand-in's record and in
replay's ``actions_retained``, so the agent (and the measure) can tell which calls were
already made. The rule is in :mod:`ctxmgr.autocontext.actions`' docstring."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from strategies import json_objects

from ctxmgr.autocontext.actions import KEY_CHARS, collapse_whitespace, key_argument
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


# ---------------------------------------------------------------- its head


def test_a_multi_line_value_is_named_by_its_first_non_empty_line_whitespace_collapsed() -> None:
    assert key(command="\n\n  cd /repo &&   pytest -q\n  tests/test_booking.py") == \
        "cd /repo && pytest -q"
    heredoc = "cat > repro.py << 'EOF'\nimport json\nprint(json.dumps({}))\nEOF"
    assert key(command=heredoc) == "cat > repro.py << 'EOF'"


def test_a_long_value_is_cut_at_the_last_word_boundary_within_60_characters() -> None:
    command = "python -m pytest tests/test_models.py tests/test_views.py -x -q --tb=short"
    head = key(command=command)
    assert head == "python -m pytest tests/test_models.py tests/test_views.py -x"
    assert len(head) <= KEY_CHARS == 60 and command.startswith(head)


def test_a_value_of_exactly_60_characters_is_kept_whole() -> None:
    command = "echo " + "x" * 55
    assert key(command=command) == command


def test_a_long_value_without_a_boundary_in_its_second_half_is_cut_at_60() -> None:
    # a word boundary before character 30 would throw away more than half the room
    command = "python -m pytest tests/test_something_long.py::TestClass::test_method -x"
    assert key(command=command) == command[:60]
    assert key(command="x" * 80) == "x" * 60


# ---------------------------------------------------------------- properties


@settings(max_examples=200, deadline=None)
@given(arguments=json_objects())
def test_the_key_is_the_start_of_one_top_level_value_and_at_most_60_characters(
        arguments: dict[str, Any]) -> None:
    head = key_argument(ToolUseBlock(id="c1", name="tool", input=arguments))
    assert len(head) <= KEY_CHARS
    if not head:
        return
    lines = [collapse_whitespace(ln) for v in arguments.values()
             if isinstance(v, str | int | float) and not isinstance(v, bool)
             for ln in str(v).splitlines()]
    assert any(line.startswith(head) for line in lines), (head, arguments)
    assert head == head.strip() and "\n" not in head


@pytest.mark.parametrize("arguments", [
    {"path": "src/app.py", "command": "cat src/app.py"},
    {"command": "pytest -q", "timeout": 30},
    {"reservation_id": "ZFA04Y"},
])
def test_the_key_depends_only_on_the_arguments(arguments: dict[str, Any]) -> None:
    one = ToolUseBlock(id="a", name="bash", input=arguments)
    other = ToolUseBlock(id="b", name="str_replace_editor", input=dict(arguments))
    assert key_argument(one) == key_argument(other) == key_argument(one)
