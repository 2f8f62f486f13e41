"""LangChain messages <-> ctxmgr's neutral messages, losslessly in both directions.

* ``to_langchain(from_langchain(x)) == x``: what LangChain stores and the neutral
  model has no field for (``name``, ``additional_kwargs``, ``response_metadata``,
  ``usage_metadata``, ``artifact``, list-form content, the message class, a
  missing id...) rides in ``Message.extra["langchain"]``.
* ``from_langchain(to_langchain(x)) == x``: what LangChain has no field for (the
  neutral ``metadata``, other formats' extras such as OpenAI's key order, block
  extras, a tool call's exact argument text, several tool results in one
  message) rides in ``additional_kwargs["ctxmgr"]``. No LangChain chat model
  sends that key to its provider (they read only keys they know, such as
  ``name``, ``tool_calls`` or ``__openai_role__``; LangChain keeps its own
  bookkeeping there too, e.g. ``lc_source``), and LangGraph checkpoints it
  with the message.

Mapping: ``system``/``user``/``assistant`` <-> ``SystemMessage``/``HumanMessage``/
``AIMessage``; one tool result <-> one ``ToolMessage`` (``status="error"`` for an
error result); ``tool_calls`` <-> tool-use blocks; ``invalid_tool_calls`` (which
providers are sent too) <-> opaque blocks after the tool uses, so they are
counted and never cost zero tokens; content ``str`` <-> one text block, a list
<-> text and opaque blocks. An OpenAI ``name`` field becomes the message's
``name`` (LangChain's ChatOpenAI sends it; ToolNode names tool messages the
same way). A neutral message holding several tool results (Anthropic puts them
in one user turn) becomes one ``ToolMessage`` per result, with ids ``ID``,
``ID#1``...; ``from_langchain`` joins them back when they are all still there.

Ids are kept. A LangChain message without one gets an id derived from its
content, so converting the same history twice gives the same ids (ctxmgr
reconciles histories by id on every call).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ctxmgr import Message, OpaqueBlock, TextBlock, ToolResultBlock, ToolUseBlock
from ctxmgr.session import ModelInfo
from ctxmgr.session.kit import ContentBlock, InvalidMessageError, Role, StableIds, thaw

try:
    from langchain_core import messages as lc_messages
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        ChatMessage,
        HumanMessage,
        RemoveMessage,
        SystemMessage,
        ToolMessage,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_langgraph needs LangChain: pip install ".[langgraph]"') from exc

__all__ = ["from_langchain", "model_info", "to_langchain"]

_FORMAT = "langchain"
_STASH = "ctxmgr"
_INVALID = "invalid_tool_call"
# Fields mapped natively or through the stash; any other field a class has (artifact,
# response_metadata, usage_metadata, chunk fields...) is kept when it is not the default.
_NATIVE = frozenset({"content", "additional_kwargs", "type", "name", "id", "role",
                     "tool_calls", "invalid_tool_calls", "tool_call_id", "status"})
_CHAT_ROLES: dict[str, Role] = {"user": "user", "human": "user", "assistant": "assistant",
                                "ai": "assistant", "system": "system",
                                "developer": "system", "tool": "tool"}
_ROLES = frozenset(_CHAT_ROLES.values())


# ------------------------------------------------------------------------- LangChain in


def from_langchain(messages: Sequence[BaseMessage]) -> list[Message]:
    """Read LangChain messages (any ``BaseMessage``: system, human, AI, tool, chat, chunks).

    Raises:
        InvalidMessageError: naming the index of the first item that is not a
            LangChain message, or is a ``RemoveMessage`` (an edit, not a message).
    """
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise InvalidMessageError(
            f"expected a list of LangChain messages, got {type(messages).__name__}")
    ids = StableIds("lc_")
    out: list[Message] = []
    i = 0
    while i < len(messages):
        lc = messages[i]
        if not isinstance(lc, BaseMessage) or isinstance(lc, RemoveMessage):
            raise InvalidMessageError(
                f"expected a LangChain message, got {type(lc).__name__}", index=i)
        n = _whole_group(messages, i)
        try:
            if n:
                out.append(_group_in(messages[i:i + n], ids))
            else:
                out.append(_message_in(lc, ids))
        except InvalidMessageError as exc:
            raise InvalidMessageError(str(exc), index=i) from None
        i += n or 1
    return out


def _stash_of(lc: BaseMessage) -> Mapping[str, Any]:
    stash = lc.additional_kwargs.get(_STASH)
    return stash if isinstance(stash, Mapping) else {}


def _whole_group(messages: Sequence[BaseMessage], i: int) -> int:
    """The size of the split neutral message that starts at ``i``, if all its parts are there."""
    group = _stash_of(messages[i]).get("group")
    if not (isinstance(group, list | tuple) and len(group) == 3 and group[1] == 0
            and isinstance(group[2], int) and group[2] > 1):
        return 0
    gid, _, n = group
    parts = messages[i:i + n]
    if len(parts) != n:
        return 0
    for k, part in enumerate(parts):
        g = _stash_of(part).get("group") if isinstance(part, BaseMessage) else None
        if not (isinstance(g, list | tuple) and list(g) == [gid, k, n]):
            return 0
    return n


def _message_in(lc: BaseMessage, ids: StableIds) -> Message:
    stash = _stash_of(lc)
    role, lang = _role_in(lc)
    blocks = _blocks_in(lc, stash, lang)
    _apply_block_stash(blocks, stash)
    extra: dict[str, Any] = dict(stash.get("extra") or {})
    if lc.name != _openai_name(extra):
        lang["fields"] = {"name": lc.name}
    _fields_in(lc, lang)
    if lang:
        extra[_FORMAT] = lang
    message_id = lc.id if lc.id else ids(lc.model_dump(exclude={"id"}))
    return Message(role=role, content=tuple(blocks), id=message_id,
                   metadata=stash.get("metadata") or {}, extra=extra)


def _group_in(parts: Sequence[BaseMessage], ids: StableIds) -> Message:
    """One neutral message from the LangChain messages it was split into."""
    head = _stash_of(parts[0])
    blocks: list[ContentBlock] = []
    langs: list[Any] = []
    for part in parts:
        one = _message_in(part, ids)
        blocks.extend(one.content)
        langs.append(thaw(one.extra.get(_FORMAT, {})))
    order = head.get("order")
    if isinstance(order, list | tuple) and sorted(order) == list(range(len(blocks))):
        placed = dict(zip(order, blocks, strict=True))
        blocks = [placed[k] for k in range(len(blocks))]
    _apply_block_stash(blocks, head)
    extra: dict[str, Any] = dict(head.get("extra") or {})
    if any(langs):
        extra[_FORMAT] = {"parts": langs}
    role = head.get("role")
    return Message(role=role if role in _ROLES else "user", content=tuple(blocks),
                   id=str(head["group"][0]), metadata=head.get("metadata") or {}, extra=extra)


def _role_in(lc: BaseMessage) -> tuple[Role, dict[str, Any]]:
    lang: dict[str, Any] = {}
    role: Role
    if lc.type == "chat":
        chat_role = str(getattr(lc, "role", ""))
        role = _CHAT_ROLES.get(chat_role, "user")
        if chat_role != role:
            lang["chat_role"] = chat_role
    else:
        # FunctionMessage and any future kind read as a user turn, class kept.
        role = {"human": "user", "ai": "assistant", "system": "system",
                "tool": "tool"}.get(lc.type, "user")  # type: ignore[assignment]
    if type(lc) is not _class_for(role, has_result=lc.type == "tool"):
        lang["class"] = type(lc).__name__
    return role, lang


def _class_for(role: str, *, has_result: bool) -> type[BaseMessage]:
    classes: dict[str, type[BaseMessage]] = {
        "system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return ToolMessage if has_result else classes.get(role, ChatMessage)


def _blocks_in(lc: BaseMessage, stash: Mapping[str, Any], lang: dict[str, Any]
               ) -> list[ContentBlock]:
    parts = _content_in(lc.content)
    if isinstance(lc, ToolMessage):
        result: str | tuple[TextBlock | OpaqueBlock, ...] = (
            lc.content if isinstance(lc.content, str) else tuple(parts))
        return [ToolResultBlock(tool_use_id=str(lc.tool_call_id), content=result,
                                is_error=lc.status == "error")]
    if isinstance(lc.content, list) and _written_as_str(parts):
        lang["content"] = "list"
    if stash.get("no_text") and lc.content == "":
        parts = []
    blocks: list[ContentBlock] = list(parts)
    if isinstance(lc, AIMessage):
        calls = [ToolUseBlock(id=c.get("id") or "", name=c["name"], input=c["args"],
                              extra={_FORMAT: {"no_id": True}} if c.get("id") is None else {})
                 for c in lc.tool_calls]
        at = stash.get("tool_use_at")
        if isinstance(at, list | tuple) and len(at) == len(calls) and all(
                isinstance(k, int) and 0 <= k <= len(blocks) + len(calls) for k in at):
            for k, call in zip(at, calls, strict=True):
                blocks.insert(k, call)
        else:
            blocks.extend(calls)
        blocks.extend(OpaqueBlock(data=dict(bad)) for bad in lc.invalid_tool_calls)
        if lc.invalid_tool_calls:
            lang["invalid_tool_calls"] = len(lc.invalid_tool_calls)
    return blocks


def _content_in(content: Any) -> list[TextBlock | OpaqueBlock]:
    if isinstance(content, str):
        return [TextBlock(text=content)]
    out: list[TextBlock | OpaqueBlock] = []
    for part in content:
        if isinstance(part, str):
            out.append(TextBlock(text=part, extra={_FORMAT: {"bare": True}}))
        elif isinstance(part, Mapping) and part.get("type") == "text" and isinstance(
                part.get("text"), str):
            rest = {k: v for k, v in part.items() if k not in ("type", "text")}
            out.append(TextBlock(text=part["text"], extra={_FORMAT: rest} if rest else {}))
        elif isinstance(part, Mapping):
            out.append(OpaqueBlock(data=part))
        else:
            raise InvalidMessageError(
                f"content parts must be text or objects, got {type(part).__name__}")
    return out


def _written_as_str(body: Sequence[ContentBlock]) -> bool:
    """Whether :func:`to_langchain` writes this content as a string (``""`` when empty)."""
    return not body or (len(body) == 1 and isinstance(body[0], TextBlock)
                        and not body[0].extra.get(_FORMAT))


def _apply_block_stash(blocks: list[ContentBlock], stash: Mapping[str, Any]) -> None:
    """Give blocks back what only the stash could carry; skipped when the content was
    changed so that the stash no longer lines up with it."""
    saved = stash.get("blocks")
    if not isinstance(saved, list | tuple) or len(saved) != len(blocks):
        return
    if any(isinstance(s, Mapping) and s.get("type") != b.type
           for s, b in zip(saved, blocks, strict=True)):
        return
    for k, (s, b) in enumerate(zip(saved, blocks, strict=True)):
        if isinstance(s, Mapping):
            blocks[k] = _with_stash(b, s)


def _with_stash(b: ContentBlock, s: Mapping[str, Any]) -> ContentBlock:
    if isinstance(b, OpaqueBlock):
        return b
    extra = {**(s.get("extra") or {}), **thaw(b.extra)}
    match b:
        case TextBlock():
            return TextBlock(text=b.text, extra=extra)
        case ToolUseBlock():
            return ToolUseBlock(id=b.id, name=b.name, input=b.input, raw_input=s.get("raw"),
                                extra=extra)
        case ToolResultBlock():
            content = b.content
            saved = s.get("parts")
            if not isinstance(content, str) and isinstance(saved, list | tuple) and len(
                    saved) == len(content):
                content = tuple(
                    _with_stash(p, ps) if isinstance(ps, Mapping) else p  # type: ignore[misc]
                    for p, ps in zip(content, saved, strict=True))
            return ToolResultBlock(tool_use_id=b.tool_use_id, content=content,
                                   is_error=b.is_error, extra=extra)
    return b


def _openai_name(extra: Mapping[str, Any]) -> str | None:
    """The OpenAI ``name`` field, which LangChain carries as the message's ``name``."""
    openai = extra.get("openai")
    fields = openai.get("fields") if isinstance(openai, Mapping) else None
    name = fields.get("name") if isinstance(fields, Mapping) else None
    return name if isinstance(name, str) else None


def _fields_in(lc: BaseMessage, lang: dict[str, Any]) -> None:
    fields: dict[str, Any] = lang.pop("fields", {})
    kwargs = {k: v for k, v in lc.additional_kwargs.items() if k != _STASH}
    if kwargs:
        fields["additional_kwargs"] = kwargs
    for name, info in type(lc).model_fields.items():
        if name not in _NATIVE:
            value = getattr(lc, name)
            if value != info.get_default(call_default_factory=True):
                fields[name] = value
    if fields:
        lang["fields"] = fields
    if lc.id is None:
        lang["id"] = None


# ------------------------------------------------------------------------ LangChain out


def to_langchain(messages: Sequence[Message]) -> list[BaseMessage]:
    """Write neutral messages as LangChain messages (see the module docstring).

    Raises:
        InvalidMessageError: a message LangChain has no form for (tool calls on a
            user message), or whose recorded LangChain class is unknown here.
    """
    out: list[BaseMessage] = []
    for m in messages:
        results = [b for b in m.content if isinstance(b, ToolResultBlock)]
        if results and not (len(m.content) == 1 and m.role == "tool"):
            out.extend(_group_out(m))
        else:
            out.append(_build(m, _stash(m), has_result=bool(results)))
    return out


def _layout(m: Message) -> tuple[list[ContentBlock], list[ToolUseBlock], list[OpaqueBlock]]:
    """Content, tool calls and invalid tool calls, as LangChain holds them apart."""
    lang: Mapping[str, Any] = m.extra.get(_FORMAT, {})
    blocks = list(m.content)
    invalid = _trailing_invalid(blocks, int(lang.get("invalid_tool_calls", 0)))
    rest = blocks[:len(blocks) - len(invalid)]
    body: list[ContentBlock] = [b for b in rest if not isinstance(b, ToolUseBlock)]
    return body, [b for b in rest if isinstance(b, ToolUseBlock)], invalid


def _stash(m: Message) -> dict[str, Any]:
    """What only ``additional_kwargs["ctxmgr"]`` can carry back to ``from_langchain``."""
    stash: dict[str, Any] = {}
    if m.metadata:
        stash["metadata"] = thaw(m.metadata)
    others = {k: thaw(v) for k, v in m.extra.items() if k != _FORMAT}
    if others:
        stash["extra"] = others
    blocks = [_block_stash(b) for b in m.content]
    if any(blocks):
        stash["blocks"] = blocks
    if not any(isinstance(b, ToolResultBlock) for b in m.content):
        body, calls, invalid = _layout(m)
        if not body and m.extra.get(_FORMAT, {}).get("content") != "list":
            stash["no_text"] = True
        if list(m.content) != [*body, *calls, *invalid]:
            stash["tool_use_at"] = [k for k, b in enumerate(m.content)
                                    if isinstance(b, ToolUseBlock)]
    return stash


def _block_stash(b: ContentBlock) -> dict[str, Any] | None:
    if isinstance(b, OpaqueBlock):
        return None
    s: dict[str, Any] = {}
    others = {k: thaw(v) for k, v in b.extra.items() if k != _FORMAT}
    if others:
        s["extra"] = others
    if isinstance(b, ToolUseBlock) and b.raw_input is not None and b.raw_input != json.dumps(
            thaw(b.input), ensure_ascii=False):
        s["raw"] = b.raw_input
    if isinstance(b, ToolResultBlock) and not isinstance(b.content, str):
        parts = [_block_stash(p) for p in b.content]
        if any(parts):
            s["parts"] = parts
    if not s:
        return None
    s["type"] = b.type
    return s


def _build(m: Message, stash: Mapping[str, Any], *, has_result: bool,
           message_id: str | None = None) -> BaseMessage:
    lang: Mapping[str, Any] = m.extra.get(_FORMAT, {})
    cls = _class_for(m.role, has_result=has_result)
    if "class" in lang:
        found = getattr(lc_messages, str(lang["class"]), None)
        if not (isinstance(found, type) and issubclass(found, BaseMessage)):
            raise InvalidMessageError(
                f"message {m.id!r}: unknown LangChain class {lang['class']!r}")
        cls = found
    fields: dict[str, Any] = thaw(lang.get("fields", {}))
    kwargs: dict[str, Any] = dict(fields.pop("additional_kwargs", {}))
    if stash:
        kwargs[_STASH] = thaw(stash)
    args: dict[str, Any] = {"additional_kwargs": kwargs, **fields}
    if "name" not in args and _openai_name(m.extra) is not None:
        args["name"] = _openai_name(m.extra)
    args["id"] = message_id or (None if "id" in lang and lang["id"] is None else m.id)
    if issubclass(cls, ChatMessage):
        args["role"] = lang.get("chat_role", m.role)
    if has_result:
        [r] = m.content
        assert isinstance(r, ToolResultBlock)
        args.update(content=r.content if isinstance(r.content, str) else [
            _part_out(p) for p in r.content], tool_call_id=r.tool_use_id,
            status="error" if r.is_error else "success")
        return cls(**args)
    body, calls, invalid = _layout(m)
    if lang.get("content") == "list" or not _written_as_str(body):
        args["content"] = [_part_out(b) for b in body]
    else:
        args["content"] = body[0].text if body else ""  # type: ignore[union-attr]
    if calls or invalid:
        if not issubclass(cls, AIMessage):
            raise InvalidMessageError(
                f"message {m.id!r}: tool calls on a {m.role} message have no LangChain form")
        args["tool_calls"] = [{"name": b.name, "args": thaw(b.input),
                               "id": None if b.extra.get(_FORMAT, {}).get("no_id") else b.id,
                               "type": "tool_call"} for b in calls]
        args["invalid_tool_calls"] = [thaw(b.data) for b in invalid]
    return cls(**args)


def _trailing_invalid(blocks: Sequence[ContentBlock], n: int) -> list[OpaqueBlock]:
    """The last ``n`` blocks when they are the invalid tool calls ``from_langchain`` put there."""
    tail = list(blocks[len(blocks) - n:]) if 0 < n <= len(blocks) else []
    if all(isinstance(b, OpaqueBlock) and b.data.get("type") == _INVALID for b in tail):
        return tail  # type: ignore[return-value]
    return []


def _part_out(b: ContentBlock) -> str | dict[str, Any]:
    if isinstance(b, TextBlock):
        lang = thaw(b.extra.get(_FORMAT, {}))
        if lang.pop("bare", False):
            return b.text
        return {"type": "text", "text": b.text, **lang}
    if isinstance(b, OpaqueBlock):
        return thaw(b.data)
    raise InvalidMessageError(f"a {b.type} block cannot be LangChain message content")


def _group_out(m: Message) -> list[BaseMessage]:
    """A neutral message holding tool results (and maybe more): one LangChain message per
    result plus one for the rest, joined back by ``from_langchain``."""
    results = [k for k, b in enumerate(m.content) if isinstance(b, ToolResultBlock)]
    rest = [k for k, b in enumerate(m.content) if not isinstance(b, ToolResultBlock)]
    pieces = [[k] for k in results] + ([rest] if rest else [])
    order = [k for piece in pieces for k in piece]
    parts = m.extra.get(_FORMAT, {}).get("parts")
    head = _stash(m)
    head["role"] = m.role
    if order != sorted(order):
        head["order"] = order
    out: list[BaseMessage] = []
    for k, piece in enumerate(pieces):
        part_lang = parts[k] if isinstance(parts, tuple) and k < len(parts) else {}
        is_result = k < len(results)
        one = Message(role="tool" if is_result else m.role,
                      content=tuple(m.content[i] for i in piece), id=m.id,
                      extra={_FORMAT: part_lang} if part_lang else {})
        stash = {**(head if k == 0 else {}), "group": [m.id, k, len(pieces)]}
        if not is_result:
            stash.update({key: v for key, v in _stash(one).items()
                          if key in ("no_text", "tool_use_at")})
        out.append(_build(one, stash, has_result=is_result,
                          message_id=m.id if k == 0 else f"{m.id}#{k}"))
    return out


def model_info(model: Any) -> ModelInfo:
    """What a LangChain chat model says of itself: its input window (``profile``'s
    ``max_input_tokens``) and its name (which picks the tokenizer); ``None`` for what it
    does not say. A model wrapped by ``bind_tools`` is read through the binding."""
    bound = getattr(model, "bound", None)
    if bound is not None and not isinstance(model, BaseChatModel):
        model = bound
    profile = getattr(model, "profile", None)
    window = profile.get("max_input_tokens") if isinstance(profile, Mapping) else None
    name = next((value for value in (getattr(model, attr, None)
                                     for attr in ("model_name", "model", "model_id"))
                 if isinstance(value, str) and value), None)
    return ModelInfo(window=window, name=name)
