"""LlamaIndex ``ChatMessage`` <-> ctxmgr's neutral messages.

What the model sees survives both ways: roles (``developer`` included), text,
images, tool calls as ``ToolCallBlock`` (id, name, and the provider's exact
argument text when it differs from plain JSON, as LlamaIndex allows a string
there), and tool results as ``role="tool"`` messages with
``additional_kwargs["tool_call_id"]``, as ``FunctionAgent`` writes them. Other
``additional_kwargs`` are OpenAI message fields to LlamaIndex (its OpenAI
integration copies them into the request; ``from_openai_message_dict`` fills
them from one), so they map to and from the neutral form's OpenAI fields; a
tau-bench tool result's ``name`` is one.

A ``ChatMessage`` has no id, no metadata and no field ctxmgr could use for
bookkeeping: LlamaIndex's OpenAI integration merges ``additional_kwargs`` into
each request message, and completion models get them printed into the prompt
(``messages_to_prompt``), so ctxmgr stores nothing there. Instead:

* ids are derived from content, exactly as :func:`ctxmgr.from_openai` derives
  them from a message's OpenAI form, so converting the same history twice gives
  the same ids, and the same conversation gets the same ids whether it arrives
  as OpenAI JSON or as LlamaIndex messages;
* what has no LlamaIndex form (ids of hand-made messages, metadata, OpenAI key
  order, ``null`` versus empty content, an error flag on a tool result, other
  formats' block extras) comes back through ``known=`` /
  :class:`LlamaIndexConverter`: a ``ChatMessage`` equal to the conversion of a
  known neutral message converts back to that very message.

A neutral message holding several tool results becomes one tool message per
result. Opaque blocks other than images and LlamaIndex's own blocks (an OpenAI
audio or file part, an Anthropic document) have no LlamaIndex form and are
refused with :class:`~ctxmgr.InvalidMessageError`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ctxmgr import Message, OpaqueBlock, TextBlock, ToolResultBlock, ToolUseBlock, to_openai
from ctxmgr.session import ModelInfo
from ctxmgr.session.kit import ContentBlock, InvalidMessageError, Role, StableIds, thaw

try:
    from llama_index.core.base.llms.types import (
        ChatMessage,
        ImageBlock,
        MessageRole,
        ToolCallBlock,
    )
    from llama_index.core.base.llms.types import ContentBlock as LlamaBlock
    from llama_index.core.base.llms.types import TextBlock as LlamaText
    from pydantic import TypeAdapter
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["LlamaIndexConverter", "from_llamaindex", "model_info", "to_llamaindex"]

_FORMAT = "llamaindex"
_ROLE_OUT = {"system": MessageRole.SYSTEM, "user": MessageRole.USER,
             "assistant": MessageRole.ASSISTANT, "tool": MessageRole.TOOL}
_ROLE_IN: dict[MessageRole, Role] = {
    MessageRole.SYSTEM: "system", MessageRole.DEVELOPER: "system", MessageRole.USER: "user",
    MessageRole.ASSISTANT: "assistant", MessageRole.TOOL: "tool",
    MessageRole.FUNCTION: "tool", MessageRole.CHATBOT: "assistant",
    MessageRole.MODEL: "assistant"}
_BLOCKS: TypeAdapter[Any] = TypeAdapter(LlamaBlock)


# ------------------------------------------------------------------------ neutral out


def to_llamaindex(messages: Sequence[Message]) -> list[ChatMessage]:
    """Write neutral messages as LlamaIndex ``ChatMessage`` objects.

    Raises:
        InvalidMessageError: a block LlamaIndex has no form for (see the module docstring).
    """
    return [cm for m in messages for cm in _message_out(m)]


def _message_out(m: Message) -> list[ChatMessage]:
    kwargs = _openai_fields(m)
    results = [b for b in m.content if isinstance(b, ToolResultBlock)]
    if results:
        out = [ChatMessage(role=MessageRole.TOOL, blocks=_result_blocks(r, m.id),
                           additional_kwargs={**kwargs, "tool_call_id": r.tool_use_id})
               for r in results]
        rest = [b for b in m.content if not isinstance(b, ToolResultBlock)]
        if rest:
            out.append(ChatMessage(role=MessageRole.USER, blocks=_blocks_out(rest, m.id)))
        return out
    role = _ROLE_OUT[m.role]
    lang = m.extra.get(_FORMAT, {})
    if "role" in lang:
        role = MessageRole(lang["role"])
    elif m.role == "system" and m.extra.get("openai", {}).get("role") == "developer":
        role = MessageRole.DEVELOPER
    legacy = [b for b in m.tool_uses if b.extra.get(_FORMAT, {}).get("legacy")]
    blocks = _blocks_out([b for b in m.content if b not in legacy], m.id)
    return [ChatMessage(role=role, blocks=blocks, additional_kwargs=kwargs)]


def _openai_fields(m: Message) -> dict[str, Any]:
    openai = m.extra.get("openai")
    fields = openai.get("fields") if isinstance(openai, Mapping) else None
    return thaw(fields) if isinstance(fields, Mapping) else {}


def _result_blocks(r: ToolResultBlock, message_id: str) -> list[Any]:
    if isinstance(r.content, str):
        return [LlamaText(text=r.content)]
    return _blocks_out(r.content, message_id)


def _blocks_out(blocks: Sequence[ContentBlock], message_id: str) -> list[Any]:
    out: list[Any] = []
    for b in blocks:
        match b:
            case TextBlock():
                out.append(LlamaText(text=b.text))
            case ToolUseBlock():
                no_id = b.extra.get(_FORMAT, {}).get("no_id")
                out.append(ToolCallBlock(tool_call_id=None if no_id else b.id,
                                         tool_name=b.name, tool_kwargs=_arguments_out(b)))
            case OpaqueBlock():
                out.append(_opaque_out(b, message_id))
            case ToolResultBlock():
                out.extend(_result_blocks(b, message_id))
    return out


def _arguments_out(b: ToolUseBlock) -> dict[str, Any] | str:
    """The arguments as a dict, or as the provider's text when that differs from plain
    JSON (a different spacing, escaped unicode), so they are sent and counted as recorded."""
    args = thaw(b.input)
    raw = b.raw_input
    if b.extra.get(_FORMAT, {}).get("text") and raw is not None:
        return raw
    if raw is None or raw == json.dumps(args, ensure_ascii=False):
        return args
    try:
        parsed = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return args
    return raw if parsed == args else args


def _opaque_out(b: OpaqueBlock, message_id: str) -> Any:
    data = thaw(b.data)
    if "block_type" in data:  # a LlamaIndex block read by from_llamaindex
        return _BLOCKS.validate_python(data)
    kind = data.get("type")
    if kind == "image_url" and isinstance(data.get("image_url"), Mapping):
        image = data["image_url"]
        return ImageBlock(url=image.get("url"), detail=image.get("detail"))
    source = data.get("source")
    if kind == "image" and isinstance(source, Mapping):  # Anthropic
        if source.get("type") == "base64":
            return ImageBlock(image=str(source.get("data", "")).encode(),
                              image_mimetype=source.get("media_type"))
        if source.get("type") == "url":
            return ImageBlock(url=source.get("url"))
    raise InvalidMessageError(f"message {message_id!r}: a {kind!r} block has no LlamaIndex "
                              "form (text, images and tool calls do)")


# ------------------------------------------------------------------------- neutral in


def from_llamaindex(messages: Sequence[ChatMessage], *, known: Iterable[Message] = ()
                    ) -> list[Message]:
    """Read LlamaIndex ``ChatMessage`` objects.

    Args:
        messages: the messages, in order.
        known: neutral messages these may have been converted from; a message equal
            to the conversion of one of them comes back as that message (id,
            metadata and all). Others get ids derived from their content.

    Raises:
        InvalidMessageError: naming the index of an item that is not a ``ChatMessage``.
    """
    return LlamaIndexConverter(known).from_llamaindex(messages)


class LlamaIndexConverter:
    """Both directions, remembering the neutral originals it converted (or was given), so
    a ``ChatMessage`` LlamaIndex hands back unchanged, even rebuilt from its chat store,
    converts back to the very message it came from; one it converted before (a summary
    the memory wrote) converts to the same object again.

    Example::

        converter = LlamaIndexConverter()
        memory.put_messages(converter.to_llamaindex(new_messages))
        prompt = converter.from_llamaindex(memory.get())
    """

    def __init__(self, known: Iterable[Message] = ()) -> None:
        self._originals: dict[tuple[Any, ...], list[Message]] = defaultdict(list)
        self.remember(known)

    def remember(self, messages: Iterable[Message]) -> None:
        """Know these neutral messages from now on."""
        for m in messages:
            self._remember(m, _message_out(m))

    def _remember(self, m: Message, converted: Sequence[ChatMessage]) -> None:
        if len(converted) == 1:  # a message split in several has no one form to match
            bucket = self._originals[_key(converted[0])]
            if all(o is not m for o in bucket):
                bucket.append(m)

    def reset(self) -> None:
        """Forget every original."""
        self._originals.clear()

    def to_llamaindex(self, messages: Sequence[Message]) -> list[ChatMessage]:
        """Like :func:`to_llamaindex`, remembering the originals."""
        out: list[ChatMessage] = []
        for m in messages:
            converted = _message_out(m)
            self._remember(m, converted)
            out.extend(converted)
        return out

    def from_llamaindex(self, messages: Sequence[ChatMessage]) -> list[Message]:
        """Like :func:`from_llamaindex`, with every remembered message as ``known``."""
        if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
            raise InvalidMessageError(
                f"expected a list of LlamaIndex ChatMessages, got {type(messages).__name__}")
        ids = StableIds("oa_")
        seen: dict[tuple[Any, ...], int] = defaultdict(int)
        out: list[Message] = []
        for i, cm in enumerate(messages):
            if not isinstance(cm, ChatMessage):
                raise InvalidMessageError(
                    f"expected a LlamaIndex ChatMessage, got {type(cm).__name__}", index=i)
            key = _key(cm)
            bucket = self._originals.get(key, [])
            if seen[key] < len(bucket):
                out.append(bucket[seen[key]])
                seen[key] += 1
                continue
            try:
                m = _message_in(cm)
            except InvalidMessageError as exc:
                raise InvalidMessageError(str(exc), index=i) from None
            forms = to_openai([m])
            m = Message(role=m.role, content=m.content, extra=m.extra,
                        id=ids(forms[0] if len(forms) == 1 else {"parts": forms}))
            self._originals[key].append(m)  # seen again, it converts to this same object
            seen[key] += 1
            out.append(m)
        return out


def _key(cm: ChatMessage) -> tuple[Any, ...]:
    """Equal for two ``ChatMessage`` objects exactly when they are equal, and cheap:
    text is hashed as the string it is."""
    blocks: list[Any] = []
    for b in cm.blocks:
        if isinstance(b, LlamaText):
            blocks.append(b.text)
        else:
            blocks.append(json.dumps(b.model_dump(mode="json"), sort_keys=True, default=str))
    kwargs = json.dumps(cm.additional_kwargs, sort_keys=True, default=str) if (
        cm.additional_kwargs) else ""
    return (str(cm.role.value), tuple(blocks), kwargs)


def _message_in(cm: ChatMessage) -> Message:
    role = _ROLE_IN.get(cm.role, "user")
    extra: dict[str, Any] = {}
    if cm.role is MessageRole.DEVELOPER:
        extra["openai"] = {"role": "developer"}
    elif cm.role not in (MessageRole.SYSTEM, MessageRole.USER, MessageRole.ASSISTANT,
                         MessageRole.TOOL):
        extra[_FORMAT] = {"role": cm.role.value}
    kwargs = dict(cm.additional_kwargs)
    content: list[ContentBlock]
    if role == "tool":
        call_id = kwargs.pop("tool_call_id", "")
        parts = [_block_in(b) for b in cm.blocks]
        result: str | tuple[TextBlock | OpaqueBlock, ...]
        if len(parts) == 1 and isinstance(parts[0], TextBlock):
            result = parts[0].text
        else:
            result = tuple(p for p in parts if isinstance(p, TextBlock | OpaqueBlock))
        content = [ToolResultBlock(tool_use_id=str(call_id or ""), content=result)]
    else:
        content = [_block_in(b) for b in cm.blocks]
        content.extend(_legacy_calls(kwargs.get("tool_calls")))
    if kwargs:
        extra.setdefault("openai", {})["fields"] = kwargs
    return Message(role=role, content=tuple(content), extra=extra)


def _block_in(b: Any) -> ContentBlock:
    if isinstance(b, LlamaText):
        return TextBlock(text=b.text)
    if isinstance(b, ToolCallBlock):
        return _tool_use(b.tool_call_id, b.tool_name, b.tool_kwargs)
    if isinstance(b, ImageBlock) and b.url is not None and b.image is None and b.path is None:
        # An image by URL reads as the OpenAI part it is sent as, when that part gives
        # this very block back (LlamaIndex guesses the mimetype from the URL).
        image: dict[str, Any] = {"url": str(b.url)}
        if b.detail is not None:
            image["detail"] = b.detail
        if ImageBlock(url=image["url"], detail=b.detail) == b:
            return OpaqueBlock(data={"type": "image_url", "image_url": image})
    return OpaqueBlock(data=b.model_dump(mode="json"))


def _tool_use(call_id: str | None, name: str, arguments: Any, **marks: Any) -> ToolUseBlock:
    """A tool call; arguments given as text keep that text (it is what the provider sent),
    marked as text where ``to_llamaindex`` would otherwise write a dict."""
    mark: dict[str, Any] = dict(marks)
    if call_id is None:
        mark["no_id"] = True
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            parsed = None
        if not isinstance(parsed, dict) or arguments == json.dumps(parsed, ensure_ascii=False):
            mark["text"] = True
        return ToolUseBlock(id=call_id or "", name=name,
                            input=parsed if isinstance(parsed, dict) else {},
                            raw_input=arguments, extra={_FORMAT: mark} if mark else {})
    return ToolUseBlock(id=call_id or "", name=name,
                        input=arguments if isinstance(arguments, Mapping) else {},
                        extra={_FORMAT: mark} if mark else {})


def _legacy_calls(calls: Any) -> list[ToolUseBlock]:
    """Tool calls older integrations keep in ``additional_kwargs["tool_calls"]`` (OpenAI
    form), read so they are counted and paired; they stay in the kwargs for the way back."""
    out: list[ToolUseBlock] = []
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, Mapping):
            call = call.model_dump() if hasattr(call, "model_dump") else {}
        fn = call.get("function") if isinstance(call.get("function"), Mapping) else {}
        out.append(_tool_use(call.get("id"), str(fn.get("name", "")),
                             fn.get("arguments", ""), legacy=True))
    return out


def model_info(llm: Any) -> ModelInfo:
    """What a LlamaIndex LLM says of itself: its window (``metadata.context_window``) and
    its name (``metadata.model_name``, which picks the tokenizer)."""
    metadata = getattr(llm, "metadata", None)
    return ModelInfo(window=getattr(metadata, "context_window", None),
                     name=getattr(metadata, "model_name", None))
