"""ctxmgr's own policy in replay: AutoContextMemory with its default configuration.

Only ``max_tokens`` is set (to the budget under test), and the summarizer is the
shared fake one, so the figures are what a user gets out of the box. The memory
sees every message, system prompt included (it pins system messages itself),
and keeps its compressed working view between calls, as an agent would. The prompt
is the one a model would get, the reload hint included once anything is compressed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ctxmgr.autocontext import AutoContextConfig, AutoContextMemory
from ctxmgr.errors import ContextOverflowError
from ctxmgr.messages import Message
from ctxmgr.replay.policy import PolicyContext, PolicyResult

__all__ = ["CtxmgrPolicy"]


class CtxmgrPolicy:
    """``AutoContextMemory(AutoContextConfig(max_tokens=budget))`` + the shared summarizer."""

    name = "ctxmgr"

    def __init__(self, context: PolicyContext) -> None:
        self.context = context
        self.reset()

    def reset(self) -> None:
        self.memory = AutoContextMemory(
            AutoContextConfig(max_tokens=self.context.budget),
            counter=self.context.counter,
            summarizer=self.context.summarizer,
        )
        self._seen = 0

    def prompt(self, history: Sequence[Message]) -> PolicyResult:
        new = history[self._seen:]
        self._seen = len(history)
        start = time.perf_counter()
        self.memory.add(new)
        events: tuple[str, ...] = ()
        try:
            applied = self.memory.compress_if_needed()
            events = tuple(e.name for e in applied if e.status == "applied")
        except ContextOverflowError as exc:
            # Still over the window after every strategy: the call goes out over budget
            # (counted by over_budget_calls) rather than ending the replay, with what the
            # pass did apply (the memory keeps it).
            partial = getattr(exc.partial, "events", ())
            events = (*(e.name for e in partial if e.status == "applied"), "overflow")
        seconds = time.perf_counter() - start
        return PolicyResult(messages=tuple(self.memory.prompt), events=events,
                            seconds=seconds)

    def reload(self, offload_id: str) -> list[Message]:
        """The originals behind an offload id in this trajectory's prompts (replay's
        ``fact_reloadable`` asks); raises ``OffloadNotFoundError`` for an unknown id."""
        return self.memory.reload(offload_id)

    def search(self, query: str) -> str:
        """What ``context_search`` answers for ``query`` beside the latest prompt (replay's
        ``fact_searchable`` and ``cost_with_recovery`` ask)."""
        return self.memory.handle_search_call({"query": query})
