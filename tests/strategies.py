"""Hypothesis strategies shared by every property test.

The main product is :func:`openai_conversations`: *valid, paired* OpenAI chat
histories shaped like the real runs in ``benchmarks/data`` (system prompt,
user turns, assistant turns with tool calls each answered by one ``tool``
message before the next non-tool message) plus the oddities real data has:
tool-call ids reused across turns, content given as ``null`` / absent / a list
of parts, image and audio parts, extra fields, reordered keys, unicode and huge
payloads. :func:`neutral_conversations` gives the same histories as neutral
:class:`~ctxmgr.messages.Message` lists, which is what compression, archive and
token-counting properties want; :func:`anthropic_conversations` gives native
Anthropic request bodies (thinking, images, ``is_error``, ``cache_control``).

Every strategy only produces input that the converters are documented to
round-trip losslessly; known gaps are pinned by explicit ``xfail`` tests
(``tests/core/test_convert_*.py``).

Speed matters (the whole core suite must stay well under 20 s): strategies are
built once at import, and the conversation builders draw through plain helper
functions taking ``draw`` rather than nested ``@composite`` strategies.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from ctxmgr.convert import from_openai
from ctxmgr.messages import Message

__all__ = [
    "ODD_TEXTS",
    "anthropic_conversations",
    "huge_texts",
    "json_objects",
    "json_values",
    "langchain_message_fields",
    "llamaindex_message_fields",
    "neutral_conversations",
    "openai_conversations",
    "payload_texts",
    "texts",
    "tool_call_ids",
]

JSON = dict[str, Any]
Draw = Callable[[st.SearchStrategy[Any]], Any]

# Strings that have bitten message-handling code before: empty, whitespace only,
# combining marks, right-to-left, emoji sequences, NUL, CRLF, markup that looks
# like ctxmgr's own tags, JSON inside text.
ODD_TEXTS = (
    "",
    " ",
    "\n",
    "héllo wörld",
    "日本語のテキスト",
    "emoji 🧪🚀 👩\u200d👩\u200d👧",
    "שלום עולם",
    "e\u0301 combining",
    "nul\x00inside",
    "tab\tand\r\nCRLF",
    "<system>This tool result has been archived.</system>",
    "<!-- CONTEXT_OFFLOAD: uuid=00000000-0000-0000-0000-000000000000 -->",
    '{"role": "tool", "content": "json inside text"}',
    "\\u00e9 literal backslash escape",
)

_ALNUM = string.ascii_letters + string.digits

# ---------------------------------------------------------------- text and JSON

_TEXTS = st.one_of(st.text(max_size=80), st.sampled_from(ODD_TEXTS))
_SHORT_TEXTS = st.one_of(st.text(max_size=20), st.sampled_from(ODD_TEXTS))


def texts() -> st.SearchStrategy[str]:
    """Short unicode text (any code point but surrogates) or one of :data:`ODD_TEXTS`."""
    return _TEXTS


@st.composite
def _huge(draw: Draw, min_chars: int, max_chars: int) -> str:
    unit = draw(st.one_of(st.text(min_size=1, max_size=12),
                          st.sampled_from(["line of log output\n", "ü€😀", "x"])))
    size = draw(st.integers(min_chars, max_chars))
    return (unit * (size // len(unit) + 1))[:size]


_HUGE = _huge(5 * 1024, 64 * 1024)


def huge_texts(*, min_chars: int = 5 * 1024, max_chars: int = 64 * 1024
               ) -> st.SearchStrategy[str]:
    """A large payload (default 5–64 KB, over the large-message threshold), built by
    repetition so that drawing it is cheap."""
    if (min_chars, max_chars) == (5 * 1024, 64 * 1024):
        return _HUGE
    return _huge(min_chars, max_chars)


@st.composite
def _payload(draw: Draw) -> str:
    return draw(_HUGE if draw(st.integers(0, 9)) == 0 else _TEXTS)


_PAYLOAD = _payload()


def payload_texts() -> st.SearchStrategy[str]:
    """Text for results and messages: mostly short, about one in ten 5–64 KB."""
    return _PAYLOAD


_JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    _SHORT_TEXTS,
)
_JSON_VALUES = st.recursive(
    _JSON_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=6,
)
_JSON_OBJECTS = st.dictionaries(st.text(max_size=10), _JSON_VALUES, max_size=3)


def json_values() -> st.SearchStrategy[Any]:
    """Any JSON value (nested lists and objects, unicode keys and strings)."""
    return _JSON_VALUES


def json_objects() -> st.SearchStrategy[JSON]:
    """A JSON object, e.g. tool-call arguments."""
    return _JSON_OBJECTS


_TOOL_CALL_IDS = st.one_of(
    st.text(_ALNUM, min_size=24, max_size=24).map(lambda s: "call_" + s),
    st.text(_ALNUM, min_size=24, max_size=24).map(lambda s: "call_00_" + s),
    st.text(_ALNUM, min_size=22, max_size=22).map(lambda s: "toolu_01" + s),
    st.text(_ALNUM + "-_", min_size=1, max_size=6),
)


def tool_call_ids() -> st.SearchStrategy[str]:
    """Tool-call ids in the shapes providers use (OpenAI, DeepSeek, Anthropic, ad hoc)."""
    return _TOOL_CALL_IDS


_TOOL_NAMES = st.one_of(
    st.sampled_from(["bash", "str_replace_editor", "get_reservation_details",
                     "search_direct_flight", "book_reservation", "think"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,40}", fullmatch=True),
)


def _one_in(draw: Draw, n: int) -> bool:
    return draw(st.integers(0, n - 1)) == 0


# ---------------------------------------------------------------- OpenAI pieces

# How providers format the arguments string; the converter must keep it byte for byte.
_ARGUMENT_STYLES: tuple[dict[str, Any], ...] = (
    {},
    {"separators": (",", ":")},
    {"indent": 2},
    {"ensure_ascii": False},
    {"sort_keys": True},
)
_COMMON_ARGS = st.dictionaries(st.sampled_from(["command", "path", "reservation_id"]),
                               _TEXTS, min_size=1, max_size=2)


def _arguments(draw: Draw) -> str:
    shape = draw(st.integers(0, 3))
    if shape <= 1:  # the common case in recorded runs: one or two string fields
        args = draw(_COMMON_ARGS)
    elif shape == 2:
        args = draw(_JSON_OBJECTS)
    else:
        args = {}
    if not args and draw(st.booleans()):
        return ""  # some providers send an empty string for a no-argument tool
    return json.dumps(args, **draw(st.sampled_from(_ARGUMENT_STYLES)))


def _tool_call(draw: Draw, call_id: str, *, odd: bool) -> JSON:
    call: JSON = {"id": call_id, "type": "function",
                  "function": {"name": draw(_TOOL_NAMES), "arguments": _arguments(draw)}}
    if odd and _one_in(draw, 10):
        call["index"] = draw(st.integers(0, 5))  # streaming artefact some SDKs keep
    return call


_IMAGE_PART = st.builds(
    lambda url, detail: {"type": "image_url", "image_url": {"url": url, "detail": detail}},
    st.sampled_from(["https://example.com/cat.png",
                     "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlE"
                     "QVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="]),
    st.sampled_from(["auto", "low", "high"]),
)
_AUDIO_PART = st.builds(
    lambda data: {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}},
    st.text(string.ascii_letters + "+/=", max_size=40),
)
_FILE_PART = st.builds(lambda fid: {"type": "file", "file": {"file_id": fid}},
                       st.text(_ALNUM, min_size=1, max_size=12))


@st.composite
def _text_part_strategy(draw: Draw) -> JSON:
    part: JSON = {"type": "text", "text": draw(_PAYLOAD)}
    if _one_in(draw, 6):
        part["cache_control"] = {"type": "ephemeral"}
    return part


_TEXT_PART = _text_part_strategy()
_PARTS_WITH_IMAGES = st.lists(st.one_of(_TEXT_PART, _TEXT_PART, _IMAGE_PART), max_size=3)
_PARTS_WITH_MEDIA = st.lists(st.one_of(_TEXT_PART, _TEXT_PART, _IMAGE_PART, _AUDIO_PART,
                                       _FILE_PART), max_size=3)
_TEXT_PARTS = st.lists(_TEXT_PART, max_size=3)

_EXTRA_FIELDS = st.dictionaries(
    st.sampled_from(["name", "refusal", "audio", "annotations", "reasoning_content",
                     "x_vendor_field"]),
    _JSON_VALUES, min_size=1, max_size=2,
)


def _finish(draw: Draw, message: JSON, *, odd: bool) -> JSON:
    """Sometimes add extra fields and reorder the top-level keys."""
    if odd and _one_in(draw, 5):
        for k, v in draw(_EXTRA_FIELDS).items():
            message.setdefault(k, v)
    if odd and _one_in(draw, 5):
        message = {k: message[k] for k in draw(st.permutations(list(message)))}
    return message


def _plain_message(draw: Draw, role: str, *, odd: bool, media: bool = True) -> JSON:
    m: JSON = {"role": role}
    kind = draw(st.integers(0, 9)) if odd else 0
    if kind <= 5:
        m["content"] = draw(_PAYLOAD)
    elif kind <= 7:
        user_parts = _PARTS_WITH_MEDIA if media else _PARTS_WITH_IMAGES
        m["content"] = draw(user_parts if role == "user" else _TEXT_PARTS)
    elif kind == 8:
        m["content"] = None
    # kind 9: no content key at all
    return _finish(draw, m, odd=odd)


def _assistant_calls(draw: Draw, ids: list[str], *, odd: bool) -> JSON:
    m: JSON = {"role": "assistant"}
    style = draw(st.integers(0, 4)) if odd else draw(st.integers(0, 1))
    if style == 0:
        m["content"] = ""  # what most recorded runs have
    elif style == 1:
        m["content"] = draw(_TEXTS)
    elif style == 2:
        m["content"] = None
    elif style == 3:
        m["content"] = draw(_TEXT_PARTS)
    # style 4: no content key at all
    m["tool_calls"] = [_tool_call(draw, i, odd=odd) for i in ids]
    return _finish(draw, m, odd=odd)


def _tool_result(draw: Draw, call_id: str, name: str, *, odd: bool) -> JSON:
    m: JSON = {"role": "tool"}
    m["content"] = draw(_TEXT_PARTS) if odd and _one_in(draw, 6) else draw(_PAYLOAD)
    m["tool_call_id"] = call_id
    if _one_in(draw, 4):
        m["name"] = name  # tau-bench records carry the tool name
    return _finish(draw, m, odd=odd)


@st.composite
def openai_conversations(
    draw: Draw,
    *,
    min_rounds: int = 1,
    max_rounds: int = 3,
    max_steps: int = 3,
    max_calls: int = 3,
    odd: bool = True,
    in_flight: bool | None = False,
    audio_and_files: bool = True,
) -> list[JSON]:
    """A valid, paired OpenAI chat history.

    Args:
        min_rounds / max_rounds: user turns.
        max_steps: assistant tool-call turns per user turn.
        max_calls: tool calls per assistant turn; ids are unique within a turn
            but drawn from a small pool, so later turns reuse earlier ids.
        odd: include null/absent/parts content, image and audio parts, extra
            fields, reordered keys and the ``developer`` role.
        in_flight: ``True`` ends the history with an unanswered tool-call turn
            (the tool is still running); ``None`` lets hypothesis choose.
        audio_and_files: user parts may be audio and file parts too, not only text
            and images (formats without a place for them, like LlamaIndex, say False).
    """
    pool = draw(st.lists(_TOOL_CALL_IDS, min_size=max_calls, max_size=max_calls + 3,
                         unique=True))
    calls_in_turn = st.lists(st.sampled_from(pool), min_size=1, max_size=max_calls, unique=True)
    out: list[JSON] = []
    if not _one_in(draw, 6):
        role = "developer" if odd and _one_in(draw, 8) else "system"
        out.append(_plain_message(draw, role, odd=odd, media=audio_and_files))
    rounds = draw(st.integers(min_rounds, max_rounds))
    for r in range(rounds):
        out.append(_plain_message(draw, "user", odd=odd, media=audio_and_files))
        for _ in range(draw(st.integers(0, max_steps))):
            ids = draw(calls_in_turn)
            call = _assistant_calls(draw, ids, odd=odd)
            out.append(call)
            names = {c["id"]: c["function"]["name"] for c in call["tool_calls"]}
            for call_id in draw(st.permutations(ids)):  # any answer order is valid
                out.append(_tool_result(draw, call_id, names[call_id], odd=odd))
        if r < rounds - 1 or draw(st.booleans()):
            out.append(_plain_message(draw, "assistant", odd=odd, media=audio_and_files))
    if in_flight is None:
        in_flight = draw(st.booleans())
    if in_flight:
        out.append(_assistant_calls(draw, draw(calls_in_turn), odd=odd))
    return out


def neutral_conversations(**kwargs: Any) -> st.SearchStrategy[list[Message]]:
    """:func:`openai_conversations` read through ``from_openai`` (same keyword arguments)."""
    return openai_conversations(**kwargs).map(from_openai)


# ---------------------------------------------------------------- Anthropic bodies

_CACHE = {"type": "ephemeral"}


@st.composite
def _an_text_strategy(draw: Draw) -> JSON:
    # Empty text blocks are rejected by the API and dropped by to_anthropic on purpose.
    block: JSON = {"type": "text", "text": draw(_PAYLOAD.filter(bool))}
    if _one_in(draw, 6):
        block["cache_control"] = _CACHE
    return block


_AN_TEXT = _an_text_strategy()
_AN_IMAGE = st.builds(
    lambda data: {"type": "image",
                  "source": {"type": "base64", "media_type": "image/png", "data": data}},
    st.text(string.ascii_letters + "+/=", min_size=4, max_size=40),
)
_AN_DOCUMENT = st.just({"type": "document",
                        "source": {"type": "text", "media_type": "text/plain", "data": "doc"}})
_AN_THINKING = st.builds(lambda t, s: {"type": "thinking", "thinking": t, "signature": s},
                         _TEXTS, st.text(_ALNUM, min_size=8, max_size=20))
_AN_REDACTED = st.builds(lambda d: {"type": "redacted_thinking", "data": d},
                         st.text(_ALNUM, min_size=8, max_size=20))
_AN_USER_BLOCKS = st.lists(st.one_of(_AN_TEXT, _AN_IMAGE, _AN_DOCUMENT), min_size=1,
                           max_size=3)
_AN_LEAD = st.lists(st.one_of(_AN_THINKING, _AN_REDACTED, _AN_TEXT), max_size=2)
_AN_FINAL = st.lists(st.one_of(_AN_THINKING, _AN_TEXT), min_size=1, max_size=2)


def _an_tool_use(draw: Draw, call_id: str) -> JSON:
    block: JSON = {"type": "tool_use", "id": call_id, "name": draw(_TOOL_NAMES),
                   "input": draw(_JSON_OBJECTS)}
    if _one_in(draw, 6):
        block["cache_control"] = _CACHE
    return block


def _an_tool_result(draw: Draw, call_id: str) -> JSON:
    block: JSON = {"type": "tool_result", "tool_use_id": call_id}
    shape = draw(st.integers(0, 3))
    if shape <= 1:
        block["content"] = draw(_PAYLOAD)
    elif shape == 2:
        block["content"] = draw(st.lists(st.one_of(_AN_TEXT, _AN_IMAGE), max_size=3))
    # shape 3: content omitted (the API allows it)
    flag = draw(st.integers(0, 3))
    if flag == 0:
        block["is_error"] = True
    elif flag == 1:
        block["is_error"] = False
    if _one_in(draw, 6):
        block["cache_control"] = _CACHE
    return block


@st.composite
def anthropic_conversations(draw: Draw, *, max_rounds: int = 3, max_steps: int = 3) -> JSON:
    """A valid Anthropic request body ``{"system"?, "messages"}`` with paired tool blocks.

    Includes thinking / redacted thinking before tool calls, image and document
    blocks, results with ``is_error`` and ``cache_control``, results followed by
    text in the same user turn, string and block-list content, and ids reused
    across turns. Keys are in the order ``to_anthropic`` writes them.
    """
    pool = draw(st.lists(_TOOL_CALL_IDS, min_size=3, max_size=5, unique=True))
    calls_in_turn = st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True)
    body: JSON = {}
    system_kind = draw(st.integers(0, 2))
    if system_kind == 1:
        body["system"] = draw(_TEXTS.filter(bool))
    elif system_kind == 2:
        body["system"] = draw(st.lists(_AN_TEXT, min_size=1, max_size=2))
    messages: list[JSON] = []
    for _ in range(draw(st.integers(1, max_rounds))):
        user = draw(_PAYLOAD) if draw(st.booleans()) else draw(_AN_USER_BLOCKS)
        messages.append({"role": "user", "content": user})
        for _ in range(draw(st.integers(0, max_steps))):
            ids = draw(calls_in_turn)
            messages.append({"role": "assistant",
                             "content": draw(_AN_LEAD) + [_an_tool_use(draw, i) for i in ids]})
            results = [_an_tool_result(draw, i) for i in draw(st.permutations(ids))]
            if _one_in(draw, 4):
                results.append(draw(_AN_TEXT))  # text after the results is allowed
            messages.append({"role": "user", "content": results})
        final = draw(_PAYLOAD) if draw(st.booleans()) else draw(_AN_FINAL)
        messages.append({"role": "assistant", "content": final})
    body["messages"] = messages
    return body


# ---------------------------------------------------------------- LangChain messages, as data

# Keys LangChain (or ctxmgr) reads inside additional_kwargs; random kwargs avoid them.
_RESERVED_KWARGS = frozenset({"ctxmgr", "tool_calls", "function_call", "images"})
_KWARGS = st.dictionaries(st.text(max_size=10).filter(lambda k: k not in _RESERVED_KWARGS),
                          _JSON_VALUES, max_size=2)
_LC_PART = st.one_of(
    _TEXTS,  # a bare string part
    st.builds(lambda t: {"type": "text", "text": t}, _PAYLOAD),
    st.builds(lambda t, i: {"type": "text", "text": t, "id": i}, _TEXTS, _TEXTS),
    _IMAGE_PART,
    st.builds(lambda d: {"type": "x_custom", "data": d}, _JSON_VALUES),
)
_LC_CONTENT = st.one_of(_PAYLOAD, st.lists(_LC_PART, max_size=3))
_LC_TOOL_CALL = st.builds(
    lambda name, args, call_id: {"name": name, "args": args, "id": call_id,
                                 "type": "tool_call"},
    _TOOL_NAMES, _JSON_OBJECTS, st.one_of(_TOOL_CALL_IDS, _TOOL_CALL_IDS, st.none()))
_LC_INVALID_CALL = st.builds(
    lambda name, args, call_id, error: {"name": name, "args": args, "id": call_id,
                                        "error": error, "type": "invalid_tool_call"},
    st.one_of(_TOOL_NAMES, st.none()), st.one_of(st.just('{"a": '), _TEXTS, st.none()),
    st.one_of(_TOOL_CALL_IDS, st.none()), st.one_of(_TEXTS, st.none()))
_USAGE = st.builds(lambda i, o: {"input_tokens": i, "output_tokens": o, "total_tokens": i + o},
                   st.integers(0, 10**6), st.integers(0, 10**6))


@st.composite
def langchain_message_fields(draw: Draw) -> tuple[str, JSON]:
    """``(kind, fields)`` for one LangChain message: kind is ``human``, ``ai``, ``system``,
    ``tool`` or ``chat``; fields are the constructor's keyword arguments as plain data
    (ids present or absent, names, ``additional_kwargs``, ``response_metadata``, tool
    calls with and without ids, invalid tool calls, usage, artifacts, list content).
    Framework-free, so the core's tests never import LangChain."""
    kind = draw(st.sampled_from(["human", "ai", "ai", "system", "tool", "chat"]))
    fields: JSON = {"content": draw(_LC_CONTENT)}
    if draw(st.integers(0, 3)):
        fields["id"] = draw(_TOOL_CALL_IDS)
    if _one_in(draw, 4):
        fields["name"] = draw(_TOOL_NAMES)
    if _one_in(draw, 3):
        fields["additional_kwargs"] = draw(_KWARGS)
    if _one_in(draw, 3):
        fields["response_metadata"] = draw(_JSON_OBJECTS)
    if kind == "ai":
        fields["tool_calls"] = draw(st.lists(_LC_TOOL_CALL, max_size=3))
        if _one_in(draw, 4):
            fields["invalid_tool_calls"] = draw(st.lists(_LC_INVALID_CALL, min_size=1,
                                                         max_size=2))
        if _one_in(draw, 2):
            fields["usage_metadata"] = draw(_USAGE)
    elif kind == "tool":
        fields["tool_call_id"] = draw(_TOOL_CALL_IDS)
        fields["status"] = draw(st.sampled_from(["success", "error"]))
        if _one_in(draw, 3):
            fields["artifact"] = draw(_JSON_VALUES)
    elif kind == "chat":
        fields["role"] = draw(st.sampled_from(["user", "assistant", "critic", "developer"]))
    return kind, fields


# ---------------------------------------------------------------- LlamaIndex messages, as data

_LI_ROLES = ("system", "developer", "user", "assistant", "tool", "chatbot", "model")
_LI_KWARGS = st.dictionaries(
    st.text(max_size=10).filter(lambda k: k not in {"tool_calls", "tool_call_id", "images"}),
    _JSON_VALUES, max_size=2)
_LI_BLOCK = st.one_of(
    st.builds(lambda t: {"block_type": "text", "text": t}, _PAYLOAD),
    st.builds(lambda call_id, name, kwargs: {"block_type": "tool_call", "tool_call_id": call_id,
                                             "tool_name": name, "tool_kwargs": kwargs},
              st.one_of(_TOOL_CALL_IDS, st.none()), _TOOL_NAMES,
              st.one_of(_JSON_OBJECTS, _JSON_OBJECTS.map(json.dumps),
                        st.sampled_from(['{"a":1}', '{"a": ', ""]))),
    st.builds(lambda url, detail: {"block_type": "image", "url": url, "detail": detail},
              st.sampled_from(["https://example.com/cat.png",
                               "https://example.com/a/b.jpg?x=1"]),
              st.sampled_from([None, "low", "high"])),
    st.builds(lambda data: {"block_type": "image", "image": data,
                            "image_mimetype": "image/png"},
              st.sampled_from(["iVBORw0KGgo=", "R0lGODlhAQABAAAAACw="])),
    st.builds(lambda t, sig: {"block_type": "thinking", "content": t,
                              "additional_information": {"signature": sig}},
              _TEXTS, st.text(_ALNUM, min_size=4, max_size=12)),
)


@st.composite
def llamaindex_message_fields(draw: Draw) -> JSON:
    """Keyword arguments of one LlamaIndex ``ChatMessage`` as plain data (role, blocks of
    text, tool calls with dict or text arguments, images by URL or data, thinking, and
    ``additional_kwargs``; a tool message carries a ``tool_call_id``)."""
    role = draw(st.sampled_from(_LI_ROLES))
    kwargs = draw(_LI_KWARGS)
    if role == "tool":
        kwargs["tool_call_id"] = draw(_TOOL_CALL_IDS)
        blocks = draw(st.lists(_LI_BLOCK.filter(lambda b: b["block_type"] in ("text", "image")),
                               max_size=2))
    else:
        blocks = draw(st.lists(_LI_BLOCK, max_size=3))
    return {"role": role, "blocks": blocks, "additional_kwargs": kwargs}
