"""The one fake summarizer every replayed policy shares, and what it was sent.

Replay must compare policies on the same footing and never call a real model:
one deterministic summarizer answers every request with the same fixed text
(about 1,200 characters, the size of a real summary) and counts, with the
shared token counter, the input it was sent and the output it returned. ctxmgr
calls ``summarize(messages, instruction)``; the peers reach it through a chat
model (LangChain) or an LLM (LlamaIndex) that their adapter builds around it
and that calls :meth:`FakeSummarizer.record`. This module imports no framework.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxmgr.messages import Message, text_message
from ctxmgr.tokens import TokenCounter

if TYPE_CHECKING:
    from ctxmgr.autocontext.summarizers import Summarizer

__all__ = ["FIXED_SUMMARY", "FakeSummarizer", "ModelSummarizer", "SummarizerUsage"]

FIXED_SUMMARY = (
    "## Summary of the conversation so far\n"
    "The user asked the assistant to complete a multi-step task. The assistant inspected "
    "the relevant files and data with its tools, collected the facts it needed, and "
    "recorded intermediate findings along the way. Several tool calls returned long "
    "outputs (file listings, search results, logs and test runs); the essential points "
    "from them are kept here and the raw outputs are no longer needed.\n"
    "## Key facts\n"
    "- The main artefacts involved were located and read; the lines that matter were "
    "identified and their behaviour understood.\n"
    "- A hypothesis about the cause was formed, checked against the observed output, and "
    "confirmed by a small reproduction.\n"
    "- Changes were drafted; the first attempt failed a check, the failure was analysed, "
    "and the approach was adjusted accordingly.\n"
    "## Decisions\n"
    "- Keep the change minimal and consistent with the existing conventions.\n"
    "- Re-run the relevant checks after every edit instead of batching edits.\n"
    "## Next steps\n"
    "- Finish the remaining edit, run the checks again, and report the result to the "
    "user with a short explanation of what changed and why. Do not repeat tool calls "
    "whose results are summarised above unless something changed.\n"
)
"""What the fake summarizer always answers (1,200 characters or so)."""


@dataclass(slots=True)
class SummarizerUsage:
    """Running totals of what the summarizer was asked to do."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    """Time spent inside the summarizer (counting), so callers can leave it out of a policy's
    own time: a real model's latency is not the policy's."""

    @property
    def tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def snapshot(self) -> SummarizerUsage:
        return SummarizerUsage(self.calls, self.input_tokens, self.output_tokens, self.seconds)

    def __sub__(self, other: SummarizerUsage) -> SummarizerUsage:
        return SummarizerUsage(
            self.calls - other.calls,
            self.input_tokens - other.input_tokens,
            self.output_tokens - other.output_tokens,
            self.seconds - other.seconds,
        )


class FakeSummarizer:
    """A deterministic summarizer that returns ``text`` and counts what it was sent.

    Example::

        fake = FakeSummarizer(default_counter())
        fake.summarize(messages, "Summarize the tool calls above.")
        fake.usage.calls, fake.usage.input_tokens

    Args:
        counter: the token counter shared by every policy in the run.
        text: the answer to every request.
    """

    def __init__(self, counter: TokenCounter, text: str = FIXED_SUMMARY) -> None:
        self.counter = counter
        self.text = text
        self.usage = SummarizerUsage()

    # --- the neutral face (ctxmgr's Summarizer protocol) ---------------------------

    def summarize(self, messages: Sequence[Message], instruction: str) -> str:
        """Answer :data:`FIXED_SUMMARY`, counting ``messages`` and ``instruction`` as input."""
        start = time.perf_counter()
        tokens = self.counter.count_messages(messages) + self.counter.count_text(instruction)
        request = [text_message("system", instruction), *messages]
        return self._answer(tokens, start, request)

    async def asummarize(self, messages: Sequence[Message], instruction: str) -> str:
        return self.summarize(messages, instruction)

    def record(self, input_tokens: int, *, started: float | None = None,
               request: Sequence[Message] = ()) -> str:
        """Count one request of ``input_tokens`` and return the answer.

        The framework faces call this after counting their own request format, passing
        the request as neutral messages (a real model behind :class:`ModelSummarizer`
        reads it; the fixed answer ignores it).
        """
        return self._answer(input_tokens, started if started is not None else time.perf_counter(),
                            request)

    def reply(self, request: Sequence[Message]) -> str:
        """The answer to one request: the fixed text."""
        return self.text

    def _answer(self, input_tokens: int, started: float, request: Sequence[Message]) -> str:
        text = self.reply(request)
        u = self.usage
        u.calls += 1
        u.input_tokens += input_tokens
        u.output_tokens += self.counter.count_text(text)
        u.seconds += time.perf_counter() - started
        return text

    def __repr__(self) -> str:
        return f"FakeSummarizer(answer={len(self.text)} chars, usage={self.usage})"


class ModelSummarizer(FakeSummarizer):
    """The shared summarizer backed by a real one (``--summarizer provider:model`` gives
    the LangChain adapter's ``LangChainSummarizer``): every policy's requests go to it,
    counted the same way as the fake's.

    A request's system messages become the instruction, the rest the messages to
    summarize, whichever framework face it came through.

    Args:
        counter: the token counter shared by every policy in the run.
        summarizer: any object with ``summarize(messages, instruction) -> str``.
    """

    def __init__(self, counter: TokenCounter, summarizer: Summarizer) -> None:
        super().__init__(counter, text="")
        self.summarizer = summarizer

    def reply(self, request: Sequence[Message]) -> str:
        instruction = "\n\n".join(m.text for m in request if m.role == "system")
        return self.summarizer.summarize([m for m in request if m.role != "system"],
                                         instruction)

    def __repr__(self) -> str:
        return (f"ModelSummarizer(summarizer={type(self.summarizer).__name__}, "
                f"usage={self.usage})")
