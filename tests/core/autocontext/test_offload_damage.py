"""Offload blobs that come back damaged: the reload tool still answers, reload() raises a
ctxmgr error that names the blob, never a JSONDecodeError, TypeError, KeyError or ValueError."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from builders import user
from faults import FaultyStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import examples
from strategies import json_values

from ctxmgr.autocontext.memory import AutoContextMemory
from ctxmgr.autocontext.offload import OffloadStore
from ctxmgr.autocontext.reload import handle_reload_call
from ctxmgr.errors import OffloadNotFoundError, StoreError
from ctxmgr.messages import message_to_dict
from ctxmgr.store import FileStore, Namespace

ID = "0123456789abcdef0123456789abcdef"
KEY = f"{ID}.json"


def _good_blob() -> bytes:
    store = FaultyStore()
    OffloadStore(store).save([user("the original request, " * 20, id="u1")], ID)
    blob = store.get(Namespace("default", "default", "offload"), KEY)
    assert blob is not None
    return blob


def _with_message(message: dict[str, Any]) -> bytes:
    return json.dumps({"id": ID, "messages": [message]}).encode()


_GOOD_MESSAGE = message_to_dict(user("hi", id="u1"))

DAMAGED: dict[str, bytes] = {
    "half a blob": _good_blob()[: len(_good_blob()) // 2],
    "empty": b"",
    "a list": b"[1, 2, 3]",
    "no messages": b'{"id": "x"}',
    "another id": json.dumps({"id": "f" * 32, "messages": [_GOOD_MESSAGE]}).encode(),
    "role wizard": _with_message({**_GOOD_MESSAGE, "role": "wizard"}),
    "not utf-8": b'{"id": "\xff"}',
    "deep nesting": b"[" * 100_000,
    "messages not a list": json.dumps({"id": ID, "messages": "x"}).encode(),
    "message not an object": json.dumps({"id": ID, "messages": [1]}).encode(),
    "block without type": _with_message({**_GOOD_MESSAGE, "content": [{"text": "x"}]}),
    "text not a string": _with_message({**_GOOD_MESSAGE,
                                        "content": [{"type": "text", "text": 5}]}),
    "tool call without input": _with_message(
        {**_GOOD_MESSAGE, "role": "assistant",
         "content": [{"type": "tool_use", "id": "c1", "name": "grep"}]}),
    "tool result content a number": _with_message(
        {**_GOOD_MESSAGE, "role": "tool",
         "content": [{"type": "tool_result", "tool_use_id": "c1", "content": 7}]}),
    "id not a string": _with_message({**_GOOD_MESSAGE, "id": 5}),
    "metadata a list": _with_message({**_GOOD_MESSAGE, "metadata": [1]}),
    "huge integer": b'{"id": "' + ID.encode() + b'", "messages": ' + b"9" * 5000 + b"}",
}


def _memory(store: FaultyStore) -> AutoContextMemory:
    return AutoContextMemory(store=store, summarizer=None)


@pytest.mark.parametrize("blob", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_blob_makes_reload_raise_a_store_error_naming_it(blob: bytes) -> None:
    memory = _memory(FaultyStore(planted={KEY: blob}))

    with pytest.raises(StoreError, match=f"offloaded messages {ID} .*{KEY}"):
        memory.reload(ID)


@pytest.mark.parametrize("blob", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_blob_gets_a_tool_result_not_an_exception(blob: bytes) -> None:
    memory = _memory(FaultyStore(planted={KEY: blob}))

    answer = memory.handle_reload_call({"uuid": ID})

    assert answer.startswith(f"The original messages for uuid {ID} cannot be read: ")
    assert "carry on from the compressed text" in answer


def test_an_os_error_from_the_store_is_a_store_error_and_a_tool_result() -> None:
    store = FaultyStore(fail_get=lambda key, n: True)
    memory = _memory(store)

    with pytest.raises(StoreError, match="No space left on device"):
        memory.reload(ID)
    assert memory.handle_reload_call({"uuid": ID}).startswith(
        f"The original messages for uuid {ID} cannot be read: ")


@pytest.mark.parametrize("error", [
    RuntimeError("Redis is loading the dataset in memory"), ConnectionError("reset by peer"),
    TimeoutError("read timed out"), ValueError("driver bug")])
def test_any_backend_exception_is_a_store_error_naming_the_store_and_a_tool_result(
        error: Exception) -> None:
    store = FaultyStore(fail_get=lambda key, n: True, error=lambda key: error)
    memory = _memory(store)

    with pytest.raises(StoreError) as raised:
        memory.reload(ID)
    assert "FaultyStore" in str(raised.value)
    assert f"{type(error).__name__}: {error}" in str(raised.value)
    assert store.gets == 3  # tried three times
    answer = memory.handle_reload_call({"uuid": ID})
    assert answer.startswith(f"The original messages for uuid {ID} cannot be read: ")
    assert handle_reload_call(memory.offload, {"uuid": ID}).startswith("The original")


def test_the_reload_handler_answers_even_a_failure_nobody_foresaw(
        monkeypatch: pytest.MonkeyPatch) -> None:
    memory = _memory(FaultyStore())
    memory.offload.save([user("hi", id="u1")], ID)

    def broken(messages: object) -> str:
        raise ZeroDivisionError("a bug in rendering")

    monkeypatch.setattr("ctxmgr.autocontext.reload.render_reloaded", broken)
    answer = handle_reload_call(memory.offload, {"uuid": ID})

    assert answer.startswith("Error: context_reload failed (ZeroDivisionError: a bug in ")


def test_a_damaged_blob_on_disk_is_named_by_its_path(tmp_path: Path) -> None:
    offload = OffloadStore(FileStore(tmp_path))
    offload.save([user("hi", id="u1")], ID)
    path = FileStore(tmp_path).path(offload.namespace, KEY)
    path.write_bytes(path.read_bytes()[:10])

    with pytest.raises(StoreError) as info:
        offload.load(ID)

    assert str(path) in str(info.value)
    assert "not valid JSON" in str(info.value)


def test_a_sound_blob_still_reloads_byte_for_byte() -> None:
    store = FaultyStore()
    original = [user("the original request", id="u1")]
    offload = OffloadStore(store)
    offload.save(original, ID)

    assert offload.load(ID) == original
    assert handle_reload_call(offload, {"uuid": ID}).startswith("Reloaded 1 original message")


def test_a_missing_blob_is_still_not_found() -> None:
    with pytest.raises(OffloadNotFoundError):
        OffloadStore(FaultyStore()).load(ID)


@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
@given(blob=st.one_of(st.binary(max_size=200),
                      json_values().map(lambda v: json.dumps(v).encode()),
                      st.builds(lambda m: json.dumps({"id": ID, "messages": m}).encode(),
                                json_values())))
def test_any_blob_loads_or_raises_only_store_errors_and_always_gets_a_tool_result(
    blob: bytes,
) -> None:
    offload = OffloadStore(FaultyStore(planted={KEY: blob}))

    with contextlib.suppress(StoreError):  # any other exception fails the test
        offload.load(ID)
    assert isinstance(handle_reload_call(offload, {"uuid": ID}), str)
