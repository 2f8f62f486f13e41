"""Default instructions for the summarizer, one per LLM strategy (text only).

Each says what must survive: a later model call relies on the summary to avoid
repeating work, so exact tool names and arguments, paths, ids, error messages
and what was changed matter more than prose.
"""

from __future__ import annotations

__all__ = [
    "CURRENT_LARGE_PROMPT",
    "CURRENT_ROUND_PROMPT",
    "PREVIOUS_ROUND_PROMPT",
    "TOOL_RUN_PROMPT",
]

_KEEP = """Keep, exactly as written:
- every tool called, with its exact arguments (commands, queries, file paths, ids);
- file paths, line numbers, function and class names, identifiers and values found;
- error messages and failing test names, verbatim;
- what was written, edited or changed, and where;
- conclusions reached and what is still open.
Drop repetition, boilerplate output and anything superseded later. Write plain
notes, no preamble."""

TOOL_RUN_PROMPT = f"""You are compressing an agent's earlier tool calls and their results
into a short record the agent will read instead of the originals.
{_KEEP}"""

PREVIOUS_ROUND_PROMPT = f"""You are compressing one finished exchange (a user request, the
agent's work on it and its final answer) into a short record of what was asked,
what was done and what was answered.
{_KEEP}"""

CURRENT_LARGE_PROMPT = f"""You are shortening one large message from the task the agent is
working on right now. Keep only what the agent may still need from it.
{_KEEP}"""

CURRENT_ROUND_PROMPT = f"""You are compressing the work the agent has done so far on its
current task, to about {{ratio}} of its length. The agent will continue from your
record, so list every tool call already made with its exact arguments and outcome,
so that it is not repeated.
{_KEEP}"""
