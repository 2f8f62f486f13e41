"""What the model reads about a compressed range is its true size: every stand-in's tag,
every reload header and every preview note, however many times it was cut."""

from __future__ import annotations

import random
import re

import pytest
from builders import call, result, system, user

from ctxmgr import AutoContextConfig, AutoContextMemory, default_counter
from ctxmgr.autocontext.marker import CompressedMarker, find_offload_ids, tagged_size
from ctxmgr.autocontext.pipeline import SIZED_TAGS_MIN_BUDGET
from ctxmgr.autocontext.reload import render_reloaded
from ctxmgr.autocontext.strategies.offload_working_set import OffloadWorkingSet

_NOTE = re.compile(r"\[\.\.\. (\d+) characters offloaded \.\.\.\]")


def _run(seed: int, window: int, steps: int) -> AutoContextMemory:
    """A generated coding run (varied output sizes), compressed at every step."""
    rng = random.Random(seed)
    mem = AutoContextMemory(AutoContextConfig(max_tokens=window), counter=default_counter())
    mem.add([system(), user("make the tests pass", id="u0")])
    for k in range(steps):
        lines = rng.randrange(5, 400)
        body = "\n".join(f"{n}: {rng.choice(['ok', 'FAIL', f'def f_{n}', 'x' * 40])}"
                         for n in range(lines))
        mem.add([call(f"c{k}", id=f"a{k}", text=f"step {k}"), result(f"c{k}", body, id=f"t{k}")])
        mem.compress_if_needed()
    return mem


def _tags(mem: AutoContextMemory) -> dict[str, tuple[int, int] | None]:
    sizes: dict[str, tuple[int, int] | None] = {}
    for m in mem.prompt:
        for b in m.content:
            text = getattr(b, "text", "")
            for oid in find_offload_ids(text):
                sizes[oid] = tagged_size(text, oid)
    return sizes


@pytest.mark.parametrize(("seed", "window"), [(1, 10_000), (2, 12_000), (3, 16_000)])
def test_every_tag_states_what_a_reload_of_it_gives_back(seed: int, window: int) -> None:
    mem = _run(seed, window, 90)
    counter = default_counter()
    tags = _tags(mem)
    assert tags, "the run was compressed"
    for oid, size in tags.items():
        assert size is not None, oid  # every tag in the prompt states a size
        text = render_reloaded(mem.reload(oid))
        assert size == (len(text), counter.count_text(text))
        header = mem.handle_reload_call({"uuid": oid}, reload_room=None).partition("\n")[0]
        assert f"({size[0]:,} characters, {size[1]:,} tokens)" in header


def test_on_a_small_window_tags_leave_the_size_out_and_reloads_still_state_it() -> None:
    mem = _run(5, 4000, 40)
    assert mem.config.budget_tokens < SIZED_TAGS_MIN_BUDGET
    tags = _tags(mem)
    assert tags and set(tags.values()) == {None}
    oid = next(iter(tags))
    text = render_reloaded(mem.reload(oid))
    assert f"({len(text):,} characters, " in mem.handle_reload_call({"uuid": oid})


def test_a_preview_cut_again_counts_what_its_original_lost() -> None:
    """A working-set preview is cut again, smaller, when the prompt still does not fit:
    its note counts the characters the original lost, not those of the earlier preview."""
    seen = 0
    for seed in range(6):
        mem = _run(seed, 2500, 40)
        for m in mem.prompt:
            marker = CompressedMarker.of(m)
            if marker is None or marker.strategy != OffloadWorkingSet.number:
                continue
            (original,) = mem.reload(marker.offload_id)
            for before, after in zip(original.content, m.content, strict=True):
                note = _NOTE.search(getattr(after, "text", ""))
                if note is None:
                    continue
                head, _, tail = after.text.rpartition("\n<!--")[0].partition(f"\n{note[0]}\n")
                assert before.text.startswith(head) and before.text.endswith(tail)
                assert int(note[1]) == len(before.text) - len(head) - len(tail)
                seen += 1
    assert seen > 0
