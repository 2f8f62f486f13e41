"""ContextProcessor: a history the framework owns, handed over whole on every call.

The central test drives the processor exactly as a LangGraph middleware would over
every recorded SWE run: before each call, the full history (the previous call's
edits applied with LangGraph's real ``add_messages``) plus one new message.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace

import pytest
from builders import C, call, result, system, user
from langchain_core.messages import AnyMessage, HumanMessage, RemoveMessage
from langgraph.graph.message import add_messages
from profiles import sample

from ctxmgr import (
    AutoContextConfig,
    AutoContextMemory,
    ExtractiveSummarizer,
    Message,
    Tuning,
    validate_pairing,
)
from ctxmgr.autocontext import (
    ContextProcessor,
    Edit,
    apply_edits,
    async_history_processor,
    history_processor,
)
from ctxmgr.autocontext.marker import CompressedMarker
from ctxmgr.errors import InvalidMessageError
from ctxmgr.messages import message_from_dict, message_to_dict
from ctxmgr.prompts import RELOAD_HINT_ID
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr.store.memory import InMemoryStore
from ctxmgr.tokens import TokenCounter, default_counter


def dicts(messages: Sequence[Message]) -> list[dict]:
    return [message_to_dict(m) for m in messages]


def blob(messages: Sequence[Message]) -> str:
    return json.dumps(dicts(messages), sort_keys=True)


# --- LangGraph's own reducer, on messages that carry ours as JSON -------------------


def _lc(m: Message) -> HumanMessage:
    return HumanMessage(content=json.dumps(message_to_dict(m)), id=m.id)


def persist_with_add_messages(history: Sequence[Message], edits: Sequence[Edit]
                              ) -> list[Message]:
    """What a LangGraph ``messages`` channel holds after the edits go through its reducer:
    the stand-in replaces the range's first id, ``RemoveMessage`` deletes the rest."""
    update: list[AnyMessage] = []
    for edit in edits:
        update.extend(RemoveMessage(id=i) for i in edit.removed_ids)
        if edit.stand_in is not None:
            update.append(_lc(edit.stand_in))
    merged = add_messages([_lc(m) for m in history], update)  # type: ignore[arg-type]
    return [message_from_dict(json.loads(str(m.content))) for m in merged]


# --- the acceptance drive -----------------------------------------------------------


def drive_like_a_middleware(trajectory: Trajectory, cfg: AutoContextConfig,
                            counter: TokenCounter) -> dict[str, int]:
    """One call per recorded message, checked against AutoContextMemory on every call."""
    processor = ContextProcessor(cfg, counter=counter, summarizer=ExtractiveSummarizer())
    memory = AutoContextMemory(cfg, counter=counter, summarizer=ExtractiveSummarizer())
    persisted: list[Message] = []
    state = None
    previous: list[Message] | None = None
    stats = {"calls": 0, "compressions": 0, "last_resorts": 0}
    for step, m in enumerate(trajectory.messages):
        where = f"{trajectory.id} call {step} at {cfg.max_tokens}"
        history = [*persisted, m]
        out = processor.process(history, state)
        memory.add(m)
        memory.compress_if_needed()
        stats["calls"] += 1
        # the prompt equals what AutoContextMemory.add + compress_if_needed give
        assert blob(out.messages) == blob(memory.messages), where
        assert blob(out.prompt) == blob(memory.prompt), where
        # the edits, applied with the real add_messages, reproduce that prompt
        persisted = persist_with_add_messages(history, out.edits)
        assert blob(persisted) == blob(out.messages), where
        assert apply_edits(history, out.edits) == out.messages, where
        # between two compressions the prompt prefix is byte-identical
        applied = [e for e in out.events if e.status == "applied"]
        if applied:
            stats["compressions"] += 1
            stats["last_resorts"] += sum(e.strategy in (7, 8) for e in applied)
        elif previous is not None:
            assert blob(out.prompt[:len(previous)]) == blob(previous), where
        previous = out.prompt
        # the state is plain JSON and carries no original
        assert json.loads(json.dumps(out.state)) == out.state, where
        assert validate_pairing(out.messages) == [], where
        state = out.state
    return stats


@pytest.fixture(scope="module")
def exact() -> TokenCounter:
    return default_counter()


@pytest.mark.parametrize("budget", [8000, 16_000])
def test_middleware_drive_matches_autocontext_memory_on_every_swe_run(
        swe_trajectories: list[Trajectory], exact: TokenCounter, budget: int) -> None:
    total = {"calls": 0, "compressions": 0, "last_resorts": 0}
    for t in swe_trajectories:
        for k, v in drive_like_a_middleware(t, AutoContextConfig(max_tokens=budget),
                                            exact).items():
            total[k] += v
    assert total["compressions"] >= len(swe_trajectories)  # the drive did compress


def test_middleware_drive_matches_autocontext_memory_on_support_runs_at_4k(
        fixture_trajectories: list[Trajectory], exact: TokenCounter) -> None:
    """A 4k window, where the last resorts (notes for the history, previews cut again in
    the working set) do most of the work: their edits persist through add_messages too."""
    total = {"calls": 0, "compressions": 0, "last_resorts": 0}
    for t in fixture_trajectories:
        if t.id.startswith("tau"):
            for k, v in drive_like_a_middleware(t, AutoContextConfig(max_tokens=4000),
                                                exact).items():
                total[k] += v
    assert total["last_resorts"] > 0


@pytest.mark.slow
def test_middleware_drive_matches_autocontext_memory_on_every_shared_swe_run(
        shared_trajectories: list[Trajectory], exact: TokenCounter) -> None:
    swe = [t for t in shared_trajectories if not t.id.startswith("tau")]
    assert len(swe) == 24
    for t in sample(swe, every=3):  # every run in the long profile
        drive_like_a_middleware(t, AutoContextConfig(max_tokens=16_000), exact)


def drive_with_a_foreign_editor(trajectory: Trajectory, cfg: AutoContextConfig,
                                counter: TokenCounter) -> dict[str, int]:
    """As above, but every 40 calls another party removes the oldest uncompressed tool
    group it can find and rewrites a user message by id, as another middleware might."""
    processor = ContextProcessor(cfg, counter=counter, summarizer=ExtractiveSummarizer())
    persisted: list[Message] = []
    state = None
    removed: set[str] = set()
    rewritten: dict[str, str] = {}
    stats = {"removed": 0, "rewritten": 0, "compressions": 0}
    for step, m in enumerate(trajectory.messages):
        where = f"{trajectory.id} call {step}"
        history = [*persisted, m]
        if step and step % 40 == 0:
            history = _foreign_edit(history, removed, rewritten, stats)
        out = processor.process(history, state)
        state = out.state
        stats["compressions"] += bool([e for e in out.events if e.status == "applied"])
        persisted = persist_with_add_messages(history, out.edits)
        ids = [x.id for x in out.messages]
        assert len(ids) == len(set(ids)), f"{where}: a message is duplicated"
        assert not removed & set(ids), f"{where}: a removed message came back"
        for x in out.messages:
            if x.id in rewritten and CompressedMarker.of(x) is None:
                assert x.text == rewritten[x.id], f"{where}: the foreign rewrite was undone"
        assert validate_pairing(out.messages) == [], where
        assert blob(persisted) == blob(out.messages), where
    return stats


def _foreign_edit(history: list[Message], removed: set[str], rewritten: dict[str, str],
                  stats: dict[str, int]) -> list[Message]:
    out = list(history)
    # remove one whole tool group (the call and its results) that ctxmgr did not write
    for i, m in enumerate(out[:-2]):
        if m.tool_uses and CompressedMarker.of(m) is None and i > 2:
            call_ids = {b.id for b in m.tool_uses}
            j = i + 1
            while j < len(out) and any(r.tool_use_id in call_ids for r in out[j].tool_results):
                j += 1
            if j > i + 1 and j < len(out):
                removed.update(x.id for x in out[i:j])
                del out[i:j]
                stats["removed"] += 1
                break
    # rewrite the latest user message (or the task) by id
    for i in range(len(out) - 1, -1, -1):
        m = out[i]
        if m.role == "user" and not m.tool_results and CompressedMarker.of(m) is None:
            text = f"(edited by another middleware) {m.text[:200]}"
            out[i] = replace(m, content=(type(m.content[0])(text=text),))
            rewritten[m.id] = text
            stats["rewritten"] += 1
            break
    return out


def test_a_history_edited_by_someone_else_is_reconciled_by_id(
        swe_trajectories: list[Trajectory], exact: TokenCounter) -> None:
    totals = {"removed": 0, "rewritten": 0, "compressions": 0}
    for t in swe_trajectories:
        for k, v in drive_with_a_foreign_editor(t, AutoContextConfig(max_tokens=16_000),
                                                exact).items():
            totals[k] += v
    assert totals["removed"] > 10 and totals["rewritten"] > 10 and totals["compressions"] > 4


# --- idempotency, the raw path, small cases ------------------------------------------


def long_history(n: int = 30) -> list[Message]:
    h = [system(), user("fix the bug in module.py", id="u0")]
    for k in range(n):
        h += [call(f"c{k}", id=f"a{k}"), result(f"c{k}", "x" * 1500 + f" line {k}", id=f"t{k}")]
    return h


def small_config() -> AutoContextConfig:
    return AutoContextConfig(max_tokens=8000,
                             tuning=Tuning(min_compression_tokens=500, cached_token_price=None))


def test_the_same_history_twice_changes_nothing() -> None:
    processor = ContextProcessor(small_config(), counter=C)
    first = processor.process(long_history())
    assert first.edits and first.events  # it compressed
    persisted = apply_edits(long_history(), first.edits)
    again = processor.process(persisted, first.state)
    assert again.edits == [] and again.events == []
    assert again.messages == first.messages
    # the history holds the stand-ins now: the state keeps them by digest only, once
    drop = [{k: v for k, v in r.items() if k != "message"} for r in first.state["stand_ins"]]
    assert again.state == {**first.state, "stand_ins": drop}
    assert processor.process(persisted, again.state).state == again.state


def test_new_messages_are_taken_once() -> None:
    processor = ContextProcessor(small_config(), counter=C)
    first = processor.process(long_history())
    persisted = apply_edits(long_history(), first.edits)
    extra = [call("c99", id="a99"), result("c99", "short", id="t99")]
    out = processor.process([*persisted, *extra], first.state)
    assert out.messages[-2:] == extra
    assert [m.id for m in out.messages].count("a99") == 1


def test_a_framework_that_keeps_the_originals_gets_the_same_prompt() -> None:
    """The raw path: a caller that never persists the edits hands over the uncompressed
    history every time; the stand-ins are put back in place of their ranges."""
    raw = long_history(40)
    persisted_path = ContextProcessor(small_config(), counter=C)
    raw_path = history_processor(small_config(), counter=C)
    state, persisted = None, []
    for k in range(1, len(raw) + 1):
        out = persisted_path.process([*persisted, raw[k - 1]], state)
        state, persisted = out.state, out.messages
        assert raw_path(raw[:k]) == out.prompt, f"call {k}"
    assert raw_path.last.edits  # type: ignore[attr-defined]  # it would compress the raw one


def test_an_original_removed_inside_a_compressed_range_does_not_eat_later_messages() -> None:
    raw = long_history(40)
    processor = ContextProcessor(small_config(), counter=C)
    out = processor.process(raw)
    head = next(m for m in out.messages if CompressedMarker.of(m) is not None
                and len(processor.reload(CompressedMarker.of(m).offload_id)) > 2)  # type: ignore[union-attr]
    inside = processor.reload(CompressedMarker.of(head).offload_id)[1].id  # type: ignore[union-attr]
    trimmed = [m for m in raw if m.id != inside]
    again = processor.process(trimmed, out.state)
    assert [m.id for m in again.messages] == [m.id for m in out.messages]


def test_a_stand_in_replaced_by_someone_else_is_kept_and_its_record_forgotten() -> None:
    processor = ContextProcessor(small_config(), counter=C)
    out = processor.process(long_history())
    persisted = apply_edits(long_history(), out.edits)
    k, stand_in = next((k, m) for k, m in enumerate(persisted)
                       if CompressedMarker.of(m) is not None)
    theirs = replace(stand_in, content=(type(stand_in.content[0])(text="their note"),),
                     metadata={})
    persisted[k] = theirs
    again = processor.process(persisted, out.state)
    assert theirs in again.messages
    assert stand_in.id not in {r["message"]["id"] for r in again.state["stand_ins"]}


def test_edits_keep_the_range_first_id_and_remove_the_rest() -> None:
    processor = ContextProcessor(small_config(), counter=C)
    out = processor.process(long_history())
    for edit in out.edits:
        assert edit.stand_in is not None and edit.stand_in.id == edit.ids[0]
        assert edit.removed_ids == edit.ids[1:]


def test_state_is_small_plain_json_and_survives_a_new_processor() -> None:
    store = InMemoryStore()
    raw = long_history(60)
    out = ContextProcessor(small_config(), counter=C, store=store).process(raw)
    text = json.dumps(out.state)
    assert len(text) < len(blob(out.messages))  # smaller than the working view it serves
    fresh = ContextProcessor(small_config(), counter=C, store=store)
    again = fresh.process(out.messages, json.loads(text))
    assert again.messages == out.messages and again.edits == []
    for m in out.messages:
        marker = CompressedMarker.of(m)
        if marker is not None:
            assert fresh.reload(marker.offload_id)  # originals are in the store, not the state


def test_duplicate_ids_are_refused_with_both_positions() -> None:
    h = long_history(2)
    with pytest.raises(InvalidMessageError, match="messages 2 and 4 share the id"):
        ContextProcessor(small_config(), counter=C).process([*h[:4], h[2]])


def test_damaged_state_is_refused_clearly() -> None:
    with pytest.raises(InvalidMessageError, match="ctxmgr state is damaged"):
        ContextProcessor(small_config(), counter=C).process(long_history(2), {"version": 9})


def test_the_prompt_carries_the_reload_hint_once_anything_is_compressed() -> None:
    processor = ContextProcessor(small_config(), counter=C)
    quiet = processor.process(long_history(1))
    assert all(m.id != RELOAD_HINT_ID for m in quiet.prompt)
    out = processor.process(long_history())
    assert out.prompt[0].role == "system" and out.prompt[1].id == RELOAD_HINT_ID
    assert "context_reload" in out.prompt[1].text and "CONTEXT_OFFLOAD" in out.prompt[1].text
    assert out.tokens == C.count_messages(out.prompt)


def test_overhead_tokens_count_towards_the_trigger() -> None:
    cfg = small_config()
    h = long_history(6)
    processor = ContextProcessor(cfg, counter=C)
    assert processor.process(h).events == []
    crowded = processor.process(h, overhead_tokens=cfg.trigger_tokens)
    assert crowded.tokens >= cfg.trigger_tokens and crowded.events


def test_async_twin_gives_the_same_prompts() -> None:
    raw = long_history(40)
    sync = history_processor(small_config(), counter=C)
    async_ = async_history_processor(small_config(), counter=C)

    async def run() -> list[list[Message]]:
        return [await async_(raw[:k]) for k in range(2, len(raw) + 1)]

    prompts = asyncio.run(run())
    assert prompts == [sync(raw[:k]) for k in range(2, len(raw) + 1)]


def test_offload_ids_follow_the_content_so_a_replayed_call_writes_the_same_blob() -> None:
    a = ContextProcessor(small_config(), counter=C).process(long_history())
    b = ContextProcessor(small_config(), counter=C).process(long_history())
    assert a.messages == b.messages
