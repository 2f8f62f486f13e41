"""Long scripted runs of multi-agent graphs, and what every model call of them is checked for.

Each framework's test builds its real graph (deepagents, langgraph-supervisor,
langgraph-swarm, LlamaIndex ``AgentWorkflow``) around scripted models; only the models
are fake. What the issue's targets measure is gathered here, the same way for each:

* :class:`RunLog`: on every model call, the prompt as the model received it is counted
  (its tool schemas too) against the budget, and its tool pairing is checked;
* :func:`cross_reads`: how many offloads of one agent's session another agent's
  ``context_reload`` gives back (0 unless shared on purpose);
* :func:`least_recent`: a router that reads names off the prompt, as a supervisor or a
  swarm member deciding whom to hand to does; it routes round-robin only when the
  latest handoffs are still in the prompt under their agents' names.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxmgr import CompressionEvent, Message, Store, TokenCounter, validate_pairing
from ctxmgr.session import Scope, SessionEngine
from ctxmgr.store import Namespace

WINDOW = 8000
"""The window every long run is held to."""


def file_text(path: str, lines: int = 40) -> str:
    """What the scripted ``read`` tool returns: about 2,000 characters naming ``path``."""
    return f"contents of {path}\n" + "".join(f"{path}:{k}: line of text about {path}\n"
                                             for k in range(lines))


@dataclass
class RunLog:
    """What the model calls of one run showed."""

    counter: TokenCounter
    budget: int
    calls: int = 0
    over_budget: int = 0
    pairing_violations: int = 0
    peak: int = 0
    events: list[CompressionEvent] = field(default_factory=list)

    def check(self, messages: Sequence[Message], tool_tokens: int = 0) -> None:
        """One model call: ``messages`` as the model received them, and its tool schemas."""
        self.calls += 1
        for rules in ("openai", "anthropic"):
            self.pairing_violations += len(validate_pairing(messages, rules=rules))
        tokens = self.counter.count_messages(messages) + tool_tokens
        self.peak = max(self.peak, tokens)
        self.over_budget += tokens > self.budget

    def on_event(self, event: CompressionEvent) -> None:
        self.events.append(event)

    @property
    def compressions(self) -> int:
        return sum(e.status == "applied" for e in self.events)


def tool_tokens(counter: TokenCounter, schemas: Iterable[dict[str, Any]]) -> int:
    return sum(counter.count_text(json.dumps(s, ensure_ascii=False, default=str))
               for s in schemas)


def cross_reads(engine: SessionEngine, store: Store, scopes: Sequence[Scope]) -> tuple[int, int]:
    """(offloads of the scopes' sessions, reloads of one of them through another scope's
    ``context_reload`` that gave it back). A session shared on purpose counts as one. An
    id both sessions hold is each one's own: offload ids are derived from content, and
    two agents that compressed the same messages (a swarm's shared list) wrote the same
    range each into its own session."""
    owned = {s.session: {k.removesuffix(".json")
                         for k in store.keys(Namespace(engine.project, s.session, "offload"))
                         if k.endswith(".json")} for s in scopes}
    leaks = 0
    for owner, ids in owned.items():
        for other in {s.session: s for s in scopes if s.session != owner}.values():
            for offload_id in ids - owned[other.session]:
                answer = engine.reload({"uuid": offload_id}, [], None, store=store,
                                       session=other)
                leaks += not answer.text.startswith("No messages found")
    return sum(len(ids) for ids in owned.values()), leaks


def least_recent(team: Sequence[str], handed_by: Callable[[Any], str | None],
                 prompt: Sequence[Any], *, exclude: str | None = None) -> str:
    """The member of ``team`` (not ``exclude``) whose latest handoff in ``prompt`` is the
    oldest (``handed_by`` names the agent behind a message that hands off, or gives
    ``None``; one that made none comes first, in ``team`` order): round-robin, as long as
    the latest handoffs are still in the prompt under their agents' names."""
    seen = dict.fromkeys(team, -1)
    for k, m in enumerate(prompt):
        name = handed_by(m)
        if name in seen:
            seen[name] = k
    return min((a for a in team if a != exclude), key=lambda a: (seen[a], team.index(a)))
