"""Offloading: save a range of messages under a fresh id, tag its stand-in, reload it.

Originals are written before anything is replaced, so a crash between the two
loses nothing. The stand-in carries ``<!-- CONTEXT_OFFLOAD: uuid=ID -->`` and
metadata marking it compressed, so no later step mistakes it for an answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import uuid
from collections.abc import Iterable, Sequence

from ctxmgr.autocontext.marker import (
    OFFLOAD_ID_DIGITS,
    OFFLOAD_ID_RE,
    OFFLOAD_TAG_RE,
    CompressedMarker,
    offload_tag,
)
from ctxmgr.autocontext.paging import LineCounts
from ctxmgr.autocontext.search_index import encode_index
from ctxmgr.errors import InvalidMessageError, OffloadNotFoundError, StoreError
from ctxmgr.messages import Message, message_from_dict, message_problem, message_to_dict
from ctxmgr.store.base import Namespace, Store
from ctxmgr.store.retry import DEFAULT_STORE_RETRY, StoreRetry

__all__ = ["BLOB_SUFFIX", "INDEX_SUFFIX", "OFFLOAD_TAG_RE", "OffloadStore", "offload_tag"]

logger = logging.getLogger(__name__)

BLOB_SUFFIX = ".json"
"""A range's messages are stored under its offload id and this."""
INDEX_SUFFIX = ".search"
"""Its search index (:mod:`~ctxmgr.autocontext.search_index`) under its id and this."""


class OffloadStore:
    """Offloaded message ranges of one agent session, in any :class:`Store`."""

    def __init__(self, store: Store, *, project: str = "default", session: str = "default",
                 retry: StoreRetry = DEFAULT_STORE_RETRY) -> None:
        self.store = store
        self.namespace = Namespace(project, session, "offload")
        self.retry = retry
        """How a failing store call is tried again; every failure is a ``StoreError``."""

    @staticmethod
    def new_id() -> str:
        """A fresh random offload id (:data:`~ctxmgr.autocontext.marker.OFFLOAD_ID_DIGITS` hex
        digits)."""
        return uuid.uuid4().hex[:OFFLOAD_ID_DIGITS]

    @staticmethod
    def id_for(messages: Sequence[Message], *, with_ids: bool = False) -> str:
        """The offload id of a range: the first
        :data:`~ctxmgr.autocontext.marker.OFFLOAD_ID_DIGITS` hex digits of the SHA-256 of its
        messages.

        Derived from what the model is shown of them, their content: the same history
        compressed twice, in another process, after a restart or in a framework that
        gives each message a random id, names the same blob, so the prompts are the same
        byte for byte, replaying a call is idempotent and a resumed worker writes nothing
        new. ``with_ids`` hashes the message ids too: the id of a range whose content
        another range of the session already has (the pass takes it then).
        """
        return OffloadStore.ids_for(messages, [len(messages)],
                                    with_ids=with_ids)[len(messages)]

    @staticmethod
    def ids_for(messages: Sequence[Message], ends: Iterable[int], *,
                with_ids: bool = False) -> dict[int, str]:
        """:meth:`id_for` of ``messages[:end]`` for each of ``ends``, in one pass: a
        strategy that weighs where a range should end measures each candidate with the
        id it would carry. The hash is of the JSON list of the messages
        (``json.dumps(..., sort_keys=True)``, without ``id`` unless ``with_ids``), fed
        one message at a time."""
        wanted = set(ends)
        out: dict[int, str] = {}
        digest = hashlib.sha256(b"[")
        for end in range(max(wanted, default=-1) + 1):
            if end > 1:
                digest.update(b", ")
            if end:
                data = message_to_dict(messages[end - 1])
                if not with_ids:
                    data.pop("id", None)
                digest.update(json.dumps(data, sort_keys=True).encode("ascii"))
            if end in wanted:
                done = digest.copy()
                done.update(b"]")
                out[end] = done.hexdigest()[:OFFLOAD_ID_DIGITS]
        return out

    def save(self, messages: Sequence[Message], offload_id: str | None = None, *,
             index: bool = True, lines: LineCounts | None = None) -> str:
        """Write ``messages`` under ``offload_id`` (default: a fresh one) and return the id;
        then, with ``index``, the range's search index
        (:mod:`~ctxmgr.autocontext.search_index`), with ``lines`` (its reload text's line
        counts) when the caller counted them. The index only saves a search time: when
        it cannot be written, the range is searched from its blob, so that failure is
        logged, not raised (a store that :attr:`~ctxmgr.Store.batches_writes` writes both
        in one round trip, which stands or falls whole).

        Raises:
            StoreError: the store failed, whatever it raised (after :attr:`retry`).
        """
        offload_id = offload_id or self.new_id()
        blob = {"id": offload_id, "messages": [message_to_dict(m) for m in messages]}
        data = json.dumps(blob).encode("ascii")  # \u escapes keep lone surrogates
        key = f"{offload_id}{BLOB_SUFFIX}"
        action = f"write offloaded messages {self._label(key)}"
        if index and self.store.batches_writes:  # both in one round trip, retried together
            items = {key: data,
                     f"{offload_id}{INDEX_SUFFIX}": encode_index(offload_id, messages, lines)}
            self.retry.call(lambda: self.store.put_many(self.namespace, items),
                            store=self.store, action=action)
            return offload_id
        self.retry.call(lambda: self.store.put(self.namespace, key, data), store=self.store,
                        action=action)
        if index:
            self._put_index(offload_id, encode_index(offload_id, messages, lines))
        return offload_id

    def _put_index(self, offload_id: str, index: bytes) -> None:
        """Write a range's search index: one try (a range without one is searched from its
        messages, so a failing store is not waited on again for it)."""
        key = f"{offload_id}{INDEX_SUFFIX}"
        try:
            self.store.put(self.namespace, key, index)
        except Exception as exc:  # any backend failure: the blob has everything
            logger.warning("could not write search index %s (%r); the range is searched from "
                           "its messages instead", self._label(key), exc)

    def load_index(self, offload_id: str) -> bytes | None:
        """The search index saved beside ``offload_id``'s blob (``None``: there is none,
        or the store failed: the blob still has everything)."""
        if not _is_offload_id(offload_id):
            return None  # not an offload id: no range, no index
        key = f"{offload_id}{INDEX_SUFFIX}"
        try:
            return self.store.get(self.namespace, key)
        except Exception as exc:  # any backend failure: the blob is read instead
            logger.warning("cannot read search index %s: %r", self._label(key), exc)
            return None

    def load_indexes(self, offload_ids: Sequence[str]) -> dict[str, bytes | None]:
        """:meth:`load_index` of each of ``offload_ids``, in one round trip where the store
        reads many at once (``{}`` when it fails: each is read on its own later)."""
        keys = [f"{oid}{INDEX_SUFFIX}" for oid in offload_ids]
        try:
            got = self.store.get_many(self.namespace, keys)
        except Exception as exc:  # any backend failure: read them one by one
            logger.warning("cannot read the search indexes of %s: %r", self._label(""), exc)
            return {}
        return {oid: got.get(key) for oid, key in zip(offload_ids, keys, strict=True)}

    def load(self, offload_id: str) -> list[Message]:
        """The messages saved under ``offload_id``, exactly as they were.

        Raises:
            OffloadNotFoundError: unknown id (also for what is not an offload id).
            StoreError: the store failed whatever it raised (after :attr:`retry`), or the
                blob is damaged (the message names it).
        """
        if not _is_offload_id(offload_id):
            raise OffloadNotFoundError(str(offload_id))
        key = f"{offload_id}{BLOB_SUFFIX}"
        data = self.retry.call(lambda: self.store.get(self.namespace, key), store=self.store,
                               action=f"read offloaded messages {self._label(key)}")
        if data is None:
            raise OffloadNotFoundError(offload_id)
        try:
            return _messages_from_blob(data, offload_id)
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            raise StoreError(f"offloaded messages {offload_id} in {self._where(key)} are "
                             f"damaged: {exc}") from exc

    def _label(self, key: str) -> str:
        """Where a blob is in the store: namespace and key (the store's repr says which)."""
        ns = self.namespace
        return f"{ns.project}/{ns.kind}/{ns.session}/{key}"

    def _where(self, key: str) -> str:
        """The blob's file for a FileStore, else the store and :meth:`_label`."""
        from ctxmgr.store.files import FileStore

        if isinstance(self.store, FileStore):
            return str(self.store.path(self.namespace, key))
        return f"{self.store!r} at {self._label(key)}"

    def originals(self, messages: Sequence[Message]) -> list[Message]:
        """``messages`` with every stand-in replaced by the messages it stands for, nested
        stand-ins opened too, in order: the one walk over offload ids.

        Raises:
            OffloadNotFoundError: the store lost an offloaded range.
            StoreError: the store failed, or a blob is damaged.
        """
        out: list[Message] = []
        todo = list(reversed(messages))
        while todo:
            m = todo.pop()
            marker = CompressedMarker.of(m)
            if marker is None:
                out.append(m)
            else:
                todo.extend(reversed(self.load(marker.offload_id)))
        return out

    def exists(self, offload_id: str) -> bool:
        """Whether a blob is stored under ``offload_id`` (whatever its state).

        Raises:
            StoreError: the store failed (after :attr:`retry`).
        """
        key = f"{offload_id}{BLOB_SUFFIX}"
        return self.retry.call(lambda: self.store.get(self.namespace, key), store=self.store,
                               action=f"read {self._label(key)}") is not None

    def discard(self, offload_id: str) -> None:
        """Remove the blob of a compression that was never applied, and its search index
        (best effort, one try each)."""
        for suffix in (BLOB_SUFFIX, INDEX_SUFFIX):
            with contextlib.suppress(Exception):
                self.store.delete(self.namespace, f"{offload_id}{suffix}")

    def ids(self) -> list[str]:
        """Every offload id of the session. Raises ``StoreError`` (after :attr:`retry`)."""
        keys = self.retry.call(lambda: self.store.keys(self.namespace), store=self.store,
                               action=f"list {self._label('')}")
        return [k.removesuffix(BLOB_SUFFIX) for k in keys if k.endswith(BLOB_SUFFIX)]


def _is_offload_id(value: object) -> bool:
    """Whether ``value`` is an offload id (:data:`~ctxmgr.autocontext.marker.OFFLOAD_ID_RE`):
    anything else names no range."""
    return isinstance(value, str) and OFFLOAD_ID_RE.fullmatch(value) is not None


def _messages_from_blob(data: bytes, offload_id: str) -> list[Message]:
    """Parse a blob written by :meth:`OffloadStore.save`; ``ValueError`` says what is wrong."""
    try:
        blob = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError("it is not UTF-8") from exc
    except RecursionError as exc:
        raise ValueError("it is nested too deeply") from exc
    except ValueError as exc:
        raise ValueError(f"it is not valid JSON ({str(exc)[:80]})") from exc
    if not isinstance(blob, dict) or not isinstance(blob.get("messages"), list):
        raise ValueError("it holds no list of messages")
    if blob.get("id") != offload_id:
        raise ValueError(f"it holds id {str(blob.get('id'))[:40]!r}")
    out = []
    for i, d in enumerate(blob["messages"]):
        try:
            out.append(message_from_dict(d))  # checks ``d`` once (message_problem)
        except InvalidMessageError as exc:
            raise ValueError(f"message {i}: {message_problem(d)}") from exc
    return out
