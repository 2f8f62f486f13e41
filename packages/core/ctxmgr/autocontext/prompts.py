"""Default instructions for the summarizer, one per LLM strategy (text only).

Each says what must survive: a later model call relies on the summary to avoid
repeating work and to keep obeying the user, so the user's own instructions and
values (verbatim, only the latest when a value changed), exact tool names and
arguments, paths, ids and error messages matter more than prose. A summary comes
in fixed sections (:data:`SUMMARY_SECTIONS`), the ones the extractive summarizer
writes, so a later summary carries an earlier one forward section by section.
ctxmgr appends its own record of the tool calls after every summary, so the model
need not copy each call; the prompts say so in one line (they go with every
summary, so they stay short).
"""

from __future__ import annotations

__all__ = [
    "CURRENT_LARGE_PROMPT",
    "CURRENT_ROUND_PROMPT",
    "PREVIOUS_ROUND_PROMPT",
    "SUMMARY_SECTIONS",
    "TOOL_RUN_PROMPT",
    "USER_NOTE_PROMPT",
]

SUMMARY_SECTIONS = ("User instructions (verbatim, latest values)", "Done so far", "Findings",
                    "Conclusions and open items")
"""The sections of a summary, in order: what the user asked for first."""

_USER, _DONE, _FINDINGS, _OPEN = SUMMARY_SECTIONS

_KEEP = f"""Write these sections, each a list of short "- " lines; leave out an empty one:
{_USER}: every instruction, rule, constraint,
preference and stated value of the user, word for word; when the user changed a
value, only the latest one.
{_DONE}: what the agent did and the outcome: each tool by its exact name,
with its exact arguments (commands, paths, ids); what was written or changed, where.
{_FINDINGS}: file paths, line numbers, names, identifiers and values found;
error messages and failing tests, verbatim.
{_OPEN}: conclusions reached and what is still open.
An exact list of the tool calls is appended after your summary: say what the calls
achieved rather than copying each one. Drop courtesies, repetition, boilerplate
output and anything superseded later. No preamble."""

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
record, so say what each step already achieved, so that none is repeated.
{_KEEP}"""

USER_NOTE_PROMPT = """The messages below are what a user said earlier in a conversation with
an assistant; they are about to be removed from the assistant's context. Copy, word
for word, the sentences the assistant must still follow or know: instructions, rules,
prohibitions, constraints, preferences, facts with values, goals. When the user later
changed a value, copy only the sentence with the latest value. Leave out greetings,
thanks, questions already answered, small talk and one-off requests that are done.
Copy each sentence exactly as the user wrote it, in the user's language, one per line,
the most important first, with no numbering, comments or translation. Copy nothing
else. If nothing must be kept, answer with an empty line."""
"""What the summarizer model is asked when it writes the note of the user's words
(strategy 9): verbatim quotes only, each checked to be one (:mod:`.quotes`)."""
