"""Agents whose in-run scratchpad is compressed too: ContextFunctionAgent, ContextReActAgent.

A ``FunctionAgent`` run keeps its tool calls and results in ``ctx.store["scratchpad"]``
and hands them to the memory only when the run ends, so no memory can bound a
long single run: 200 tool steps in one ``run()`` grow the prompt without limit.
This agent compresses the memory and the scratchpad together before every model
call (:meth:`ContextMemory.aprepare_step`), persists each compression where the
messages live, and sends the model exactly the prompt ctxmgr built. It works
alone and as one agent of an ``AgentWorkflow``.

``ReActAgent`` keeps its run as reasoning steps in ``ctx.store["current_reasoning"]``
and shows them to the model as text (thoughts and actions from the assistant,
observations as user messages). :class:`ContextReActAgent` compresses those
rendered steps with the memory the same way and writes each compressed range
back as one step that renders to its stand-in. Archiving needs tool-call ids,
which a ReAct prompt does not show, so only ``context_reload`` and ``memo``
apply there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxmgr import ConfigError
from ctxmgr_llamaindex.memory import ContextMemory
from ctxmgr_llamaindex.tools import bound_memory

try:
    from llama_index.core.agent.react.types import BaseReasoningStep, ObservationReasoningStep
    from llama_index.core.agent.workflow import FunctionAgent, ReActAgent
    from llama_index.core.agent.workflow.agent_context import AgentContext
    from llama_index.core.agent.workflow.workflow_events import AgentOutput
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.memory import BaseMemory
    from llama_index.core.tools import AsyncBaseTool
    from llama_index.core.workflow import Context
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'ctxmgr_llamaindex needs LlamaIndex: pip install ".[llamaindex]"') from exc

__all__ = ["CompressedObservationStep", "CompressedThoughtStep", "ContextFunctionAgent",
           "ContextReActAgent", "context_memory_of"]


class _AgentRun:
    """Marks the run's memory as prepared step by step (and not by ``get``) while the
    run is in flight: one compression per model call. An agent carrying a memory's tools
    tells that memory at once, so in an ``AgentWorkflow`` the ``aget`` that starts its
    first step serves rather than compresses too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for tool in getattr(self, "tools", None) or ():
            memory = bound_memory(tool)
            if isinstance(memory, ContextMemory):
                memory.register_step_agent(self.name)  # type: ignore[attr-defined]

    async def _init_context(self, ctx: Context, ev: Any) -> None:
        await super()._init_context(ctx, ev)  # type: ignore[misc]
        memory = await ctx.store.get("memory", default=None)
        if isinstance(memory, ContextMemory):
            given = ev.get("memory", default=None)
            if isinstance(given, ContextMemory):
                memory.adopt(given)  # ctx held a copy rebuilt from its dict
            _adopt_from_tools(memory, self)
            memory.start_agent_run()

    async def finalize(self, ctx: Context, output: AgentOutput, memory: BaseMemory
                       ) -> AgentOutput:
        try:
            return await super().finalize(ctx, output, memory)  # type: ignore[misc]
        finally:
            if isinstance(memory, ContextMemory):
                memory.end_agent_run()


def _adopt_from_tools(memory: ContextMemory, agent: Any) -> None:
    """Hand ``memory`` (a copy rebuilt from its dict, if it is one) the parts of the memory
    whose tools ``agent`` carries: that memory is its original."""
    for tool in getattr(agent, "tools", None) or ():
        original = bound_memory(tool)
        if isinstance(original, ContextMemory):
            memory.adopt(original)
            return


async def _workflow_member(ctx: AgentContext, name: str) -> str | None:
    """``name`` when the agent runs as one agent of an ``AgentWorkflow`` (its memos are
    its own: :meth:`ContextMemory.scope`), ``None`` when it runs alone."""
    current = await ctx.store.get("current_agent_name", default=None)
    return name if current is not None else None


def context_memory_of(memory: BaseMemory, agent: Any) -> ContextMemory:
    """``memory`` if it is a :class:`ContextMemory` (with the parts of the original whose
    tools ``agent`` carries, when it is a copy rebuilt from its dict), else a
    ``TypeError`` saying how to pass one (the workflow makes a ``ChatMemoryBuffer`` when
    ``run`` gets no memory)."""
    if isinstance(memory, ContextMemory):
        _adopt_from_tools(memory, agent)
        return memory
    raise TypeError(
        f"{type(agent).__name__} compresses a ContextMemory, but the run's memory is a "
        f"{type(memory).__name__}; pass one: agent.run(..., memory=ContextMemory."
        "from_defaults(max_tokens=...))")


class ContextFunctionAgent(_AgentRun, FunctionAgent):
    """A ``FunctionAgent`` that keeps every model call within its memory's budget.

    Example::

        memory = ContextMemory.from_defaults(max_tokens=32_000)
        agent = ContextFunctionAgent(tools=[*tools, *memory.as_tools()], llm=llm)
        result = await agent.run("fix the bug", memory=memory, max_iterations=500)

    The run's memory must be a :class:`ContextMemory`.
    """

    async def take_step(self, ctx: AgentContext, llm_input: list[ChatMessage],
                        tools: Sequence[AsyncBaseTool], memory: BaseMemory) -> AgentOutput:
        """Compress memory and scratchpad, then take the step with the compressed prompt.

        The parent step reads the scratchpad from ``ctx`` and appends the answer to it;
        it is given the whole prompt as its input and an empty scratchpad, and the
        compressed scratchpad (archived results whole) is put back with the answer after.
        """
        context_memory = context_memory_of(memory, self)
        context_memory.start_agent_run()  # an AgentWorkflow starts no run of this agent
        context_memory.use_agent(await _workflow_member(ctx, self.name))
        scratchpad: list[ChatMessage] = await ctx.store.get(self.scratchpad_key, default=[])
        plan = await context_memory.aprepare_step(
            llm_input, scratchpad, overhead_tokens=context_memory.tool_overhead(tools))
        await ctx.store.set(self.scratchpad_key, [])
        try:
            output = await super().take_step(ctx, plan.prompt, tools, memory)
        except BaseException:
            await ctx.store.set(self.scratchpad_key, plan.scratchpad)
            raise
        answer: list[ChatMessage] = await ctx.store.get(self.scratchpad_key, default=[])
        await ctx.store.set(self.scratchpad_key, [*plan.scratchpad, *answer])
        return output


class CompressedThoughtStep(BaseReasoningStep):
    """Reasoning steps ctxmgr compressed, shown as the assistant text that stands for them."""

    text: str

    def get_content(self) -> str:
        return self.text

    @property
    def is_done(self) -> bool:
        return False


class CompressedObservationStep(ObservationReasoningStep):
    """Reasoning steps ctxmgr compressed, shown where observations go, as their stand-in."""

    def get_content(self) -> str:
        return self.observation


class ContextReActAgent(_AgentRun, ReActAgent):
    """A ``ReActAgent`` that keeps every model call within its memory's budget.

    Example::

        memory = ContextMemory.from_defaults(max_tokens=32_000)
        agent = ContextReActAgent(tools=[*tools, *memory.as_tools()], llm=llm)
        result = await agent.run("fix the bug", memory=memory, max_iterations=500)

    The run's memory must be a :class:`ContextMemory`, and observations must be shown
    as user messages (the formatter's default ``observation_role``).
    """

    async def take_step(self, ctx: AgentContext, llm_input: list[ChatMessage],
                        tools: Sequence[AsyncBaseTool], memory: BaseMemory) -> AgentOutput:
        """Compress memory and reasoning steps, then take the step on the result.

        The parent formats the prompt itself from ``llm_input`` (whose first message,
        when a system one, it folds into its header) and the steps in ``ctx``: it is given
        the compressed memory part and steps, so it formats the prompt ctxmgr built.
        """
        context_memory = context_memory_of(memory, self)
        context_memory.start_agent_run()
        context_memory.use_agent(await _workflow_member(ctx, self.name))
        if self.formatter.observation_role != MessageRole.USER:
            raise ConfigError(f"{type(self).__name__} needs observations shown as user "
                              f"messages, got observation_role="
                              f"{self.formatter.observation_role.value!r}")
        steps: list[BaseReasoningStep] = await ctx.store.get(self.reasoning_key, default=[])
        folded = llm_input[:1] if llm_input and llm_input[0].role == "system" else []
        rendered = self.formatter.format(tools, chat_history=llm_input[len(folded):],
                                         current_reasoning=steps)
        header, chat = rendered[0], rendered[1:len(rendered) - len(steps)]
        shown = rendered[len(rendered) - len(steps):]
        plan = await context_memory.aprepare_step([header, *chat], shown)
        kept = _steps_for(plan.scratchpad, shown, steps)
        memory_part = plan.prompt[1:len(plan.prompt) - len(plan.scratchpad)]
        await ctx.store.set(self.reasoning_key, kept)
        # The parent folds a leading system message into its header: give it one to fold,
        # so the reload hint (a system message) stays in the chat part.
        system = folded or [ChatMessage(role=MessageRole.SYSTEM, content="")]
        return await super().take_step(ctx, [*system, *memory_part], tools, memory)


def _steps_for(chats: Sequence[ChatMessage], shown: Sequence[ChatMessage],
               steps: Sequence[BaseReasoningStep]) -> list[BaseReasoningStep]:
    """The reasoning steps that render to ``chats``: the original step of an unchanged
    message, a compressed step showing a stand-in's text otherwise."""
    original = {id(c): s for c, s in zip(shown, steps, strict=True)}
    out: list[BaseReasoningStep] = []
    for chat in chats:
        step = original.get(id(chat))
        if step is None:
            text = chat.content or ""
            step = (CompressedObservationStep(observation=text) if chat.role == MessageRole.USER
                    else CompressedThoughtStep(text=text))
        out.append(step)
    return out
