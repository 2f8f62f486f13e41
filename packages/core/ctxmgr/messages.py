"""The neutral message model every ctxmgr mechanism works on.

Messages and blocks are frozen, slotted dataclasses: history is rebuilt with
``dataclasses.replace``, never mutated, so a per-message token count (or any value
computed from the content) can be cached safely on the message itself. Fields of a
source format that the model has no place for are kept in ``extra`` so that
converting back is lossless.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeAlias, assert_never

from ctxmgr.errors import InvalidMessageError

__all__ = [
    "ContentBlock",
    "Message",
    "OpaqueBlock",
    "Role",
    "TextBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "block_from_dict",
    "block_to_dict",
    "freeze",
    "message_from_dict",
    "message_problem",
    "message_to_dict",
    "new_message_id",
    "text_message",
    "thaw",
]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
ROLES: frozenset[str] = frozenset({"system", "user", "assistant", "tool"})

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _empty() -> Mapping[str, Any]:
    return _EMPTY


MAX_NESTING = 200
"""Levels of dicts and lists a message's data may nest (JSON from a provider nests a
few dozen at most): deeper data is refused when a message is built, so no later step
(a digest, a converter, a checkpoint) runs out of stack on it."""


def freeze(value: Any, _depth: int = 0) -> Any:
    """Return a read-only deep copy of JSON-like data (dicts → mappings, lists → tuples).

    Raises:
        InvalidMessageError: the data nests deeper than :data:`MAX_NESTING` levels.
    """
    if type(value) in _SCALARS:  # most values: answered without the (slow) ABC checks
        return value
    mapping = isinstance(value, _MAPPING)
    if not mapping and not isinstance(value, list | tuple):
        return value
    if _depth >= MAX_NESTING:
        raise InvalidMessageError(f"message data is nested too deeply (over {MAX_NESTING} levels)")
    if mapping:
        if not value:
            return _EMPTY
        return MappingProxyType({k: freeze(v, _depth + 1) for k, v in value.items()})
    return tuple(freeze(v, _depth + 1) for v in value)


_SCALARS = frozenset((str, int, float, bool, type(None)))
_MAPPING = (dict, Mapping)
"""What a mapping check takes: ``dict`` first, as JSON gives, answered without
the (slow) ABC check."""


def thaw(value: Any) -> Any:
    """Inverse of :func:`freeze`: plain dicts and lists, ready for ``json.dumps``."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value


def _frozen(obj: object, name: str) -> None:
    value = getattr(obj, name)
    if not isinstance(value, MappingProxyType):
        object.__setattr__(obj, name, freeze(value))


@dataclass(frozen=True, slots=True, kw_only=True)
class TextBlock:
    """Plain text."""

    text: str
    extra: Mapping[str, Any] = field(default_factory=_empty)
    """Source-format fields kept for a lossless round trip, keyed by format name
    (e.g. ``{"anthropic": {"cache_control": ...}}``); other formats ignore them."""
    type: Literal["text"] = "text"

    def __post_init__(self) -> None:
        _frozen(self, "extra")


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolUseBlock:
    """A tool call made by the assistant."""

    id: str
    name: str
    input: Mapping[str, Any]
    raw_input: str | None = field(default=None, compare=False, repr=False)
    """The provider's exact argument text; reused on output while it still parses to ``input``."""
    extra: Mapping[str, Any] = field(default_factory=_empty)
    type: Literal["tool_use"] = "tool_use"

    def __post_init__(self) -> None:
        _frozen(self, "input")
        _frozen(self, "extra")


@dataclass(frozen=True, slots=True, kw_only=True)
class OpaqueBlock:
    """Anything else (images, thinking, audio…), carried through untouched."""

    data: Mapping[str, Any]
    """The block exactly as the source format had it."""
    type: Literal["opaque"] = "opaque"

    def __post_init__(self) -> None:
        _frozen(self, "data")


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultBlock:
    """The answer to one tool call; ``content`` is a string or a tuple of blocks."""

    tool_use_id: str
    content: str | tuple[TextBlock | OpaqueBlock, ...]
    is_error: bool = False
    extra: Mapping[str, Any] = field(default_factory=_empty)
    type: Literal["tool_result"] = "tool_result"

    def __post_init__(self) -> None:
        _frozen(self, "extra")
        if isinstance(self.content, list):
            object.__setattr__(self, "content", tuple(self.content))

    @property
    def text(self) -> str:
        """The result's text (text parts joined), as a model would read it."""
        if isinstance(self.content, str):
            return self.content
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


ContentBlock: TypeAlias = TextBlock | ToolUseBlock | ToolResultBlock | OpaqueBlock


def new_message_id() -> str:
    """A fresh random message id."""
    return f"msg_{uuid.uuid4().hex}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """One chat message in neutral form.

    ``content`` is a tuple of blocks; ``id`` is stable across conversions
    (converters derive it from the source when the source has none);
    ``metadata`` is yours; ``extra`` holds source-format fields, keyed by
    format name (``"openai"``, ``"anthropic"``), for lossless round trips.
    """

    role: Role
    content: tuple[ContentBlock, ...]
    id: str = field(default_factory=new_message_id)
    metadata: Mapping[str, Any] = field(default_factory=_empty)
    extra: Mapping[str, Any] = field(default_factory=_empty)
    _token_cache: dict[str, int] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    _derived: dict[str, Any] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    """Other values computed from the content (the distinctive strings it shows), kept
    on the message for the same reason as its token counts: it never changes."""

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {sorted(ROLES)}, got {self.role!r}")
        if not isinstance(self.content, tuple):
            object.__setattr__(self, "content", tuple(self.content))
        _frozen(self, "metadata")
        _frozen(self, "extra")

    @property
    def text(self) -> str:
        """Text blocks joined with newlines (tool results not included)."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_uses(self) -> tuple[ToolUseBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolUseBlock))

    @property
    def tool_results(self) -> tuple[ToolResultBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolResultBlock))

    @property
    def has_tool_blocks(self) -> bool:
        """True for a tool call or a tool result message (a "tool message")."""
        return any(isinstance(b, ToolUseBlock | ToolResultBlock) for b in self.content)


def text_message(
    role: Role,
    text: str,
    *,
    id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    tool_uses: Sequence[ToolUseBlock] = (),
) -> Message:
    """Build a message of one text block (plus optional tool calls)."""
    blocks: list[ContentBlock] = [TextBlock(text=text)] if text or not tool_uses else []
    blocks.extend(tool_uses)
    return Message(
        role=role,
        content=tuple(blocks),
        id=id or new_message_id(),
        metadata=metadata or _EMPTY,
    )


def block_to_dict(block: ContentBlock) -> dict[str, Any]:
    """Plain-JSON form of a block (the inverse of :func:`block_from_dict`)."""
    match block:
        case TextBlock():
            d: dict[str, Any] = {"type": "text", "text": block.text}
        case ToolUseBlock():
            d = {"type": "tool_use", "id": block.id, "name": block.name,
                 "input": thaw(block.input)}
            if block.raw_input is not None:
                d["raw_input"] = block.raw_input
        case ToolResultBlock():
            d = {"type": "tool_result", "tool_use_id": block.tool_use_id,
                 "content": block.content if isinstance(block.content, str)
                 else [block_to_dict(b) for b in block.content],
                 "is_error": block.is_error}
        case OpaqueBlock():
            return {"type": "opaque", "data": thaw(block.data)}
        case _:
            assert_never(block)
    if block.extra:
        d["extra"] = thaw(block.extra)
    return d


def block_from_dict(d: Mapping[str, Any]) -> ContentBlock:
    """Rebuild a block written by :func:`block_to_dict`."""
    extra = d.get("extra", {})
    match d.get("type"):
        case "text":
            return TextBlock(text=d["text"], extra=extra)
        case "tool_use":
            return ToolUseBlock(id=d["id"], name=d["name"], input=d["input"],
                                raw_input=d.get("raw_input"), extra=extra)
        case "tool_result":
            content = d["content"]
            # parts written by block_to_dict from a ToolResultBlock: text or opaque only
            parts = content if isinstance(content, str) else tuple(
                block_from_dict(b) for b in content)
            return ToolResultBlock(tool_use_id=d["tool_use_id"], content=parts,  # type: ignore[arg-type]
                                   is_error=bool(d.get("is_error", False)), extra=extra)
        case "opaque":
            return OpaqueBlock(data=d["data"])
    raise ValueError(f"unknown block type {d.get('type')!r}")


def message_to_dict(message: Message) -> dict[str, Any]:
    """Plain-JSON form of a message, lossless (ids, metadata and extras kept)."""
    d: dict[str, Any] = {"id": message.id, "role": message.role,
                         "content": [block_to_dict(b) for b in message.content]}
    if message.metadata:
        d["metadata"] = thaw(message.metadata)
    if message.extra:
        d["extra"] = thaw(message.extra)
    return d


def message_from_dict(d: Mapping[str, Any]) -> Message:
    """Rebuild a message written by :func:`message_to_dict`.

    Raises:
        InvalidMessageError: ``d`` is not what :func:`message_to_dict` writes (it says
            what is wrong: a missing role, a text that is not a string, data nested
            deeper than :data:`MAX_NESTING`).
    """
    problem = message_problem(d)
    if problem is not None:
        raise InvalidMessageError(f"message {str(d.get('id'))[:40]!r} {problem}"
                                  if isinstance(d, Mapping) else f"message {problem}")
    return Message(role=d["role"], content=tuple(block_from_dict(b) for b in d["content"]),
                   id=d["id"], metadata=d.get("metadata", {}), extra=d.get("extra", {}))


_BLOCK_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "text": {"text": str},
    "tool_use": {"id": str, "name": str, "input": _MAPPING},
    "tool_result": {"tool_use_id": str, "content": (str, list, tuple)},
    "opaque": {"data": _MAPPING},
}


def message_problem(d: object) -> str | None:
    """What keeps ``d`` from being a message :func:`message_to_dict` wrote, or ``None``
    (a dict read back from a checkpoint or a store may have been edited)."""
    if not isinstance(d, _MAPPING):
        return f"is {type(d).__name__}, not an object"
    if not isinstance(d.get("id"), str):
        return "has no string id"
    if d.get("role") not in ROLES:
        return f"has role {str(d.get('role'))[:40]!r}"
    if not isinstance(d.get("metadata", {}), _MAPPING) or not isinstance(d.get("extra", {}),
                                                                         _MAPPING):
        return "has metadata or extra that is not an object"
    content = d.get("content")
    if not isinstance(content, list | tuple):
        return "has no list of content blocks"
    for block in content:
        problem = _block_problem(block)
        if problem is not None:
            return problem
    return None


def _block_problem(b: object, *, in_result: bool = False) -> str | None:
    if not isinstance(b, _MAPPING):
        return f"a content block is {type(b).__name__}, not an object"
    kind = b.get("type")
    fields = _BLOCK_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None or (in_result and kind not in ("text", "opaque")):
        return f"a content block has type {str(kind)[:40]!r}"
    for name, types in fields.items():
        if not isinstance(b.get(name), types):
            return f"a {kind} block has no valid {name!r}"
    if not isinstance(b.get("extra", {}), _MAPPING):
        return f"a {kind} block has extra that is not an object"
    if kind == "tool_use" and not isinstance(b.get("raw_input"), str | None):
        return "a tool_use block has a raw_input that is not a string"
    if kind == "tool_result" and isinstance(b["content"], list | tuple):
        for part in b["content"]:
            problem = _block_problem(part, in_result=True)
            if problem is not None:
                return problem
    return None
