"""Anthropic messages format <-> neutral messages, losslessly.

Anthropic keeps system text outside the message list and sends tool results
inside user turns. ``from_anthropic`` turns a user turn that holds only tool
results into one ``tool`` message; ``to_anthropic`` merges consecutive
OpenAI-style tool messages (one result each) back into one user turn, hoists
system messages into ``system`` and drops empty text blocks, which the API
rejects. ``to_anthropic(from_anthropic(x)) == x`` for any valid input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ctxmgr.convert._ids import StableIds
from ctxmgr.errors import InvalidMessageError
from ctxmgr.messages import (
    ContentBlock,
    Message,
    OpaqueBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    thaw,
)

__all__ = ["from_anthropic", "to_anthropic"]

_FORMAT = "anthropic"


def from_anthropic(
    messages: Sequence[Mapping[str, Any]],
    *,
    system: str | Sequence[Mapping[str, Any]] | None = None,
) -> list[Message]:
    """Read Anthropic messages (and the request's ``system`` parameter, if any).

    Raises:
        InvalidMessageError: naming the index of the first invalid message.
    """
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise InvalidMessageError("expected a list of Anthropic messages, got "
                                  f"{type(messages).__name__}")
    ids = StableIds("an_")
    out: list[Message] = []
    if system is not None:
        if isinstance(system, str):
            out.append(Message(role="system", content=(TextBlock(text=system),),
                               id=ids({"system": system})))
        else:
            blocks = tuple(_block_in(b, -1) for b in system)
            out.append(Message(role="system", content=blocks, id=ids({"system": list(system)}),
                               extra={_FORMAT: {"content": "list"}}))
    for i, raw in enumerate(messages):
        try:
            out.append(_message_in(raw, i, ids))
        except InvalidMessageError as exc:  # raised while building it: say which message
            if exc.index is not None:
                raise
            raise InvalidMessageError(str(exc), index=i) from exc
    return out


def _message_in(raw: Any, index: int, ids: StableIds) -> Message:
    if not isinstance(raw, Mapping):
        raise InvalidMessageError(f"expected an object, got {type(raw).__name__}", index=index)
    role = raw.get("role")
    if role not in ("user", "assistant"):
        raise InvalidMessageError(
            f"unknown role {role!r}; expected 'user' or 'assistant'", index=index)
    extra: dict[str, Any] = {}
    fields = {k: v for k, v in raw.items() if k not in ("role", "content")}
    if fields:
        extra["fields"] = fields
    content = raw.get("content")
    if isinstance(content, str):
        blocks: tuple[ContentBlock, ...] = (TextBlock(text=content),)
    elif isinstance(content, list):
        extra["content"] = "list"
        blocks = tuple(_block_in(b, index) for b in content)
    else:
        raise InvalidMessageError(
            f"content must be a string or a list of blocks, got {type(content).__name__}",
            index=index)
    if role == "user" and any(isinstance(b, ToolUseBlock) for b in blocks):
        raise InvalidMessageError("tool_use block in a user message", index=index)
    if role == "assistant" and any(isinstance(b, ToolResultBlock) for b in blocks):
        raise InvalidMessageError("tool_result block in an assistant message", index=index)
    neutral_role = role
    if role == "user" and blocks and all(isinstance(b, ToolResultBlock) for b in blocks):
        neutral_role = "tool"
    return Message(role=neutral_role, content=blocks, id=ids(raw), extra={_FORMAT: extra})


def _block_in(raw: Any, index: int) -> ContentBlock:
    if not isinstance(raw, Mapping):
        raise InvalidMessageError("content blocks must be objects", index=index)
    kind = raw.get("type")
    if kind == "text" and isinstance(raw.get("text"), str):
        return TextBlock(text=raw["text"], extra=_own(
            {k: v for k, v in raw.items() if k not in ("type", "text")}))
    if kind == "tool_use":
        if not isinstance(raw.get("id"), str) or not raw["id"]:
            raise InvalidMessageError("tool_use block without an id", index=index)
        if not isinstance(raw.get("name"), str):
            raise InvalidMessageError(f"tool_use {raw['id']!r} has no name", index=index)
        if not isinstance(raw.get("input"), Mapping):
            raise InvalidMessageError(f"tool_use {raw['id']!r}: input must be an object",
                                      index=index)
        return ToolUseBlock(
            id=raw["id"], name=raw["name"], input=raw["input"],
            extra=_own({k: v for k, v in raw.items() if k not in ("type", "id", "name", "input")}))
    if kind == "tool_result":
        if not isinstance(raw.get("tool_use_id"), str) or not raw["tool_use_id"]:
            raise InvalidMessageError("tool_result block without a tool_use_id", index=index)
        content = raw.get("content", "")
        extra = {k: v for k, v in raw.items()
                 if k not in ("type", "tool_use_id", "content", "is_error")}
        if "content" not in raw:
            extra["_content"] = "absent"
        if "is_error" in raw:
            extra["_is_error"] = "given"
        parts: str | tuple[TextBlock | OpaqueBlock, ...]
        if isinstance(content, str):
            parts = content
        elif isinstance(content, list):
            parts = tuple(_nested_in(b, index) for b in content)
        else:
            raise InvalidMessageError("tool_result content must be a string or a list",
                                      index=index)
        return ToolResultBlock(tool_use_id=raw["tool_use_id"], content=parts,
                               is_error=bool(raw.get("is_error", False)), extra=_own(extra))
    return OpaqueBlock(data=raw)


def _own(extra: dict[str, Any]) -> dict[str, Any]:
    """Block fields only this format knows, namespaced so other formats ignore them."""
    return {_FORMAT: extra} if extra else {}


def _nested_in(raw: Any, index: int) -> TextBlock | OpaqueBlock:
    block = _block_in(raw, index)
    return block if isinstance(block, TextBlock | OpaqueBlock) else OpaqueBlock(data=raw)


def to_anthropic(messages: Sequence[Message]) -> dict[str, Any]:
    """Write neutral messages as an Anthropic request body: ``{"system"?, "messages"}``."""
    system_blocks: list[dict[str, Any]] = []
    system_as_list = False
    out: list[dict[str, Any]] = []
    merging = False  # the last output turn collects OpenAI-style tool results
    for m in messages:
        extra: Mapping[str, Any] = m.extra.get(_FORMAT, {})
        if m.role == "system":
            system_as_list = system_as_list or extra.get("content") == "list"
            system_blocks.extend(_block_out(b) for b in m.content if _keep(b))
            continue
        openai_style_result = m.role == "tool" and _FORMAT not in m.extra
        blocks = [_block_out(b) for b in m.content if _keep(b)]
        if openai_style_result and merging:
            out[-1]["content"].extend(blocks)
            continue
        role = "user" if m.role == "tool" else m.role
        d: dict[str, Any] = {"role": role}
        if extra.get("content") == "list" or openai_style_result or not _plain(m):
            d["content"] = blocks
        else:
            d["content"] = "\n".join(b.text for b in m.content if isinstance(b, TextBlock))
        d.update(thaw(extra.get("fields", {})))
        out.append(d)
        merging = openai_style_result
    body: dict[str, Any] = {}
    if system_blocks:
        if not system_as_list and all(set(b) == {"type", "text"} for b in system_blocks):
            body["system"] = "\n\n".join(b["text"] for b in system_blocks)
        else:
            body["system"] = system_blocks
    body["messages"] = out
    return body


def _keep(b: ContentBlock) -> bool:
    return not (isinstance(b, TextBlock) and not b.text and not b.extra.get(_FORMAT))


def _plain(m: Message) -> bool:
    return (len(m.content) == 1 and isinstance(m.content[0], TextBlock)
            and not m.content[0].extra.get(_FORMAT))


def _block_out(b: ContentBlock) -> dict[str, Any]:
    if isinstance(b, TextBlock):
        d: dict[str, Any] = {"type": "text", "text": b.text, **thaw(b.extra.get(_FORMAT, {}))}
        # OpenAI-compatible gateways carry Anthropic's cache_control on text parts
        cache = b.extra.get("openai", {}).get("cache_control")
        if cache is not None and "cache_control" not in d:
            d["cache_control"] = thaw(cache)
        return d
    if isinstance(b, ToolUseBlock):
        return {"type": "tool_use", "id": b.id, "name": b.name, "input": thaw(b.input),
                **thaw(b.extra.get(_FORMAT, {}))}
    if isinstance(b, ToolResultBlock):
        extra = thaw(b.extra.get(_FORMAT, {}))
        d = {"type": "tool_result", "tool_use_id": b.tool_use_id}
        if extra.pop("_content", None) != "absent" or b.content:
            d["content"] = (b.content if isinstance(b.content, str)
                            else [_block_out(p) for p in b.content])
        if extra.pop("_is_error", None) == "given" or b.is_error:
            d["is_error"] = b.is_error
        d.update(extra)
        return d
    if isinstance(b, OpaqueBlock):
        return thaw(b.data)
    raise AssertionError(f"unexpected block {b!r}")
