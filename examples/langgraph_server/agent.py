"""A ``create_agent`` graph with ctxmgr, served by the LangGraph server. Runs offline.

    cd examples/langgraph_server
    langgraph dev --no-browser --port 2024     # pip install "langgraph-cli[inmem]"

``langgraph.json`` names the graph (``agent``). The model is scripted (it answers at
once, no network): put your chat model in its place and its context window in
``MODEL_WINDOW``. What a user asks it:

* ``read the build log, 20 parts``: it calls ``read_log`` for parts 1 to 20 (about 1,300
  tokens each), then answers. ctxmgr compresses the older parts as the window fills;
  their originals go to the server's own store, under ``("ctxmgr", project, "offload",
  thread_id)``. With ``keep notes`` in the request (and the memo tool switched on,
  ``CTXMGR_MEMO=true``), it also writes a memo ``part-N`` every fifth part.
* ``reload``: it passes the first offload id in its prompt to ``context_reload``.
* ``search WORD``: it calls ``context_search`` for ``WORD``.

After a reload or a search it answers with what the tool returned. Every answer
reports the prompt's size in ``usage_metadata``, as a provider does.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt import ToolRuntime

from ctxmgr import AutoContextConfig, default_counter
from ctxmgr_langgraph import ContextMiddleware

MODEL_WINDOW = int(os.environ.get("MODEL_WINDOW", "8000"))
"""The model's context window, in tokens (your model's, in place of the scripted one)."""

PROJECT = "build-log-agent"
"""Where this app's offloads and memos go in the store: ``("ctxmgr", PROJECT, ...)``."""
SYSTEM_PROMPT = "You read build logs and answer questions about them."
_OFFLOAD_TAG = re.compile(r"CONTEXT_OFFLOAD: uuid=([0-9a-f]+)")
_PARTS = re.compile(r"(\d+) parts")
_PART = re.compile(r"^build log part (\d+)")


def read_log(part: int, runtime: ToolRuntime) -> str:
    """Read one part of the build log (about 1,300 tokens)."""
    thread = str(runtime.config.get("configurable", {}).get("thread_id", "-"))
    lines = [f"build log part {part} (thread {thread})"]
    for i in range(40):
        digest = hashlib.sha256(f"{thread}/{part}/{i}".encode()).hexdigest()[:12]
        lines.append(f"[{thread}] step {part}.{i}: compiled mod_{part}_{i} in {i * 7 % 90} ms, "
                     f"artifact {digest}, cache miss, 3 warnings")
    return "\n".join(lines)


class ScriptedModel(BaseChatModel):
    """A stand-in for a chat model: it decides its next step from the prompt alone, so
    any number of threads share it, and a thread resumed after a crash goes on where it
    stopped. It reports input tokens as a provider would (ctxmgr calibrates on them)."""

    tools_tokens: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedModel:
        names = tuple(getattr(t, "name", str(t)) for t in tools)
        if names not in _TOOLS_TOKENS:
            _TOOLS_TOKENS[names] = sum(_COUNTER.count_text(str(convert_to_openai_tool(t)))
                                       for t in tools)
        return self.model_copy(update={"tools_tokens": _TOOLS_TOKENS[names]})

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        answer = next_step(messages)
        tokens = self.tools_tokens + sum(_tokens(m) for m in messages)
        answer.usage_metadata = {"input_tokens": tokens, "output_tokens": 20,
                                 "total_tokens": tokens + 20}
        return ChatResult(generations=[ChatGeneration(message=answer)])

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return self._generate(messages, stop, **kwargs)  # answers at once, no I/O


_COUNTER = default_counter()
_TOOLS_TOKENS: dict[tuple[str, ...], int] = {}
_COUNTS: dict[tuple[str | None, int], int] = {}


def _tokens(message: BaseMessage) -> int:
    """A message's tokens, counted once per content (as a provider's tokenizer would)."""
    text = message.content if isinstance(message.content, str) else str(message.content)
    key = (message.id, hash(text))
    if key not in _COUNTS:
        if len(_COUNTS) > 200_000:
            _COUNTS.clear()
        _COUNTS[key] = _COUNTER.count_text(text) + 4
    return _COUNTS[key]


def next_step(prompt: Sequence[BaseMessage]) -> AIMessage:
    """The scripted model's answer to a prompt."""
    last = prompt[-1]
    if isinstance(last, ToolMessage):
        if last.name == "read_log":
            found = _PART.match(str(last.content))
            if found is None:
                return AIMessage(content="I lost track of the build log.")
            done = int(found.group(1))
            if done % 5 == 0 and _keeps_notes(prompt):
                first = str(last.content).splitlines()[1]
                return _call("memo", action="write", key=f"part-{done}",
                             summary=f"build log part {done}", content=first)
            return _next_part(prompt, done)
        if last.name == "memo" and isinstance(prompt[-2], AIMessage):
            key = str(prompt[-2].tool_calls[0]["args"].get("key", "part-0"))
            return _next_part(prompt, int(key.removeprefix("part-")))
        return AIMessage(content=f"{last.name} answered:\n{last.content}")
    request = str(last.content) if isinstance(last, HumanMessage) else ""
    if request.startswith("reload"):
        ids = [i for m in prompt for i in _OFFLOAD_TAG.findall(str(m.content))]
        return _call("context_reload", uuid=ids[0]) if ids else AIMessage(
            content="Nothing was compressed yet.")
    if request.startswith("search "):
        return _call("context_search", query=request.removeprefix("search ").strip())
    return _call("read_log", part=1) if _parts_wanted(prompt) else AIMessage(
        content="Ask me to read the build log.")


def _next_part(prompt: Sequence[BaseMessage], done: int) -> AIMessage:
    wanted = _parts_wanted(prompt)
    if done < wanted:
        return _call("read_log", part=done + 1)
    return AIMessage(content=f"Read all {wanted} parts of the build log.")


def _keeps_notes(prompt: Sequence[BaseMessage]) -> bool:
    """Whether the latest request asked for notes (a memo every fifth part)."""
    request = next((m for m in reversed(prompt) if isinstance(m, HumanMessage)), None)
    return request is not None and "keep notes" in str(request.content)


def _parts_wanted(prompt: Sequence[BaseMessage]) -> int:
    """How many parts the latest request to read the log asked for."""
    for message in reversed(prompt):
        if isinstance(message, HumanMessage):
            found = _PARTS.search(str(message.content))
            if found:
                return int(found.group(1))
    return 0


def _call(name: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args,
                                              "id": f"call_{uuid.uuid4().hex[:24]}",
                                              "type": "tool_call"}])


def build_agent(*, ctxmgr: bool = True, middleware: Sequence[Any] = ()) -> Any:
    """The agent, with ``middleware`` before ContextMiddleware (which goes last);
    ``ctxmgr=False`` gives the same graph without it (benchmarks/bench_server.py)."""
    # project: one name for every worker of the deployment (left out, it is derived from
    # the working directory, and a worker started elsewhere would not find the offloads)
    config = AutoContextConfig(max_tokens=MODEL_WINDOW, project=PROJECT)
    context = [ContextMiddleware(config)] if ctxmgr else []
    return create_agent(ScriptedModel(), [read_log], system_prompt=SYSTEM_PROMPT,
                        middleware=[*middleware, *context])


agent = build_agent()
