"""Offloading: save a range of messages under a fresh id, tag its stand-in, reload it.

Originals are written before anything is replaced, so a crash between the two
loses nothing. The stand-in carries ``<!-- CONTEXT_OFFLOAD: uuid=ID -->`` and
metadata marking it compressed, so no later step mistakes it for an answer.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Sequence

from ctxmgr.autocontext.marker import OFFLOAD_TAG_RE, offload_tag
from ctxmgr.errors import OffloadNotFoundError
from ctxmgr.messages import Message, message_from_dict, message_to_dict
from ctxmgr.store.base import Namespace, Store

__all__ = ["OFFLOAD_TAG_RE", "OffloadStore", "offload_tag"]


class OffloadStore:
    """Offloaded message ranges of one agent session, in any :class:`Store`."""

    def __init__(self, store: Store, *, project: str = "default", session: str = "default") -> None:
        self.store = store
        self.namespace = Namespace(project, session, "offload")

    @staticmethod
    def new_id() -> str:
        """A fresh random offload id (32 hex digits)."""
        return uuid.uuid4().hex

    @staticmethod
    def id_for(messages: Sequence[Message]) -> str:
        """The offload id of a range: 32 hex digits of the SHA-256 of its messages.

        Derived from the content (ids included), so compressing the same history
        twice, in another process or after a restart, names the same blob: replaying
        a call is idempotent and a resumed worker writes nothing new.
        """
        blob = json.dumps([message_to_dict(m) for m in messages], sort_keys=True)
        return hashlib.sha256(blob.encode("ascii")).hexdigest()[:32]

    def save(self, messages: Sequence[Message], offload_id: str | None = None) -> str:
        """Write ``messages`` under ``offload_id`` (default: a fresh one) and return the id."""
        offload_id = offload_id or self.new_id()
        blob = {"id": offload_id, "messages": [message_to_dict(m) for m in messages]}
        self.store.put(self.namespace, f"{offload_id}.json",
                       json.dumps(blob).encode("ascii"))  # \u escapes keep lone surrogates
        return offload_id

    def load(self, offload_id: str) -> list[Message]:
        """The messages saved under ``offload_id``, exactly as they were.

        Raises:
            OffloadNotFoundError: unknown id (also for ids that are not 32 hex digits).
        """
        if not isinstance(offload_id, str) or not re.fullmatch(r"[0-9a-f]{32}", offload_id):
            raise OffloadNotFoundError(str(offload_id))
        data = self.store.get(self.namespace, f"{offload_id}.json")
        if data is None:
            raise OffloadNotFoundError(offload_id)
        return [message_from_dict(d) for d in json.loads(data)["messages"]]

    def ids(self) -> list[str]:
        return [k.removesuffix(".json") for k in self.store.keys(self.namespace)]
