"""What the user said that still stands: sentences to carry, verbatim, once their
messages are compressed.

A user's messages hold instructions, rules, constraints, preferences, facts with
values and goals, between courtesies ("ok, thanks") that carry nothing. When the
user's messages must finally go (every other message is compressed already), the
sentences worth carrying move, word for word, into one note near the top of the
prompt (:mod:`ctxmgr.autocontext.strategies.user_turns`); replay's
``user_retention`` asks whether they are still in the prompt.

**The rules.** Nothing here depends on labels ("RULE:") or on a list of
instruction phrasings; the signals are general ones, designed on generated
sessions with many phrasings (``benchmarks/planted``):

* *Sentences.* A message is cut at line breaks and after ``.``, ``!`` or ``?``
  followed by a space (a cut too many only splits a kept sentence in two), but a rule
  that points back at a value with "it" ("Please don't modify it.") stays with the
  sentence that said the value (:func:`_with_antecedents`). ctxmgr's own markup
  (offload tags, the headers of its notes) is not the user's: left out.
* *Standing content* (:func:`standing_content`) is every sentence but a courtesy:
  a sentence of at most :data:`TRIVIAL_WORDS` words with no value in it; an opening
  aside ("Also, ...", "Reading back through the thread, ...": :func:`without_aside`)
  is left out, and names no subject.
* *Values* are numbers (with their unit), amounts, dates and times, quoted text,
  proper names and ids or paths (:func:`value_kinds`).
* *Priority* (:func:`priority`), used only when a note cannot hold everything:
  values and binding words (negation, modal verbs, a limit or a comparison before a
  value: closed classes of English grammar words, not phrasings) raise it, and a value
  said to the assistant ("you", "please") a little more; questions without a value,
  a bare count that does not say what it counts, remarks about the moment and the place
  ("today", "right now", "here", "last month") unless its value is an id, a path or a name,
  patterns repeated with other numbers ("it's 5:31 here") and pasted paragraphs (logs,
  emails) lower it; an update ranks at least as high as what it replaced. Once a
  sentence does not fit, nothing of lower priority is taken.
* *Latest value* (:func:`supersedes`, :func:`latest`): a later sentence replaces an
  earlier one that says nothing it does not (its values are of kinds the later one
  has) when it says every value again (a restatement), or when both share a word pair
  that names the thing ("planned downtime") and few other statements use, unless
  their ids are of two kinds (an order number, a VAT number), or the pair holds a
  grammar word ("the export") and only one of the two sentences negates or each says
  a content word the other does not (a shared frame: "X changed this morning to"); a
  line that ran two statements together replaces through either of them.
* *Likely updates* (:func:`likely_updates`): an update in other words ("the ticket
  for this is TCK-1" ... "the support case is now TCK-2") is weighed from weaker
  evidence (an id's shape, a unit, a rare word shared, a slip of the keys forgiven, a
  word of change, a value's kind or written form): nothing is dropped for it, but the
  earlier sentence ranks no higher than the least of what binds or carries a value
  (:data:`LIKELY_RANK`) and the later one higher, and any update ranks a step above
  what it replaced; one that fits several earlier sentences equally well, or one part
  of a line that ran two statements together, still ranks as an update and demotes
  nothing. A value said in words of change that no earlier sentence was found for
  ("new max is 143 seconds") ranks a step higher (:data:`CHANGE_BONUS`).

**Where each part lives.** :mod:`.words` holds the closed classes of words the rules
read; :mod:`.values` finds values; :mod:`.grammar` tests what a sentence does (binds,
asks, denies, says a change); :mod:`.weight` weighs one sentence; :mod:`.statements`
reads a message; :mod:`.updates` finds what replaced what; :mod:`.selection` scores
the statements and picks those that fit. Each builds only on those before it.
"""

from __future__ import annotations

from ctxmgr.autocontext.standing.grammar import TRIVIAL_WORDS
from ctxmgr.autocontext.standing.selection import (
    CHANGE_BONUS,
    INSTRUCTION_RANK,
    LIKELY_RANK,
    UPDATE_BONUS,
    scores,
    select,
)
from ctxmgr.autocontext.standing.statements import (
    USER_NOTE_HEADER,
    Statement,
    sentences,
    standing_content,
    statements_of,
    without_aside,
    without_coda,
)
from ctxmgr.autocontext.standing.updates import LIKELY_EVIDENCE, latest, likely_updates, supersedes
from ctxmgr.autocontext.standing.values import value_kinds
from ctxmgr.autocontext.standing.weight import priority

__all__ = [
    "CHANGE_BONUS",
    "INSTRUCTION_RANK",
    "LIKELY_EVIDENCE",
    "LIKELY_RANK",
    "TRIVIAL_WORDS",
    "UPDATE_BONUS",
    "USER_NOTE_HEADER",
    "Statement",
    "latest",
    "likely_updates",
    "priority",
    "scores",
    "select",
    "sentences",
    "standing_content",
    "statements_of",
    "supersedes",
    "value_kinds",
    "without_aside",
    "without_coda",
]
