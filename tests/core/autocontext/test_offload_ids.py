"""Offload ids name what was offloaded: the same content gives the same id, whatever ids a
framework gave its messages, and two ranges of one content still reload their own."""

from __future__ import annotations

from builders import C

from ctxmgr import AutoContextConfig, InMemoryStore, Message, Tuning
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.pipeline import compress
from ctxmgr.messages import text_message


def test_the_id_of_a_range_is_of_its_content_not_its_message_ids() -> None:
    a = [text_message("user", "hello", id="x1"), text_message("assistant", "hi", id="x2")]
    b = [text_message("user", "hello", id="y1"), text_message("assistant", "hi", id="y2")]
    assert OffloadStore.id_for(a) == OffloadStore.id_for(b)
    assert OffloadStore.id_for(a, with_ids=True) != OffloadStore.id_for(b, with_ids=True)
    assert OffloadStore.id_for(a) != OffloadStore.id_for(a[:1])


def test_two_ranges_of_the_same_content_each_reload_their_own_messages() -> None:
    """The id is of the content; a second range of the same content but other messages
    (ids) gets the id of its messages whole, so neither overwrites the other."""
    def history(tag: str) -> list[Message]:
        return [text_message("user", "the task", id="u0"),
                *[text_message("assistant" if k % 2 else "user", "same words " * 600,
                               id=f"{tag}{k}") for k in range(1, 9)]]

    store = OffloadStore(InMemoryStore())
    config = AutoContextConfig(max_tokens=4_000, tuning=Tuning(cached_token_price=None))
    first = compress(history("a"), config=config, counter=C, offload=store, summarizer=None)
    second = compress(history("b"), config=config, counter=C, offload=store,
                      summarizer=None)
    ids = [e.offload_id for r in (first, second) for e in r.events if e.offload_id]
    assert len(ids) == len(set(ids)) > 0
    for result, tag in ((first, "a"), (second, "b")):
        for e in result.events:
            if e.offload_id:
                assert [m.id for m in store.load(e.offload_id)] == list(e.replaced_ids)
                assert all(i.startswith(tag) or i == "u0" for i in e.replaced_ids)
