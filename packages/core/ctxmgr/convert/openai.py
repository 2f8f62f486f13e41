"""OpenAI chat-completions format <-> neutral messages, losslessly.

``to_openai(from_openai(x)) == x`` for any valid input: fields the neutral
model has no place for (``name``, ``refusal``, content given as ``null`` or as
parts, key order…) ride along in ``Message.extra["openai"]``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ctxmgr.convert._ids import StableIds
from ctxmgr.errors import InvalidMessageError
from ctxmgr.messages import (
    ContentBlock,
    Message,
    OpaqueBlock,
    Role,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    thaw,
)

__all__ = ["from_openai", "to_openai"]

_FORMAT = "openai"
_ROLE_IN: dict[str, Role] = {"system": "system", "developer": "system", "user": "user",
                             "assistant": "assistant", "tool": "tool"}
_KNOWN = ("role", "content", "tool_calls", "tool_call_id")


def from_openai(messages: Sequence[Mapping[str, Any]]) -> list[Message]:
    """Read OpenAI chat messages.

    Raises:
        InvalidMessageError: naming the index of the first message that is not
            valid OpenAI chat format (unknown role, tool result without
            ``tool_call_id``, tool-call arguments that are not a JSON object…).
    """
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise InvalidMessageError("expected a list of OpenAI chat messages, got "
                                  f"{type(messages).__name__}")
    ids = StableIds("oa_")
    return [_indexed(raw, i, ids) for i, raw in enumerate(messages)]


def _indexed(raw: Any, index: int, ids: StableIds) -> Message:
    try:
        return _message_in(raw, index, ids)
    except InvalidMessageError as exc:  # raised while building it: say which message
        if exc.index is not None:
            raise
        raise InvalidMessageError(str(exc), index=index) from exc


def _message_in(raw: Any, index: int, ids: StableIds) -> Message:
    if not isinstance(raw, Mapping):
        raise InvalidMessageError(f"expected an object, got {type(raw).__name__}", index=index)
    role_in = raw.get("role")
    role = _ROLE_IN.get(role_in) if isinstance(role_in, str) else None
    if role is None:
        raise InvalidMessageError(
            f"unknown role {role_in!r}; expected one of {sorted(_ROLE_IN)}", index=index
        )
    extra: dict[str, Any] = {}
    if role_in != role:
        extra["role"] = role_in
    fields = {k: v for k, v in raw.items() if k not in _KNOWN}
    if fields:
        extra["fields"] = fields
    canonical = [k for k in _KNOWN if k in raw] + list(fields)
    if list(raw) != canonical:
        extra["order"] = list(raw)

    if "content" not in raw:
        extra["content"] = "absent"
        parts: list[ContentBlock] = []
    elif raw["content"] is None:
        extra["content"] = "null"
        parts = []
    elif isinstance(raw["content"], str):
        parts = [TextBlock(text=raw["content"])]
    elif isinstance(raw["content"], list):
        extra["content"] = "parts"
        parts = [_part_in(p, index) for p in raw["content"]]
    else:
        raise InvalidMessageError(
            f"content must be a string, a list of parts or null, got "
            f"{type(raw['content']).__name__}", index=index)

    content: list[ContentBlock]
    if role == "tool":
        call_id = raw.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise InvalidMessageError("tool result without a tool_call_id", index=index)
        result_content: str | tuple[TextBlock | OpaqueBlock, ...]
        if extra.get("content") is None:
            result_content = raw["content"]
        elif extra["content"] == "parts":
            result_content = tuple(p for p in parts if isinstance(p, TextBlock | OpaqueBlock))
        else:  # null or absent: no output at all, kept as such for the round trip
            result_content = ""
        content = [ToolResultBlock(tool_use_id=call_id, content=result_content)]
    else:
        content = parts
        if "tool_call_id" in raw:
            raise InvalidMessageError(f"tool_call_id on a {role_in} message", index=index)
        calls = raw.get("tool_calls")
        if "tool_calls" in raw and role != "assistant":
            raise InvalidMessageError(f"tool_calls on a {role_in} message", index=index)
        if calls is None and "tool_calls" in raw:
            extra["tool_calls"] = "null"
        elif calls is not None:
            if not isinstance(calls, list):
                raise InvalidMessageError("tool_calls must be a list", index=index)
            if not calls:
                extra["tool_calls"] = "empty"
            content.extend(_tool_call_in(c, index) for c in calls)
    return Message(
        role=role,
        content=tuple(content),
        id=ids(raw),
        extra={_FORMAT: extra} if extra else {},
    )


def _part_in(part: Any, index: int) -> TextBlock | OpaqueBlock:
    if not isinstance(part, Mapping):
        raise InvalidMessageError("content parts must be objects", index=index)
    if part.get("type") == "text" and isinstance(part.get("text"), str):
        rest = {k: v for k, v in part.items() if k not in ("type", "text")}
        if list(part)[:2] != ["type", "text"]:
            rest["_order"] = list(part)
        return TextBlock(text=part["text"], extra={_FORMAT: rest} if rest else {})
    return OpaqueBlock(data=part)


def _tool_call_in(call: Any, index: int) -> ToolUseBlock:
    if not isinstance(call, Mapping):
        raise InvalidMessageError("each tool call must be an object", index=index)
    fn = call.get("function")
    if not isinstance(call.get("id"), str) or not call["id"]:
        raise InvalidMessageError("tool call without an id", index=index)
    if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
        raise InvalidMessageError(
            f"tool call {call['id']!r} has no function name", index=index)
    raw_args = fn.get("arguments", "")
    if not isinstance(raw_args, str):
        raise InvalidMessageError(
            f"tool call {call['id']!r}: arguments must be a JSON string", index=index)
    try:
        args = json.loads(raw_args) if raw_args.strip() else {}
    except json.JSONDecodeError as exc:
        raise InvalidMessageError(
            f"tool call {call['id']!r}: arguments are not valid JSON ({exc.msg} at "
            f"position {exc.pos})", index=index) from None
    if not isinstance(args, dict):
        raise InvalidMessageError(
            f"tool call {call['id']!r}: arguments must be a JSON object, got "
            f"{type(args).__name__}", index=index)
    extra: dict[str, Any] = {k: v for k, v in call.items() if k not in ("id", "type", "function")}
    if call.get("type", None) != "function":
        extra["type"] = call.get("type", "<absent>")
    fn_extra = {k: v for k, v in fn.items() if k not in ("name", "arguments")}
    if fn_extra:
        extra["function"] = fn_extra
    if "arguments" not in fn:
        extra["arguments"] = "absent"
    if list(call) != [k for k in ("id", "type", "function") if k in call] + [
            k for k in call if k not in ("id", "type", "function")]:
        extra["_order"] = list(call)
    if list(fn) != [k for k in ("name", "arguments") if k in fn] + list(fn_extra):
        extra["_function_order"] = list(fn)
    return ToolUseBlock(id=call["id"], name=fn["name"], input=args, raw_input=raw_args,
                        extra={_FORMAT: extra} if extra else {})


def to_openai(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Write neutral messages as OpenAI chat messages.

    A message holding several tool results becomes several ``tool`` messages;
    OpaqueBlocks are written back as the parts they came from.
    """
    out: list[dict[str, Any]] = []
    for m in messages:
        out.extend(_message_out(m))
    return out


def _message_out(m: Message) -> list[dict[str, Any]]:
    extra: Mapping[str, Any] = m.extra.get(_FORMAT, {})
    fields = thaw(extra.get("fields", {}))
    results = [b for b in m.content if isinstance(b, ToolResultBlock)]
    if results:
        dicts = [_ordered(_tool_message_out(r, extra, fields), extra) for r in results]
        rest = [b for b in m.content if not isinstance(b, ToolResultBlock)]
        if rest:
            role = "user" if m.role == "tool" else m.role
            dicts.append({"role": role, "content": _content_out(rest, {})})
        return dicts

    d: dict[str, Any] = {"role": extra.get("role", m.role)}
    body = [b for b in m.content if not isinstance(b, ToolUseBlock)]
    form = extra.get("content")
    if body:
        d["content"] = _content_out(body, extra)
    elif form == "null" or (form is None and m.role == "assistant" and m.tool_uses):
        d["content"] = None
    elif form != "absent":
        d["content"] = [] if form == "parts" else ""
    calls = [_tool_call_out(b) for b in m.content if isinstance(b, ToolUseBlock)]
    if calls:
        d["tool_calls"] = calls
    elif extra.get("tool_calls") == "empty":
        d["tool_calls"] = []
    elif extra.get("tool_calls") == "null":
        d["tool_calls"] = None
    d.update(fields)
    return [_ordered(d, extra)]


def _tool_message_out(
    r: ToolResultBlock, extra: Mapping[str, Any], fields: dict[str, Any]
) -> dict[str, Any]:
    d: dict[str, Any] = {"role": "tool"}
    form = extra.get("content")
    if form == "null" and r.content == "":
        d["content"] = None
    elif not (form == "absent" and r.content == ""):
        d["content"] = _result_content_out(r)
    d["tool_call_id"] = r.tool_use_id
    d.update(fields)
    return d


def _ordered(d: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    return _reorder(d, extra.get("order"))


def _content_out(blocks: Sequence[ContentBlock], extra: Mapping[str, Any]) -> Any:
    as_parts = extra.get("content") == "parts" or any(
        not isinstance(b, TextBlock) or b.extra.get(_FORMAT) for b in blocks)
    if not as_parts:
        return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))
    return [_part_out(b) for b in blocks]


def _part_out(b: ContentBlock) -> dict[str, Any]:
    if isinstance(b, TextBlock):
        rest = thaw(b.extra.get(_FORMAT, {}))
        order = rest.pop("_order", None)
        d = {"type": "text", "text": b.text, **rest}
        return _reorder(d, order)
    if isinstance(b, OpaqueBlock):
        return thaw(b.data)
    if isinstance(b, ToolResultBlock):
        return {"type": "text", "text": b.text}
    raise AssertionError(f"unexpected block {b.type}")  # tool_use never reaches here


def _result_content_out(r: ToolResultBlock) -> Any:
    if isinstance(r.content, str):
        return r.content
    return [_part_out(b) for b in r.content]


def _tool_call_out(b: ToolUseBlock) -> dict[str, Any]:
    extra = thaw(b.extra.get(_FORMAT, {}))
    order, fn_order = extra.pop("_order", None), extra.pop("_function_order", None)
    args = _arguments_out(b)
    fn: dict[str, Any] = {"name": b.name}
    if extra.pop("arguments", None) != "absent" or b.input:
        fn["arguments"] = args
    fn.update(extra.pop("function", {}))
    call: dict[str, Any] = {"id": b.id}
    kind = extra.pop("type", "function")
    if kind != "<absent>":
        call["type"] = kind
    call["function"] = _reorder(fn, fn_order)
    call.update(extra)
    return _reorder(call, order)


def _reorder(d: dict[str, Any], order: list[str] | None) -> dict[str, Any]:
    return {k: d[k] for k in order} if order and set(order) == set(d) else d


def _arguments_out(b: ToolUseBlock) -> str:
    if b.raw_input is not None:
        try:
            same = (json.loads(b.raw_input) if b.raw_input.strip() else {}) == thaw(b.input)
        except json.JSONDecodeError:
            same = False
        if same:
            return b.raw_input
    return json.dumps(thaw(b.input), ensure_ascii=False)
