"""What the user said that still stands: sentences to carry, verbatim, once their
messages are compressed, in any language.

A user's messages hold instructions, rules, constraints, preferences, facts with
values and goals, between courtesies ("ok, thanks") that carry nothing. When the
user's messages must finally go (every other message is compressed already), the
sentences worth carrying move, word for word, into one note near the top of the
prompt (:mod:`ctxmgr.autocontext.strategies.user_turns`); replay's
``user_retention`` asks whether they are still in the prompt. Where a summarizer model
is configured, the model picks the note's lines and this reader is its fallback.

**The rules.** They read Unicode properties and, for each language, only its closed
classes of words (negation, modal words, the words that ask, the second person, words
of change: one data file per language in ``languages/``), never phrasings:

* *Sentences* end at a sentence terminator of any script or a line break
  (:mod:`.text`); ctxmgr's own markup is left out, and so are courtesies: at most
  :data:`TRIVIAL_WORDS` words, no value, no word of the closed classes.
* *Values* (:mod:`.values`): numbers with what they count, amounts, shares, times,
  dates, quoted text, ids, paths, addresses and names, in any script.
* *Priority* (:mod:`.reading`), used only when a note cannot hold everything: a rule
  (a modal word or a word that asks, or outside a question a negation or the
  imperative) outranks a value, a value outranks text the reader cannot classify, and
  that outranks chatter (a question without a value, a reading repeated with other
  numbers); pasted paragraphs rank lower. Of one rank the newest goes first.
* *Latest value* (:mod:`.updates`): a later sentence replaces an earlier one when it
  says every value again, or has a value of every kind the earlier one has and names
  the same thing in words few statements use; weaker evidence only ranks the earlier
  one lower.

**Where each part lives.** :mod:`.text` (sentences and words in any script),
:mod:`.lexicon` (the closed classes), :mod:`.values`, :mod:`.reading` (one sentence),
:mod:`.statements` (one message), :mod:`.updates` (what replaced what) and
:mod:`.selection` (scores and what fits). Each builds only on those before it.
"""

from __future__ import annotations

from ctxmgr.autocontext.standing.lexicon import LANGUAGES
from ctxmgr.autocontext.standing.reading import TRIVIAL_WORDS, binds, priority
from ctxmgr.autocontext.standing.selection import LIKELY_RANK, UPDATE_BONUS, scores, select
from ctxmgr.autocontext.standing.statements import (
    USER_NOTE_HEADER,
    Statement,
    note_line,
    sentences,
    standing_content,
    statements_of,
)
from ctxmgr.autocontext.standing.updates import latest, likely_updates, supersedes
from ctxmgr.autocontext.standing.values import value_kinds

__all__ = [
    "LANGUAGES",
    "LIKELY_RANK",
    "TRIVIAL_WORDS",
    "UPDATE_BONUS",
    "USER_NOTE_HEADER",
    "Statement",
    "binds",
    "latest",
    "likely_updates",
    "note_line",
    "priority",
    "scores",
    "select",
    "sentences",
    "standing_content",
    "statements_of",
    "supersedes",
    "value_kinds",
]
