"""LlamaIndex memories side by side, in real agents, on the same recorded runs.

Each recorded run is replayed through a real LlamaIndex agent whose model is a
scripted ``MockFunctionCallingLLM`` (it answers as the recorded assistant did; the
tools return the recorded outputs), once per memory:

* ``ContextMemory`` in a ``ContextFunctionAgent`` (ctxmgr: memory and scratchpad
  compressed before every call);
* LlamaIndex ``Memory.from_defaults(token_limit=window)`` in a ``FunctionAgent``;
* LlamaIndex ``ChatSummaryMemoryBuffer.from_defaults(token_limit=window)`` in a
  ``FunctionAgent``, summarising with a fake LLM that answers a fixed summary.

A SWE run is one ``run()`` (every tool step inside it); a tau-bench conversation is
one ``run()`` per user turn on the same ``Context``. For every model call the
script counts what the model was sent (ctxmgr's tiktoken counter, tool calls and
tool schemas included) and reports, per memory:

* ``prompt tokens``: summed over the calls, and the largest prompt;
* ``over window``: calls whose prompt exceeds the model's window (a provider refuses
  them);
* ``pairing``: tool-pairing violations in the prompts (OpenAI rules);
* ``lost``: recorded messages that, at some call after they were sent, were neither in
  the prompt (every text, tool call and result verbatim) nor reloadable through an
  offload id the prompt shows;
* ``stopped``: runs that ended with ``ContextOverflowError`` (ctxmgr raises it when
  what must stay verbatim, the system prompt, tool schemas, the task and the working
  set, no longer fits; the other memories send the prompt over the window instead).

    python benchmarks/bench_llamaindex.py [--swe-window 16000] [--tau-window 4000 6000]
        [--limit N] [--markdown benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from llama_index.core.memory import ChatSummaryMemoryBuffer, Memory
from llama_index.core.workflow import Context

from ctxmgr import (
    ContextOverflowError,
    InMemoryStore,
    Message,
    TokenCounter,
    default_counter,
    validate_pairing,
)
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr.replay.report import replace_markdown_section
from ctxmgr.replay.trajectories import Trajectory, load_trajectories
from ctxmgr.session import OverheadCounter
from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory, from_llamaindex
from ctxmgr_llamaindex.demo import Piece, message_pieces, message_text
from ctxmgr_llamaindex.testing import RecordedRun, ScriptedLLM

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
MARK = "bench_llamaindex"
MEMORIES = ("ContextMemory", "Memory", "ChatSummaryMemoryBuffer")
SUMMARY = "Summary of the conversation so far: the user asked for help and tools ran."



class FixedSummaryLLM(CustomLLM):
    """The summarizer of ChatSummaryMemoryBuffer: a fixed summary, no model."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=1_000_000, num_output=256, is_chat_model=True)

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=SUMMARY))

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any
                 ) -> CompletionResponse:
        return CompletionResponse(text=SUMMARY)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any
                        ) -> CompletionResponseGen:
        yield CompletionResponse(text=SUMMARY, delta=SUMMARY)


@dataclass
class Tally:
    calls: int = 0
    prompt_tokens: int = 0
    peak: int = 0
    over_window: int = 0
    pairing: int = 0
    lost: set[str] = field(default_factory=set)
    stopped: int = 0
    seconds: float = 0.0

    def add(self, other: Tally) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.peak = max(self.peak, other.peak)
        self.over_window += other.over_window
        self.pairing += other.pairing
        self.lost |= other.lost
        self.stopped += other.stopped
        self.seconds += other.seconds


class Counter:
    """Token counts of LlamaIndex messages, cached on the message object (the agents hand
    the same scratchpad objects over on every call)."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._cache: dict[int, tuple[ChatMessage, Message, int]] = {}

    def neutral(self, prompt: Sequence[ChatMessage]) -> tuple[list[Message], int]:
        out: list[Message] = []
        tokens = self.counter.per_request
        missing = [m for m in prompt if not self._hit(m)]
        converted = iter(from_llamaindex(missing)) if missing else iter(())
        for chat in prompt:
            hit = self._cache.get(id(chat))
            if hit is None or hit[0] is not chat:
                m = next(converted)
                hit = (chat, m, self.counter.count(m))
                self._cache[id(chat)] = hit
            out.append(hit[1])
            tokens += hit[2]
        return out, tokens

    def _hit(self, chat: ChatMessage) -> bool:
        hit = self._cache.get(id(chat))
        return hit is not None and hit[0] is chat


def replay(trajectory: Trajectory, memory_name: str, window: int, counter: TokenCounter
           ) -> Tally:
    """One recorded run through one memory; every model call measured."""
    rec = RecordedRun.from_messages(trajectory.messages)
    tally = Tally()
    counts = Counter(counter)
    schemas = OverheadCounter(counter)  # every memory's prompt counted with the same tools
    assistants = [i for i, m in enumerate(trajectory.messages) if m.role == "assistant"]
    recorded = [(m.id, message_pieces(m)) for m in trajectory.messages]
    memory: Any
    if memory_name == "ContextMemory":
        memory = ContextMemory.from_defaults(max_tokens=window, store=InMemoryStore(),
                                             counter=counter, session_id=trajectory.id[-60:])
    elif memory_name == "Memory":
        memory = Memory.from_defaults(token_limit=window,
                                      tokenizer_fn=lambda t: range(counter.count_text(t)))
    else:
        memory = ChatSummaryMemoryBuffer.from_defaults(
            llm=FixedSummaryLLM(), token_limit=window,
            tokenizer_fn=lambda t: range(counter.count_text(t)))
    live: list[Any] = [memory]
    llm: ScriptedLLM

    def on_call(prompt: list[ChatMessage], tools: Sequence[Any]) -> None:
        sent, tokens = counts.neutral(prompt)
        tokens += schemas.total(tools=[t.metadata.to_openai_tool() for t in tools])
        tally.calls += 1
        tally.prompt_tokens += tokens
        tally.peak = max(tally.peak, tokens)
        tally.over_window += tokens > window
        tally.pairing += len(validate_pairing(sent))
        available: set[Piece] = set().union(*(message_pieces(m) for m in sent))
        if isinstance(live[0], ContextMemory):
            available |= reachable(live[0], sent)
        end = assistants[llm.answered] if llm.answered < len(assistants) else len(recorded)
        for mid, mine in recorded[:end]:
            if mine - available:
                tally.lost.add(mid)

    llm = ScriptedLLM(on_call=on_call)
    agent_cls: Callable[..., Any] = (ContextFunctionAgent if memory_name == "ContextMemory"
                                     else FunctionAgent)
    agent = agent_cls(tools=rec.tools(), llm=llm, system_prompt=rec.system_prompt)

    async def turns() -> None:
        ctx = Context(agent)
        for k in range(len(rec.turns)):
            llm.load(rec.answer_messages(k))
            await agent.run(user_msg=rec.user_message(k), memory=memory, ctx=ctx,
                            max_iterations=len(assistants) + 10)
            live[0] = await ctx.store.get("memory")

    start = time.perf_counter()
    try:
        asyncio.run(turns())
    except ContextOverflowError:
        tally.stopped += 1
    tally.seconds = time.perf_counter() - start
    return tally


def reachable(memory: ContextMemory, prompt: Sequence[Message]) -> set[Piece]:
    """Every piece of the originals behind the prompt's offload ids, nested ones opened."""
    out: set[Piece] = set()
    todo = [oid for m in prompt for oid in find_offload_ids(message_text(m))]
    seen: set[str] = set()
    while todo:
        oid = todo.pop()
        if oid in seen:
            continue
        seen.add(oid)
        for m in memory.processor.reload(oid):
            out |= message_pieces(m)
            todo.extend(find_offload_ids(message_text(m)))
    return out


def table(title: str, runs: int, tallies: dict[str, Tally], window: int) -> str:
    messages = {name: t for name, t in tallies.items()}
    lines = [f"**{title}: {runs} runs, {messages['ContextMemory'].calls:,} model calls, "
             f"window {window:,} tokens**", "",
             "| memory (agent) | calls | prompt tokens | vs Memory | peak | over window "
             "| pairing | lost messages | stopped | s |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    base = tallies["Memory"].prompt_tokens or 1
    agents = {"ContextMemory": "ContextFunctionAgent", "Memory": "FunctionAgent",
              "ChatSummaryMemoryBuffer": "FunctionAgent"}
    for name, t in tallies.items():
        lines.append(f"| {name} ({agents[name]}) | {t.calls:,} | {t.prompt_tokens:,} | "
                     f"{t.prompt_tokens / base:.2f} | {t.peak:,} | {t.over_window:,} | "
                     f"{t.pairing:,} | {len(t.lost):,} | {t.stopped} | {t.seconds:.0f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[DATA],
                        help="trajectory files or folders (default benchmarks/data)")
    parser.add_argument("--swe-window", type=int, nargs="+", default=[16_000])
    parser.add_argument("--tau-window", type=int, nargs="+", default=[4_000, 6_000])
    parser.add_argument("--limit", type=int, default=None,
                        help="at most this many runs of each kind")
    parser.add_argument("--markdown", type=Path, metavar="FILE",
                        help="write the tables into FILE between <!-- bench_llamaindex --> "
                             "markers")
    args = parser.parse_args(argv)
    missing = [p for p in args.paths if not p.exists()]
    if missing:
        print(f"error: {missing[0]} does not exist", file=sys.stderr)
        return 2
    counter = default_counter()
    runs = load_trajectories(args.paths)
    swe = [t for t in runs if not t.id.startswith("tau")]
    tau = [t for t in runs if t.id.startswith("tau")]
    groups = [*(("SWE-bench, one run() each", swe, w) for w in args.swe_window),
              *(("tau-bench, one run() per user turn", tau, w) for w in args.tau_window)]
    sections = []
    for title, chosen, window in groups:
        chosen = chosen[:args.limit] if args.limit else chosen
        if not chosen:
            continue
        tallies = {name: Tally() for name in MEMORIES}
        for k, trajectory in enumerate(chosen, 1):
            for name in MEMORIES:
                tallies[name].add(replay(trajectory, name, window, counter))
            print(f"  {title}: {k}/{len(chosen)} {trajectory.id}", file=sys.stderr)
        sections.append(table(title, len(chosen), tallies, window))
    body = "\n\n".join(sections)
    print(body)
    if args.markdown:
        intro = ("## LlamaIndex memories in real agents\n\nProduced by `python benchmarks/"
                 "bench_llamaindex.py --markdown benchmarks/RESULTS.md` (token counter "
                 f"`{counter!r}`); what each column means is in the script's docstring. "
                 "`vs Memory` is prompt tokens relative to LlamaIndex `Memory`.\n\n")
        replace_markdown_section(args.markdown, MARK, intro + body)
        print(f"wrote {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
