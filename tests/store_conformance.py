"""The Store conformance suite: every backend must pass all of it.

A test module runs it by subclassing :class:`StoreConformance` as ``Test...`` next
to a ``store`` fixture (parametrised over its backends) that yields an empty store:
``tests/core/test_store.py`` for the core stores, ``tests/langgraph_adapter/
test_langgraph_store.py`` for the LangGraph-backed one.
"""

from __future__ import annotations

import threading

import pytest

from ctxmgr.errors import ConfigError
from ctxmgr.store import Namespace, Store

NS = Namespace(project="-work-main", session="s1", kind="offload")

INVALID_NAMES = ["../x", "a/b", "a\\b", "", "x" * 201, "..", ".", "abc\n", "a b", "é", "a~"]


class StoreConformance:
    """get / put / delete / keys as the Store contract states them."""

    def test_put_then_get_returns_the_same_bytes(self, store: Store) -> None:
        data = bytes(range(256)) * 3 + "ünïcødé \r\n\x00".encode()
        store.put(NS, "blob", data)
        assert store.get(NS, "blob") == data

    @pytest.mark.parametrize("text", ["plain ascii", "nul \x00 inside", "astral 😀 and \ufeff",
                                      "aGVsbG8=", '{"encoding": "base64", "data": "eA=="}'])
    def test_utf8_text_round_trips_exactly(self, store: Store, text: str) -> None:
        store.put(NS, "text", text.encode())
        assert store.get(NS, "text") == text.encode()

    def test_a_one_megabyte_blob_round_trips(self, store: Store) -> None:
        data = (bytes(range(256)) * 4096)[::-1]
        store.put(NS, "big", data)
        assert store.get(NS, "big") == data

    def test_empty_blob_round_trips_as_empty_bytes_not_none(self, store: Store) -> None:
        store.put(NS, "empty", b"")
        assert store.get(NS, "empty") == b""

    def test_get_of_missing_key_returns_none(self, store: Store) -> None:
        assert store.get(NS, "missing") is None

    def test_get_many_gives_what_get_gives_for_each_key(self, store: Store) -> None:
        store.put(NS, "a", b"first")
        store.put(NS, "b", b"")
        keys = ["b", "missing", "a"]
        assert store.get_many(NS, keys) == {k: store.get(NS, k) for k in keys}
        assert store.get_many(NS, keys) == {"b": b"", "missing": None, "a": b"first"}
        assert store.get_many(NS, []) == {}

    def test_put_overwrites_existing_blob(self, store: Store) -> None:
        store.put(NS, "k", b"old content that is longer")
        store.put(NS, "k", b"new")
        assert store.get(NS, "k") == b"new"
        assert store.keys(NS) == ["k"]

    def test_put_copies_a_bytearray_so_later_edits_do_not_leak_in(self, store: Store) -> None:
        data = bytearray(b"abc")
        store.put(NS, "k", data)  # type: ignore[arg-type]
        data[0] = ord("z")
        assert store.get(NS, "k") == b"abc"

    @pytest.mark.parametrize("value", ["text", 5])
    def test_put_rejects_non_bytes_with_type_error(self, store: Store, value: object) -> None:
        with pytest.raises(TypeError):
            store.put(NS, "k", value)  # type: ignore[arg-type]
        assert store.keys(NS) == []

    def test_delete_returns_true_when_blob_existed_and_false_after(self, store: Store) -> None:
        store.put(NS, "k", b"x")
        assert store.delete(NS, "k") is True
        assert store.get(NS, "k") is None
        assert store.delete(NS, "k") is False
        assert store.keys(NS) == []

    def test_delete_of_never_written_key_returns_false(self, store: Store) -> None:
        assert store.delete(NS, "never") is False

    def test_keys_are_sorted(self, store: Store) -> None:
        for key in ["b", "a.md", "C", "index.json", "-x", "..."]:
            store.put(NS, key, b"1")
        assert store.keys(NS) == sorted(["b", "a.md", "C", "index.json", "-x", "..."])

    def test_keys_of_unused_namespace_are_empty(self, store: Store) -> None:
        assert store.keys(NS) == []

    @pytest.mark.parametrize(
        "other",
        [
            Namespace(project="-other-project", session="s1", kind="offload"),
            Namespace(project="-work-main", session="s2", kind="offload"),
            Namespace(project="-work-main", session="s1", kind="notes"),
        ],
        ids=["project", "session", "kind"],
    )
    def test_each_namespace_label_isolates_blobs(self, store: Store, other: Namespace) -> None:
        store.put(NS, "k", b"mine")
        store.put(other, "k", b"theirs")
        store.put(other, "only-there", b"x")
        assert store.get(NS, "k") == b"mine"
        assert store.keys(NS) == ["k"]
        assert store.delete(other, "k") is True
        assert store.get(NS, "k") == b"mine"

    @pytest.mark.parametrize("key", INVALID_NAMES)
    def test_invalid_key_raises_config_error_on_every_operation(
            self, store: Store, key: str) -> None:
        for operation in (
            lambda: store.get(NS, key),
            lambda: store.put(NS, key, b"x"),
            lambda: store.delete(NS, key),
        ):
            with pytest.raises(ConfigError, match="store keys must be"):
                operation()
        assert store.keys(NS) == []

    def test_labels_and_keys_of_200_characters_are_accepted(self, store: Store) -> None:
        ns = Namespace(project="p" * 200, session="s" * 200, kind="k" * 200)
        store.put(ns, "x" * 200, b"long")
        assert store.get(ns, "x" * 200) == b"long"

    def test_json_helpers_round_trip_unicode_values(self, store: Store) -> None:
        value = {"key": "plan", "summary": "ünïcødé ✓", "size": 3, "tags": [1, None, True]}
        store.put_json(NS, "index.json", value)
        assert store.get_json(NS, "index.json") == value
        assert store.get_json(NS, "absent.json") is None

    def test_concurrent_puts_from_threads_all_land(self, store: Store) -> None:
        def write(worker: int) -> None:
            for i in range(20):
                store.put(NS, f"w{worker}-{i}", f"{worker}:{i}".encode())
                store.put(NS, "shared", f"{worker}".encode())

        threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(store.keys(NS)) == 8 * 20 + 1
        assert store.get(NS, "w3-7") == b"3:7"
        assert store.get(NS, "shared") in {str(w).encode() for w in range(8)}
