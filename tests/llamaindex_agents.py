"""Invariants checked on every model call of a real LlamaIndex agent or chat engine.

:class:`PromptChecker` is the ``on_call`` of a :class:`ScriptedLLM` replaying a
recorded run. Before each answer it checks what the model was sent:

* tool pairing is valid (OpenAI and Anthropic rules);
* the prompt, tool schemas included, is within the memory's budget (the window less
  the room kept for the answer and the safety margin);
* nothing is lost: every piece of the recording sent so far (each text, tool
  call and tool result, byte for byte) is in the prompt or reloads exactly
  through the offload ids the prompt shows, nested ranges opened too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxmgr import Message, validate_pairing
from ctxmgr.autocontext.marker import find_offload_ids
from ctxmgr.replay.trajectories import Trajectory
from ctxmgr_llamaindex import ContextMemory, from_llamaindex
from ctxmgr_llamaindex.demo import Piece, message_pieces, message_text
from ctxmgr_llamaindex.testing import ScriptedLLM


@dataclass
class PromptChecker:
    """Checks every prompt sent while ``trajectory`` is replayed through ``memory``.

    ``match``: ``"exact"`` looks for every text, tool call and tool result as such;
    ``"text"`` looks for each text and tool output inside the prompt's text (a ReAct
    agent shows tool results as observations, a chat engine wraps the question in a
    template).
    """

    memory: ContextMemory
    trajectory: Trajectory
    llm: ScriptedLLM | None = None
    match: str = "exact"
    calls: int = 0
    compressed_calls: int = 0
    peak_tokens: int = 0
    _reloaded: dict[str, list[Message]] = field(default_factory=dict)

    def __call__(self, prompt: list[Any], tools: Sequence[Any]) -> None:
        where = f"{self.trajectory.id} call {self.calls}"
        neutral = from_llamaindex(prompt)
        for rules in ("openai", "anthropic"):
            assert validate_pairing(neutral, rules=rules) == [], where  # type: ignore[arg-type]
        tokens = self.memory.counter.count_messages(neutral) + self.memory.tool_overhead(tools)
        budget = self.memory.config.budget_tokens  # the window less the answer's room
        assert tokens <= budget, f"{where}: {tokens} tokens over {budget}"
        self.peak_tokens = max(self.peak_tokens, tokens)
        reachable = self._reachable(neutral)
        self.compressed_calls += bool(self._reloaded_ids(neutral))
        if self.llm is not None:
            self._check_nothing_lost(neutral, reachable, where)
        self.calls += 1

    def _reloaded_ids(self, messages: Sequence[Message]) -> list[str]:
        return [oid for m in messages for oid in find_offload_ids(message_text(m))]

    def _reachable(self, prompt: Sequence[Message]) -> list[Message]:
        """The prompt's messages and every original reachable from its offload ids."""
        out = list(prompt)
        todo = self._reloaded_ids(prompt)
        seen: set[str] = set()
        while todo:
            oid = todo.pop()
            if oid in seen:
                continue
            seen.add(oid)
            if oid not in self._reloaded:
                self._reloaded[oid] = self.memory.processor.reload(oid)
            originals = self._reloaded[oid]
            out.extend(originals)
            todo.extend(self._reloaded_ids(originals))
        return out

    def sent_so_far(self) -> list[Message]:
        """The recording up to the next answer the model gives."""
        assert self.llm is not None
        assistants = [i for i, m in enumerate(self.trajectory.messages)
                      if m.role == "assistant"]
        end = (assistants[self.llm.answered] if self.llm.answered < len(assistants)
               else len(self.trajectory.messages))
        return [m for m in self.trajectory.messages[:end] if m.role != "system"]

    def _check_nothing_lost(self, prompt: Sequence[Message], reachable: list[Message],
                            where: str) -> None:
        if self.match == "text":
            text = "\n".join(message_text(m) for m in reachable)
            for m in self.sent_so_far():
                for r in m.tool_results:
                    assert r.text in text, f"{where}: tool output of {r.tool_use_id} lost"
                if m.text and not m.tool_uses:  # ReAct shows a call's thought cut short
                    assert m.text in text, f"{where}: {m.role} message {m.id} lost"
            return
        available: set[Piece] = set().union(*(message_pieces(m) for m in reachable))
        for m in self.sent_so_far():
            missing = message_pieces(m) - available
            assert not missing, f"{where}: {sorted(missing)[0][:2]} of {m.id} neither in the " \
                                "prompt nor reloadable"
