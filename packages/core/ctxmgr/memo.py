"""Memos: the model offloads its own notes to disk and recalls them later.

A memo is Markdown under a key, one per file, plus an ``index.json`` with
key, summary, size and times, in the session's ``notes`` folder of a
:class:`~ctxmgr.store.Store` (with the default :class:`~ctxmgr.store.FileStore`:
``<CTXMGR_HOME or ~/.ctxmgr>/projects/<project-dir>/notes/<session>/<key>.md``).

After a successful write the history only needs the summary: the caller swaps
the ``content`` argument of that tool call for :func:`memo_placeholder` text
with :func:`elide_memo_content`. Because the model then sees that placeholder
in its own past calls, a write whose content is (or contains) it is refused:
the model would otherwise overwrite a real memo with the placeholder.

An adapter needs two calls::

    result = memos.run_memo_call(tool_input)          # the tool; result.text for the model
    if result.placeholder:                            # a write succeeded
        messages = elide_memo_content(messages, tool_use_id, result.placeholder)
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxmgr.errors import (
    ConfigError,
    InvalidMemoKeyError,
    MemoWriteError,
    StoreError,
)
from ctxmgr.messages import Message, ToolUseBlock
from ctxmgr.prompts import MEMO_TOOL_DESCRIPTION, ToolSpec
from ctxmgr.store.base import Namespace, Store

if TYPE_CHECKING:
    from ctxmgr.settings import Settings

__all__ = [
    "DEFAULT_MAX_MEMOS",
    "MAX_KEY_CHARS",
    "MAX_SUMMARY_CHARS",
    "MEMO_KIND",
    "MEMO_TOOL",
    "MEMO_TOOL_NAME",
    "PLACEHOLDER_MARKER",
    "MemoCallResult",
    "MemoInfo",
    "MemoStore",
    "contains_placeholder",
    "elide_memo_content",
    "memo_placeholder",
    "memo_sessions",
    "validate_memo_key",
]

logger = logging.getLogger(__name__)

MEMO_TOOL_NAME = "memo"
MEMO_KIND = "notes"
"""The store kind memos live under (``.../projects/<project>/notes/<session>/``)."""
INDEX_KEY = "index.json"
DEFAULT_MAX_MEMOS = 50
MAX_KEY_CHARS = 100
MAX_SUMMARY_CHARS = 300
PLACEHOLDER_MARKER = "[PLACEHOLDER — NOT REAL CONTENT]"

# A dash of any kind and any spacing: a model retyping the marker may not keep the em dash.
_MARKER_RE = re.compile(r"\[\s*PLACEHOLDER\s*[-‐‑‒–—―]+\s*NOT\s+REAL\s+CONTENT\s*\]",
                        re.IGNORECASE)
_KEY_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
# Device names Windows reserves whatever the extension: "con.md" cannot be created there.
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
                       *(f"lpt{i}" for i in range(10))})
_KEY_RULE = (f"keys are 1-{MAX_KEY_CHARS} characters of letters, digits, '.', '_' or '-', "
             "start with a letter, digit or '_', and contain no '..' (no path separators)")

MEMO_TOOL = ToolSpec(
    name=MEMO_TOOL_NAME,
    description=MEMO_TOOL_DESCRIPTION,
    parameters={
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["write", "read", "list", "delete"],
                "description": "write, read, list or delete memos.",
            },
            "key": {
                "type": "string",
                "maxLength": MAX_KEY_CHARS,
                "pattern": r"^[A-Za-z0-9_][A-Za-z0-9._-]*$",
                "description": "The memo's name (required for write, read and delete), "
                "e.g. \"plan\" or \"root-cause_analysis\".",
            },
            "summary": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_SUMMARY_CHARS,
                "description": "Write only: one line saying what the memo holds.",
            },
            "content": {
                "type": "string",
                "minLength": 1,
                "description": "Write only: the full text to save (Markdown).",
            },
        },
        "required": ["action"],
        "additionalProperties": False,
    },
)


def validate_memo_key(key: object) -> str:
    """Return ``key`` if it is safe as a file name inside the session folder.

    Raises:
        InvalidMemoKeyError: naming the key (shortened when long) and the rule.
    """
    if not isinstance(key, str):
        raise InvalidMemoKeyError(f"memo key must be a string, got {type(key).__name__}")
    shown = repr(key) if len(key) <= 60 else f"{key[:40]!r}... ({len(key)} characters)"
    if not key:
        raise InvalidMemoKeyError(f"memo key is empty; {_KEY_RULE}")
    if len(key) > MAX_KEY_CHARS:
        raise InvalidMemoKeyError(f"memo key {shown} is too long; {_KEY_RULE}")
    if not _KEY_RE.fullmatch(key) or ".." in key:
        raise InvalidMemoKeyError(f"memo key {shown} is not allowed; {_KEY_RULE}")
    if key.split(".")[0].lower() in _RESERVED:
        raise InvalidMemoKeyError(f"memo key {shown} is a reserved device name on Windows")
    return key


def memo_placeholder(key: str, summary: str, size: int) -> str:
    """The text that stands for a saved memo's content in the history."""
    return (f"{PLACEHOLDER_MARKER} persisted to disk; key: {json.dumps(key, ensure_ascii=False)}, "
            f"summary: {json.dumps(summary, ensure_ascii=False)}, size: {size} chars; "
            f"recall: memo read key={json.dumps(key, ensure_ascii=False)}")


def contains_placeholder(text: str) -> bool:
    """True when ``text`` holds the placeholder marker (any dash, spacing or case)."""
    return bool(_MARKER_RE.search(text))


def elide_memo_content(
    messages: Iterable[Message], tool_use_id: str, placeholder: str
) -> list[Message]:
    """Replace the ``content`` argument of a memo write call with ``placeholder``.

    The call is the latest tool_use block with ``tool_use_id`` (ids can repeat
    in a history; the write just made is the latest). Its message keeps its id
    and every other argument; all other messages are returned as they were.
    When there is no such call, or it has no ``content`` argument, the list is
    returned unchanged.
    """
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        m = out[i]
        if not any(isinstance(b, ToolUseBlock) and b.id == tool_use_id for b in m.content):
            continue
        blocks = list(m.content)
        for k in range(len(blocks) - 1, -1, -1):
            b = blocks[k]
            if isinstance(b, ToolUseBlock) and b.id == tool_use_id:
                if "content" not in b.input or b.input["content"] == placeholder:
                    return out
                # raw_input is the provider's text of the old arguments: it no longer applies.
                blocks[k] = dataclasses.replace(
                    b, input={**b.input, "content": placeholder}, raw_input=None)
                out[i] = dataclasses.replace(m, content=tuple(blocks))
                return out
    logger.debug("elide_memo_content: no tool call %r in the history", tool_use_id)
    return out


def memo_sessions(root: str | Path, project: str) -> list[str]:
    """Sessions of ``project`` that have a memo folder under a FileStore ``root``, sorted."""
    folder = Path(root).expanduser() / "projects" / project / MEMO_KIND
    try:
        return sorted(p.name for p in folder.iterdir()
                      if p.is_dir() and Store.is_valid_key(p.name))
    except FileNotFoundError:
        return []


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoInfo:
    """One memo's index entry."""

    key: str
    summary: str
    size: int
    """Characters of content."""
    created: str
    """ISO 8601, UTC."""
    updated: str

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "summary": self.summary, "size": self.size,
                "created": self.created, "updated": self.updated}


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoCallResult:
    """What one memo tool call did."""

    text: str
    """The tool result for the model."""
    ok: bool
    action: str | None = None
    key: str | None = None
    placeholder: str | None = None
    """Set after a successful write: what the call's ``content`` argument becomes."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class MemoStore:
    """The memos of one session, on any :class:`~ctxmgr.store.Store`.

    Args:
        store: where memos live; defaults to ``FileStore()`` (``$CTXMGR_HOME``
            or ``~/.ctxmgr``).
        session: the session id (a folder name: 1-200 of ``[A-Za-z0-9._-]``).
        project: the project folder name; defaults to ``project_dir_name()``
            of the working directory at construction.
        max_memos: memos allowed per session; a write of a new key beyond it
            is refused.

    Raises:
        ConfigError: an invalid session, project or ``max_memos``.
    """

    def __init__(
        self,
        store: Store | None = None,
        *,
        session: str = "default",
        project: str | None = None,
        max_memos: int = DEFAULT_MAX_MEMOS,
    ) -> None:
        from ctxmgr.store.files import FileStore, project_dir_name

        if isinstance(max_memos, bool) or not isinstance(max_memos, int) or max_memos < 1:
            raise ConfigError(f"max_memos must be an int >= 1, got {max_memos!r}")
        self.store: Store = FileStore() if store is None else store
        self.namespace = Namespace(project=project if project is not None else project_dir_name(),
                                   session=session, kind=MEMO_KIND)
        self.max_memos = max_memos
        self._lock = threading.RLock()

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        session: str = "default",
        project: str | None = None,
        store: Store | None = None,
        max_memos: int = DEFAULT_MAX_MEMOS,
    ) -> MemoStore:
        """A store under ``settings.home`` (unless ``store`` is given)."""
        from ctxmgr.store.files import FileStore

        return cls(store if store is not None else FileStore(settings.home), session=session,
                   project=project, max_memos=max_memos)

    def __repr__(self) -> str:
        ns = self.namespace
        return f"MemoStore({self.store!r}, project={ns.project!r}, session={ns.session!r})"

    # --- index -----------------------------------------------------------------------

    def _load(self) -> list[MemoInfo]:
        """The index, newest-updated first, reconciled with the memo files present."""
        files = {k[:-3]: k for k in self.store.keys(self.namespace) if k.endswith(".md")}
        raw = self.store.get(self.namespace, INDEX_KEY)
        entries: list[MemoInfo] = []
        if raw is not None:
            try:
                data = json.loads(raw.decode("utf-8"))
                for e in data.get("memos", []):
                    entries.append(MemoInfo(key=str(e["key"]), summary=str(e["summary"]),
                                            size=int(e["size"]), created=str(e["created"]),
                                            updated=str(e["updated"])))
            except (ValueError, TypeError, KeyError, AttributeError):
                logger.warning("memo index %s/%s is unreadable; rebuilding it from the memo "
                               "files", self.namespace, INDEX_KEY)
                entries = []
        # A crash between writing a memo and its index leaves them out of step: trust the files.
        entries = [e for e in entries if e.key in files]
        known = {e.key for e in entries}
        for key in sorted(files.keys() - known):
            blob = self.store.get(self.namespace, files[key]) or b""
            entries.append(MemoInfo(key=key, summary="(not in index.json)",
                                    size=len(blob.decode("utf-8", "replace")), created="",
                                    updated=""))
        return entries

    def _save(self, entries: list[MemoInfo]) -> None:
        data = {"version": 1, "memos": [e.to_dict() for e in entries]}
        self.store.put(self.namespace, INDEX_KEY,
                       json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8"))

    @staticmethod
    def _find(entries: list[MemoInfo], key: str) -> int | None:
        # Keys differing only in case would share a file on macOS and Windows: one memo.
        folded = key.lower()
        return next((i for i, e in enumerate(entries) if e.key.lower() == folded), None)

    # --- developer API (raises) --------------------------------------------------------

    def list_memos(self) -> list[MemoInfo]:
        """Every memo of the session, most recently updated first."""
        with self._lock:
            return self._load()

    def info(self, key: str) -> MemoInfo | None:
        """The index entry of ``key``, or ``None``."""
        validate_memo_key(key)
        with self._lock:
            entries = self._load()
            i = self._find(entries, key)
            return None if i is None else entries[i]

    def read(self, key: str) -> str | None:
        """The content saved under ``key``, or ``None``."""
        info = self.info(key)
        if info is None:
            return None
        blob = self.store.get(self.namespace, f"{info.key}.md")
        return None if blob is None else blob.decode("utf-8")

    def write(self, key: str, content: str, summary: str) -> tuple[MemoInfo, bool]:
        """Save ``content`` under ``key``; returns the entry and whether it overwrote one.

        Raises:
            InvalidMemoKeyError: an unsafe key.
            MemoWriteError: a summary outside 1-300 characters, empty content,
                content holding the placeholder, or a new key past ``max_memos``.
            StoreError: the store could not write.
        """
        validate_memo_key(key)
        if not isinstance(summary, str) or not summary.strip():
            raise MemoWriteError("summary is required: one line (1-300 characters) saying "
                                 "what the memo holds")
        summary = summary.strip()
        if len(summary) > MAX_SUMMARY_CHARS:
            raise MemoWriteError(f"summary is {len(summary)} characters; keep it to "
                                 f"{MAX_SUMMARY_CHARS} or fewer and put the detail in content")
        if not isinstance(content, str) or not content.strip():
            raise MemoWriteError("content is empty; send the full text to save as content")
        if contains_placeholder(content):
            raise MemoWriteError(
                f"content is (or contains) the placeholder {PLACEHOLDER_MARKER!r}, which only "
                "stands for a memo already saved on disk; it is not real content. Send the "
                "real text you want to save as content (memo read shows a saved memo)")
        with self._lock:
            entries = self._load()
            i = self._find(entries, key)
            if i is None and len(entries) >= self.max_memos:
                raise MemoWriteError(
                    f"this session already has {len(entries)} memos, the maximum of "
                    f"{self.max_memos}. Delete memos that are stale (see memo list; then "
                    "memo delete key=\"...\") or overwrite an existing key, and write again")
            now = _now()
            old = None if i is None else entries.pop(i)
            info = MemoInfo(key=old.key if old else key, summary=summary, size=len(content),
                            created=old.created if old and old.created else now, updated=now)
            # the memo first: a crash before the index is written is repaired by _load
            self.store.put(self.namespace, f"{info.key}.md", content.encode("utf-8"))
            self._save([info, *entries])
        logger.info("memo %r saved (%d chars) in %s", info.key, info.size, self.namespace)
        return info, old is not None

    def delete(self, key: str) -> bool:
        """Remove the memo; ``True`` when there was one."""
        validate_memo_key(key)
        with self._lock:
            entries = self._load()
            i = self._find(entries, key)
            if i is None:
                return False
            info = entries.pop(i)
            self.store.delete(self.namespace, f"{info.key}.md")
            self._save(entries)
        logger.info("memo %r deleted from %s", info.key, self.namespace)
        return True

    # --- the tool (never raises on the model's input) ---------------------------------

    def handle_memo_call(self, tool_input: Any) -> str:
        """Run one memo tool call; the tool result for the model. Never raises on its input."""
        return self.run_memo_call(tool_input).text

    def run_memo_call(self, tool_input: Any) -> MemoCallResult:
        """Run one memo tool call. Never raises on the model's input.

        Args:
            tool_input: the call's arguments, as a dict or as its JSON text.

        Returns:
            The tool result text, whether the call succeeded, and after a
            successful write the placeholder for :func:`elide_memo_content`.
        """
        usage = ('expected {"action": "write" | "read" | "list" | "delete", "key": "<key>", '
                 '"summary": "<1-300 chars, write only>", "content": "<text, write only>"}')
        if isinstance(tool_input, str | bytes):
            try:
                tool_input = json.loads(tool_input)
            except (ValueError, UnicodeDecodeError):
                return MemoCallResult(text=f"Error: the input is not a JSON object; {usage}",
                                      ok=False)
        if not isinstance(tool_input, Mapping):
            return MemoCallResult(text=f"Error: the input must be an object, got "
                                       f"{type(tool_input).__name__}; {usage}", ok=False)
        action = tool_input.get("action")
        action = action.strip().lower() if isinstance(action, str) else action
        if action not in ("write", "read", "list", "delete"):
            return MemoCallResult(text=f"Error: action must be write, read, list or delete, got "
                                       f"{action!r:.80}; {usage}", ok=False)
        try:
            if action == "list":
                return MemoCallResult(text=self._list_text(), ok=True, action=action)
            key = tool_input.get("key")
            if key is None:
                return MemoCallResult(text=f"Error: {action} needs a key; {usage}", ok=False,
                                      action=action)
            validate_memo_key(key)
            match action:
                case "write":
                    return self._tool_write(key, tool_input)
                case "read":
                    return self._tool_read(key)
                case _:
                    if self.delete(key):
                        return MemoCallResult(text=f"Deleted memo {key!r}", ok=True,
                                              action=action, key=key)
                    return MemoCallResult(text=f"No memo with key {key!r}; nothing deleted. "
                                               f"{self._keys_hint()}", ok=False, action=action,
                                          key=key)
        except InvalidMemoKeyError as exc:
            return MemoCallResult(text=f"Error: {exc}. Example keys: \"plan\", "
                                       "\"root-cause_analysis\"", ok=False, action=action)
        except MemoWriteError as exc:
            return MemoCallResult(text=f"Refused: {exc}", ok=False, action=action)
        except (StoreError, OSError, UnicodeDecodeError) as exc:
            logger.warning("memo %s failed: %s", action, exc)
            return MemoCallResult(text=f"Error: the memo store failed ({exc}); the memo was "
                                       "not changed. Try again later.", ok=False, action=action)

    def _tool_write(self, key: str, tool_input: Mapping[str, Any]) -> MemoCallResult:
        summary, content = tool_input.get("summary"), tool_input.get("content")
        if summary is not None and not isinstance(summary, str):
            raise MemoWriteError(f"summary must be a string, got {type(summary).__name__}")
        if content is not None and not isinstance(content, str):
            raise MemoWriteError(f"content must be a string, got {type(content).__name__}")
        info, overwrote = self.write(key, content or "", summary or "")
        what = "updated (the previous version was overwritten)" if overwrote else "saved"
        return MemoCallResult(
            text=f"Memo {info.key!r} {what}: {info.size} chars, summary: "
                 f"{json.dumps(info.summary, ensure_ascii=False)}. Recall it with memo read "
                 f"key=\"{info.key}\".",
            ok=True, action="write", key=info.key,
            placeholder=memo_placeholder(info.key, info.summary, info.size))

    def _tool_read(self, key: str) -> MemoCallResult:
        info = self.info(key)
        content = self.read(key) if info else None
        if info is None or content is None:
            return MemoCallResult(text=f"No memo with key {key!r}. {self._keys_hint()}",
                                  ok=False, action="read", key=key)
        head = (f"Memo {info.key!r} (summary: {json.dumps(info.summary, ensure_ascii=False)}; "
                f"{info.size} chars; updated {info.updated or 'unknown'}):")
        return MemoCallResult(text=f"{head}\n\n{content}", ok=True, action="read", key=info.key)

    def _list_text(self) -> str:
        entries = self.list_memos()
        if not entries:
            return "No memos in this session yet."
        lines = [f"{len(entries)} memo(s) of at most {self.max_memos}, most recently updated "
                 "first:"]
        lines += [f"- {e.key}: {e.summary} ({e.size} chars, updated {e.updated or 'unknown'})"
                  for e in entries]
        return "\n".join(lines)

    def _keys_hint(self) -> str:
        keys = [e.key for e in self.list_memos()]
        if not keys:
            return "This session has no memos."
        shown = ", ".join(keys[:20]) + (f", ... ({len(keys)} in all)" if len(keys) > 20 else "")
        return f"Existing keys: {shown}."
