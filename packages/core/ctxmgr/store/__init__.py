"""Storage for offloads and memos: one small interface, namespaced by project and session."""

from __future__ import annotations

from ctxmgr.store.advisory_lock import AdvisoryLock
from ctxmgr.store.base import Namespace, Store
from ctxmgr.store.file_locks import FileLocks
from ctxmgr.store.files import FileStore, project_dir_name
from ctxmgr.store.memory import InMemoryStore
from ctxmgr.store.redis_lock import RedisLock
from ctxmgr.store.retention import PruneReport, delete_session, prune_file_store
from ctxmgr.store.retry import DEFAULT_STORE_RETRY, StoreRetry, store_error

__all__ = ["AdvisoryLock", "DEFAULT_STORE_RETRY", "FileLocks", "FileStore", "InMemoryStore",
           "Namespace", "PruneReport", "RedisLock", "Store", "StoreRetry", "delete_session",
           "project_dir_name", "prune_file_store", "store_error"]
