"""What a framework adapter builds on beside the engine, in one place.

An adapter converts messages, maps its framework's storage and reports errors; the
names it needs for that, beyond ``ctxmgr``'s public ones, are here, so that an adapter
imports nothing below ``ctxmgr`` and ``ctxmgr.session`` (a test holds the adapters to
it) and the core can move its modules without breaking one:

* the message model's parts and codec, for converters: :data:`Role`,
  :data:`ContentBlock`, :func:`message_to_dict` / :func:`message_from_dict`,
  :func:`text_message`, :func:`thaw` (a frozen mapping back to plain JSON) and
  :class:`StableIds` (ids for messages that have none, stable across calls);
* edits as data (:class:`Edit`), which an adapter persists its framework's way;
* the store contract and its helpers, for a store on the framework's own storage:
  :class:`Namespace`, the blob codec (:data:`BLOB_SHAPE`, :func:`blob_to_json`,
  :func:`blob_from_json`), the locks a memo write takes (:class:`AdvisoryLock`,
  :class:`FileLocks`, :class:`RedisLock`, :class:`SharedLockChoice`,
  :func:`check_lock_timeout`, :data:`MEMO_WRITES_WITHOUT_SHARED_LOCK`),
  :func:`delete_session` and
  :func:`project_dir_name`;
* the errors adapters raise or report, the event callback type, the offload tags'
  pattern and the marker that tells ctxmgr's own stand-ins, the compressor's type (what
  ``.processor`` returns) and the store's home folder (:func:`home`).
"""

from __future__ import annotations

from ctxmgr.autocontext.edits import Edit
from ctxmgr.autocontext.events import EventCallback
from ctxmgr.autocontext.marker import OFFLOAD_ID_RE, CompressedMarker, find_offload_ids
from ctxmgr.autocontext.processor import ContextProcessor
from ctxmgr.convert import StableIds
from ctxmgr.errors import InvalidMessageError, InvalidStateError, StoreError
from ctxmgr.memo import MEMO_WRITES_WITHOUT_SHARED_LOCK
from ctxmgr.messages import (
    ContentBlock,
    Role,
    message_from_dict,
    message_to_dict,
    text_message,
    thaw,
)
from ctxmgr.settings import home
from ctxmgr.store import (
    AdvisoryLock,
    FileLocks,
    Namespace,
    RedisLock,
    delete_session,
    project_dir_name,
)
from ctxmgr.store.advisory_lock import check_lock_timeout
from ctxmgr.store.json_values import BLOB_SHAPE, blob_from_json, blob_to_json
from ctxmgr.store.shared_lock import SharedLockChoice

__all__ = [
    "BLOB_SHAPE",
    "MEMO_WRITES_WITHOUT_SHARED_LOCK",
    "OFFLOAD_ID_RE",
    "AdvisoryLock",
    "CompressedMarker",
    "ContentBlock",
    "ContextProcessor",
    "Edit",
    "EventCallback",
    "FileLocks",
    "InvalidMessageError",
    "InvalidStateError",
    "Namespace",
    "RedisLock",
    "Role",
    "SharedLockChoice",
    "StableIds",
    "StoreError",
    "blob_from_json",
    "blob_to_json",
    "check_lock_timeout",
    "delete_session",
    "find_offload_ids",
    "home",
    "message_from_dict",
    "message_to_dict",
    "project_dir_name",
    "text_message",
    "thaw",
]
