"""The LangChain peers' conversion memo: unchanged messages come back as the very neutral
objects (cached token counts, identical prompts); changed ones are converted anew."""

from __future__ import annotations

import copy

from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.tokens import default_counter
from ctxmgr_langgraph.replay_peers._shared import LangChainBridge


def test_unchanged_messages_and_their_copies_convert_back_to_the_originals(
        swe_trajectories: list[Trajectory]) -> None:
    run = list(swe_trajectories[0].messages[:30])
    bridge = LangChainBridge(default_counter())
    lc = bridge.to_langchain(run)
    assert all(a is b for a, b in zip(bridge.from_langchain(lc), run, strict=True))
    copies = copy.deepcopy(lc)
    assert all(a is b for a, b in zip(bridge.from_langchain(copies), run, strict=True))


def test_a_changed_copy_is_converted_anew_and_counted_as_it_is(
        swe_trajectories: list[Trajectory]) -> None:
    run = list(swe_trajectories[0].messages[:30])
    counter = default_counter()
    bridge = LangChainBridge(counter)
    lc = bridge.to_langchain(run)
    k = next(i for i, m in enumerate(run) if m.tool_results)
    cleared = lc[k].model_copy(update={"content": "[cleared]"})
    [neutral] = bridge.from_langchain([cleared])
    assert neutral is not run[k] and neutral.tool_results[0].text == "[cleared]"
    assert bridge.count([cleared]) == counter.count(neutral) < counter.count(run[k])
    assert bridge.from_langchain([cleared])[0] is neutral
