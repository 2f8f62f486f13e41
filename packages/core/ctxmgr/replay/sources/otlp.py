"""OpenTelemetry GenAI spans in OTLP JSON: one trajectory per conversation or trace.

The file is what the OTLP/JSON file exporter writes (the Collector's ``file`` exporter,
or ``MessageToJson`` of an ``ExportTraceServiceRequest``): one request per line or one
per file, ``resourceSpans[].scopeSpans[].spans[]``, attributes as ``{"key", "value":
{"stringValue" | "intValue" | ...}}``. Both spellings of the field names (``traceId``,
``trace_id``) and of the ids (hex, base64) are read.

Semantic conventions read (GenAI, development status), as ``open-telemetry/
semantic-conventions`` defines them up to v1.41.0 (read at v1.44.0; from v1.42.0 the GenAI
conventions live in ``semantic-conventions-genai``, which this reader was not checked
against):

* **attributes, v1.37.0 to v1.41.0:** ``gen_ai.system_instructions``,
  ``gen_ai.input.messages`` and ``gen_ai.output.messages`` on the inference span, as
  JSON text (or structured values): messages of ``{"role", "parts": [...]}`` whose parts
  are ``text`` (``content``), ``tool_call`` (``id``, ``name``, ``arguments``) and
  ``tool_call_response`` (``id``, ``response`` or ``result``); other parts are kept as
  they are;
* **events, v1.28.0 to v1.36.0** (deprecated in v1.37.0), as span events:
  ``gen_ai.system.message``, ``gen_ai.user.message``, ``gen_ai.assistant.message``
  (``tool_calls`` in OpenAI's shape), ``gen_ai.tool.message`` (``id`` is the call's) and
  ``gen_ai.choice`` (``message``), each event's body either in one
  ``gen_ai.event.content`` attribute as JSON or as one attribute per body field (the
  conventions define these as log events with a body; instrumentations that trace them
  attach them to the span like this, and that is what is read: an OTLP logs file,
  ``resourceLogs``, is not);
* and the first span events, v1.26.0 and v1.27.0: ``gen_ai.content.prompt`` /
  ``gen_ai.content.completion`` with ``gen_ai.prompt`` / ``gen_ai.completion`` JSON.

A span counts as a model call when it carries input messages in one of these forms and
its ``gen_ai.operation.name``, if it has one, is an inference (``chat``,
``text_completion``, ``generate_content``): an ``invoke_agent`` span may carry the
agent's input and output messages too, and is not a model call.
Spans are grouped by ``gen_ai.conversation.id`` when they have one, else by trace, and
one group's calls are merged into its history by
:func:`~ctxmgr.replay.sources.calls.merge_calls`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Sequence
from typing import Any

from ctxmgr.errors import InvalidMessageError
from ctxmgr.replay.sources.base import Trajectory
from ctxmgr.replay.sources.calls import ModelCall, runs_from_calls

__all__ = ["SEMCONV_VERSIONS", "is_otlp_request", "read_otlp_requests"]

SEMCONV_VERSIONS = ("OpenTelemetry GenAI semantic conventions: the message attributes of "
                    "v1.37.0-v1.41.0, the per-message events of v1.28.0-v1.36.0")
"""The semantic-conventions versions this reader follows (see the module docstring)."""

_INFERENCE = frozenset({"chat", "text_completion", "generate_content"})
_EVENT_ROLES = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
                "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}


def is_otlp_request(data: Any) -> bool:
    """An OTLP trace export: an object with ``resourceSpans`` (or ``resource_spans``)."""
    return isinstance(data, dict) and ("resourceSpans" in data or "resource_spans" in data)


def read_otlp_requests(requests: Sequence[tuple[Any, str]], *, source: str,
                       threads: tuple[str, ...] | None = None,
                       system_prompt: str | None = None) -> list[Trajectory]:
    """One trajectory per conversation (or trace) of the GenAI spans in ``requests``
    (``(request, where)`` pairs), in order of each one's first call.

    Raises:
        InvalidMessageError: a request that is not OTLP JSON, or a span whose messages
            cannot be read (naming where).
    """
    groups: dict[str, list[ModelCall]] = {}
    for request, where in requests:
        if not is_otlp_request(request):
            raise InvalidMessageError(f"{where}: not an OTLP trace export (no resourceSpans)")
        for span in _spans(request, where):
            call = _call(span, where)
            if call is None:
                continue
            attrs = _attributes(span.get("attributes"))
            group = str(attrs.get("gen_ai.conversation.id")
                        or _hex(_get(span, "traceId", "trace_id")))
            if threads is not None and group not in threads:
                continue
            groups.setdefault(group, []).append(call)
    return runs_from_calls(groups, kind="otlp", source=source, system_prompt=system_prompt)


def _hex(trace_id: Any) -> str:
    """A trace id as tracing tools show it (hex), from OTLP/JSON's hex or protobuf JSON's
    base64."""
    text = str(trace_id or "")
    if len(text) == 32 and all(c in "0123456789abcdefABCDEF" for c in text):
        return text.lower()
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return text
    return raw.hex() if len(raw) == 16 else text


def _get(d: dict[str, Any], camel: str, snake: str) -> Any:
    return d.get(camel, d.get(snake))


def _objects(value: Any, where: str, what: str) -> list[dict[str, Any]]:
    """``value`` when it is a list of objects (``None``: none), else one clear error."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise InvalidMessageError(f"{where}: {what} must be a list of objects")
    return value


def _spans(request: dict[str, Any], where: str) -> Iterator[dict[str, Any]]:
    for resource in _objects(_get(request, "resourceSpans", "resource_spans"), where,
                             "resourceSpans"):
        for scope in _objects(_get(resource, "scopeSpans", "scope_spans"), where,
                              "scopeSpans"):
            yield from _objects(scope.get("spans"), where, "spans")


def _value(v: Any) -> Any:
    """An OTLP ``AnyValue`` as Python."""
    if not isinstance(v, dict):
        return v
    for key in ("stringValue", "string_value", "boolValue", "bool_value", "doubleValue",
                "double_value", "bytesValue", "bytes_value"):
        if key in v:
            return v[key]
    for key in ("intValue", "int_value"):
        if key in v:
            return _int(v[key])
    for key in ("arrayValue", "array_value"):
        if key in v:
            return [_value(x) for x in (v[key] or {}).get("values") or ()]
    for key in ("kvlistValue", "kvlist_value"):
        if key in v:
            return _attributes((v[key] or {}).get("values"))
    return None


def _int(value: Any) -> Any:
    """An int64 as OTLP/JSON writes it (a string of digits), or the value as it is."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return value if isinstance(value, str) else 0


def _attributes(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, list):
        return {}
    return {a["key"]: _value(a.get("value")) for a in raw
            if isinstance(a, dict) and isinstance(a.get("key"), str)}


def _json(value: Any, where: str, name: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise InvalidMessageError(f"{where}: {name} is not valid JSON ({exc.msg})") from None


def _call(span: dict[str, Any], where: str) -> ModelCall | None:
    attrs = _attributes(span.get("attributes"))
    operation = attrs.get("gen_ai.operation.name")
    if operation is not None and operation not in _INFERENCE:
        return None
    events = [(str(e.get("name", "")), _attributes(e.get("attributes")))
              for e in _objects(span.get("events"), where, "events")]
    where = f"{where} span {span.get('name', '')!r}"
    prompt: list[dict[str, Any]] | None = None
    answer: list[dict[str, Any]] = []
    if "gen_ai.input.messages" in attrs:
        inputs = _json(attrs["gen_ai.input.messages"], where, "gen_ai.input.messages")
        prompt = [m for raw in _objects(inputs, where, "gen_ai.input.messages")
                  for m in _parts_message(raw)]
        instructions = _json(attrs.get("gen_ai.system_instructions"), where,
                             "gen_ai.system_instructions")
        if instructions:
            prompt.insert(0, {"role": "system", "content": _parts_text(instructions)})
        outputs = _objects(_json(attrs.get("gen_ai.output.messages"), where,
                                 "gen_ai.output.messages"), where, "gen_ai.output.messages")
        if outputs:
            answer = _parts_message(outputs[0])
    elif any(name in _EVENT_ROLES for name, _ in events):
        prompt, answer = _from_events(events, where)
    elif any(name == "gen_ai.content.prompt" for name, _ in events):
        for name, ev in events:
            if name == "gen_ai.content.prompt":
                prompt = [_openai(m) for m in _objects(
                    _json(ev.get("gen_ai.prompt"), where, "gen_ai.prompt"), where,
                    "gen_ai.prompt")]
            elif name == "gen_ai.content.completion":
                done = _objects(_json(ev.get("gen_ai.completion"), where,
                                      "gen_ai.completion"), where, "gen_ai.completion")
                answer = [_openai(m) for m in done[:1]]
    if prompt is None:
        return None
    start = _int(_get(span, "startTimeUnixNano", "start_time_unix_nano") or 0)
    start = start if isinstance(start, int) else 0
    return ModelCall(prompt=tuple(prompt), answer=tuple(answer),
                     order=(start, str(_get(span, "spanId", "span_id") or "")))


def _parts_text(parts: Any) -> str:
    if isinstance(parts, str):
        return parts
    return "\n".join(str(p.get("content", "")) for p in parts
                     if isinstance(p, dict) and p.get("type") == "text")


def _parts_message(raw: Any) -> list[dict[str, Any]]:
    """OpenAI messages for one v1.37+ message (tool responses become tool messages)."""
    if not isinstance(raw, dict):
        return []
    role = str(raw.get("role", "user"))
    content: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for part in raw.get("parts") or ():
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            content.append({"type": "text", "text": str(part.get("content", ""))})
        elif kind == "tool_call":
            calls.append(_tool_call(part.get("id"), part.get("name"), part.get("arguments")))
        elif kind == "tool_call_response":
            response = part.get("response", part.get("result", ""))
            results.append({"role": "tool", "tool_call_id": str(part.get("id", "")).strip(),
                            "content": response if isinstance(response, str)
                            else json.dumps(response, ensure_ascii=False)})
        elif kind != "reasoning":
            content.append(part)
    if results and not content and not calls:
        return results
    text: Any = (content[0]["text"] if len(content) == 1 and content[0].get("type") == "text"
                 else content)
    message: dict[str, Any] = {"role": role if role in ("system", "user", "assistant", "tool")
                               else "user", "content": text}
    if calls:
        message["role"] = "assistant"
        message["tool_calls"] = calls
        if not content:
            message["content"] = None
    return [message, *results]


def _tool_call(id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    args = arguments if isinstance(arguments, str) else json.dumps(
        arguments if arguments is not None else {}, ensure_ascii=False)
    return {"id": str(id or ""), "type": "function",
            "function": {"name": str(name or ""), "arguments": args}}


def _openai(raw: Any) -> dict[str, Any]:
    """An OpenAI-shaped message as recorded in an event body or the v1.26 prompt JSON."""
    if not isinstance(raw, dict):
        return {"role": "user", "content": str(raw)}
    out: dict[str, Any] = {"role": str(raw.get("role", "user"))}
    content = raw.get("content")
    out["content"] = content if isinstance(content, str | list) or content is None else (
        json.dumps(content, ensure_ascii=False))
    calls = raw.get("tool_calls")
    if isinstance(calls, list) and calls:
        out["tool_calls"] = [_tool_call(c.get("id"), (c.get("function") or {}).get("name"),
                                        (c.get("function") or {}).get("arguments"))
                             for c in calls if isinstance(c, dict)]
    if out["role"] == "tool":
        out["tool_call_id"] = str(raw.get("tool_call_id", raw.get("id", "")))
    if out["content"] is None and out["role"] != "assistant":
        out["content"] = ""
    return out


def _body(attrs: dict[str, Any], where: str) -> dict[str, Any]:
    """An event's body: ``gen_ai.event.content`` JSON, or one attribute per field."""
    if "gen_ai.event.content" in attrs:
        body = _json(attrs["gen_ai.event.content"], where, "gen_ai.event.content")
        return body if isinstance(body, dict) else {"content": body}
    body = {k: v for k, v in attrs.items() if not k.startswith("gen_ai.")}
    for key in ("tool_calls", "message"):
        if isinstance(body.get(key), str):
            body[key] = _json(body[key], where, key)
    return body


def _from_events(events: Sequence[tuple[str, dict[str, Any]]], where: str
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    prompt: list[dict[str, Any]] = []
    answer: list[dict[str, Any]] = []
    for name, attrs in events:
        if name in _EVENT_ROLES:
            body = _body(attrs, where)
            prompt.append(_openai({**body, "role": _EVENT_ROLES[name]}))
        elif name == "gen_ai.choice" and not answer:
            body = _body(attrs, where)
            message = body.get("message")
            answer = [_openai({**(message if isinstance(message, dict) else {}),
                               "role": "assistant"})]
    return prompt, answer
