"""Scope: where one agent of a thread keeps what ctxmgr stores for it.

A thread of a multi-agent graph holds several agents: a deep agent and its subagents, a
supervisor and its specialists, the members of a swarm, the agents of a LlamaIndex
``AgentWorkflow``. Each works on its own history (or its own view of a shared one), so
each compresses into its own session under the thread's, by one rule
(:meth:`~ctxmgr.session.SessionEngine.scope`):

* an agent the framework names, running inside another's run, gets the session
  :func:`~ctxmgr.session.agent_session_label` of the thread and its name: its offloads,
  its ``context_search`` and its memos are out of its peers' reach (a parent sees a
  subagent's result, never its working context);
* the outermost agent of a run, or any agent with ``agent_sessions=False``, uses the
  thread's session;
* with ``team_memos=True`` every agent's memos are the thread's (one team memo), while
  offloads and search stay each agent's own.

An adapter only says which agent is calling (the name its framework gives it); the
engine decides the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Scope"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Scope:
    """The sessions one agent of a thread reads and writes (labels in the store)."""

    session: str
    """Its offloads, search and compressor."""
    memos: str
    """Its memos (the thread's session with ``team_memos``)."""
    thread: str
    """The thread's session, under which an agent's is registered."""
    agent: str | None = None
    """The agent's name; ``None`` for the thread's own (outermost) agent."""

    @classmethod
    def of_thread(cls, session: str) -> Scope:
        """The scope of a thread's outermost agent, or of a session named alone."""
        return cls(session=session, memos=session, thread=session)

    def __str__(self) -> str:
        return self.session
