"""A LlamaIndex chat engine whose memory keeps a long conversation inside the window.

Offline: a scripted model answers; the conversation pastes a long build log every turn.
SimpleChatEngine sends its system prompt and then memory.get() on every turn; with
ContextMemory that stays within budget (what the engine sends beside the memory is
measured at the model, nothing to set by hand), and whatever was compressed comes
back word for word through the offload id shown in its place.

    python examples/llamaindex_chat_engine.py [--max-tokens 4000] [--turns 40]
"""

from __future__ import annotations

import argparse

from llama_index.core.chat_engine import SimpleChatEngine

from ctxmgr import CompressionEvent, InMemoryStore
from ctxmgr_llamaindex import ContextMemory, from_llamaindex
from ctxmgr_llamaindex.testing import ScriptedLLM

SYSTEM = "You are a build engineer. Answer in one short paragraph."


def build_log(turn: int) -> str:
    lines = [f"[{turn:02d}:{n:02d}] compiling module_{n}.c ... ok" for n in range(40)]
    lines.append(f"[{turn:02d}:40] error: undefined reference to 'init_{turn}'")
    return "\n".join(lines)


def main(max_tokens: int, turns: int) -> None:
    answers = [f"The link fails on init_{k}: add its object file to the link line."
               for k in range(turns)]
    events: list[CompressionEvent] = []
    memory = ContextMemory.from_defaults(max_tokens=max_tokens, store=InMemoryStore(),
                                         on_event=events.append)
    sizes: list[int] = []
    llm = ScriptedLLM(answers, on_call=lambda prompt, tools: sizes.append(
        memory.counter.count_messages(from_llamaindex(prompt))))
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory, system_prompt=SYSTEM)

    for k in range(turns):
        engine.chat(f"Build {k} failed, here is the log:\n{build_log(k)}\nWhat is wrong?")
    print(f"{turns} turns; prompt tokens of every 4th turn: {sizes[::4]}")
    print(f"largest prompt {max(sizes):,} tokens, budget {memory.config.budget_tokens:,}")

    history = memory.get_all()
    offloads = [e.offload_id for e in events if e.status == "applied" and e.offload_id]
    print(f"the memory holds {len(history)} messages; {len(offloads)} compressions made")
    originals = memory.reload(offloads[0])
    print(f"offload {offloads[0][:8]} gives back {len(originals)} message(s), the first: "
          f"{originals[0].text.splitlines()[0]!r}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tokens", type=int, default=4000)
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    main(args.max_tokens, args.turns)
