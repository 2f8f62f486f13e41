"""A recorded run's tool calls answer again with their recorded outputs, in order."""

from __future__ import annotations

from builders import call, result

from ctxmgr.replay.recorded_tools import RecordedTools, canonical_arguments


def test_a_call_gets_the_recorded_outputs_of_the_same_call_in_order() -> None:
    recorded = RecordedTools.from_messages([
        call("c1", "a1", args={"command": "ls"}), result("c1", "first", "t1"),
        call("c2", "a2", args={"command": "ls"}), result("c2", "second", "t2"),
        call("c3", "a3", args={"command": "pwd"}), result("c3", "/repo", "t3"),
    ])
    assert recorded.arguments == {"bash": ("command",)}
    bash = recorded.replayers()["bash"]
    assert [bash(command="ls"), bash(command="pwd"), bash(command="ls")] == [
        "first", "/repo", "second"]
    assert bash(command="ls") == '(no recorded output for bash {"command": "ls"})'


def test_arguments_compare_as_canonical_json() -> None:
    assert canonical_arguments({"b": 1, "a": (1, 2)}) == canonical_arguments({"a": [1, 2], "b": 1})
