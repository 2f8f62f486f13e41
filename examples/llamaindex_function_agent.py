"""A LlamaIndex FunctionAgent that stays inside its context window for a whole long run.

Offline: the model is a scripted MockFunctionCallingLLM that answers as a real coding
agent did (the bundled SWE-bench run, 116 model calls in ONE agent run), and the tools
return the outputs recorded then. Everything else is the real LlamaIndex agent.

    python examples/llamaindex_function_agent.py [--max-tokens 16000]
"""

from __future__ import annotations

import argparse
import asyncio

from llama_index.core.workflow import Context

from ctxmgr import CompressionEvent, InMemoryStore
from ctxmgr_llamaindex import ContextFunctionAgent, ContextMemory, from_llamaindex
from ctxmgr_llamaindex.testing import RecordedRun


async def main(max_tokens: int) -> None:
    recorded = RecordedRun.bundled_messages()  # a real run; or your own, from_openai(...)
    run = RecordedRun.from_messages(recorded)  # task, answers, tools

    events: list[CompressionEvent] = []
    memory = ContextMemory.from_defaults(max_tokens=max_tokens, store=InMemoryStore(),
                                         on_event=events.append)
    sizes: list[int] = []
    llm = run.llm(on_call=lambda prompt, tools: sizes.append(
        memory.counter.count_messages(from_llamaindex(prompt))))
    agent = ContextFunctionAgent(tools=[*run.tools(), *memory.as_tools()], llm=llm,
                                 system_prompt=run.system_prompt)

    ctx = Context(agent)
    answer = await agent.run(user_msg=run.user_message(), memory=memory, ctx=ctx,
                             max_iterations=500)
    live: ContextMemory = await ctx.store.get("memory")  # the memory the run used

    print(f"{len(sizes)} model calls in one run; largest prompt {max(sizes):,} tokens "
          f"(budget {live.config.budget_tokens:,} of a {max_tokens:,}-token window)")
    print(f"the run ended with: {answer}")
    offloads = [e.offload_id for e in events if e.status == "applied" and e.offload_id]
    print(f"{len(offloads)} compressed ranges, each reloadable word for word:")
    reload = next(t for t in live.as_tools() if t.metadata.name == "context_reload")
    first = str(reload.call(uuid=offloads[0]))
    print("  " + first.splitlines()[0])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tokens", type=int, default=16_000)
    asyncio.run(main(parser.parse_args().max_tokens))
