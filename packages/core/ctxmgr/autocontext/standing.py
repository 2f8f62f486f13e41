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
sessions with many phrasings (``ctxmgr.replay.instructions``):

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
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ctxmgr.autocontext.identifiers import distinctive_strings
from ctxmgr.autocontext.marker import OFFLOAD_TAG_RE
from ctxmgr.autocontext.record import without_record
from ctxmgr.messages import Message

__all__ = [
    "CHANGE_BONUS",
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
]

USER_NOTE_HEADER = "The user said earlier (later lines win):"
"""The first line of the note that carries the user's words (strategy 9). Short: at a
small window every token of it is room a sentence of the user's does not get."""
_OLD_HEADERS = ("What the user said earlier (verbatim; later lines win):",)
"""Headers notes were written with before: their lines are still read back."""
_HEADERS = frozenset((USER_NOTE_HEADER, *_OLD_HEADERS))
_NOTE_COUNT = re.compile(r"^\(\+\d+ more(?: in the original)?\)$|^\(nothing that still stands\)$")

PASTE_LINES = 6
"""A user message of more non-empty lines than this is mostly pasted material (a log, an
email): its paragraphs rank after what the user wrote, but for the user's own words
around the paste: a first paragraph of at most :data:`OWN_LINES` lines and
:data:`OWN_CHARS` characters, and each such one after the paste's last longer one (or,
when none is longer, the last)."""
OWN_LINES = 4
"""The most lines of the user's own paragraph before or after a paste: a lead line and a
short list ("A couple of points." and two bullets)."""
OWN_CHARS = 300
"""The most characters of the user's own paragraph: a longer one (an email's body on one
line) is pasted."""
TRIVIAL_WORDS = 2
"""A sentence of at most this many words and no value is a courtesy ("ok, thanks",
"go on"), not content."""

_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d.,:/%-]*")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_CAPITAL_WORD = re.compile(r"(?<=[A-Za-z0-9%])\s+([A-Z][a-z]*(?:['’][a-z]+)?)"
                           r"(?=,?\s+[a-z]|[.!?]*$)")
"""A capitalised word after a word or a percentage (no stop between) and before a lowercase
one or the end: "... stop and ask me first Don't stop before ...", "... fyi Thanks!",
"... under 38% The queue is ..."."""

_NEGATION = frozenset(("never", "not", "no", "nor", "cannot", "dont"))
"""Negation (and every word ending in "n't"): a closed class of grammar words."""
# Grammar words (closed classes), not phrasings: what makes a sentence bind (negation,
# modal verbs, "at most", the prepositions that set a limit).
_BINDING = _NEGATION | frozenset("""
must should shall always only need needs required require requires most least
under below above over within beyond
""".split())  # noqa: SIM905 - a word list reads better as text
_PARAGRAPH = re.compile(r"\n\s*\n")
_LIMITS = frozenset(("under", "below", "above", "over", "within", "beyond"))
"""Binding only with a value after them ("under 370 MB", not "walked over the desk")."""
_DEIXIS = re.compile(r"\b(?:(?<!from )(?<!as of )now|(?<!as of )today|tonight|currently|"
                     r"at the moment|this (?:morning|afternoon|week|month)|yesterday|so far|"
                     r"ago|last (?:night|week|month|year)|(?<!from )here(?! on| is|'s|’s))\b",
                     re.I)
"""Words that tie a remark to the moment and place it was said (temporal and spatial
deixis, a closed class): "it's 5:31 here", "we shipped 552 parcels last month"; not
"from now" or "as of today", which say from when a value holds."""
_ADDRESSEE = frozenset(("you", "your", "you'd", "you're", "you'll", "you’d", "you’re",
                        "you’ll", "please", "pls", "plz"))
"""The second person and the word that asks: the sentence is said *to* the assistant
(a request or a rule for it), not a remark about the user's day."""
_COMPARATIVE = re.compile(r"\b(?:[a-z]+er|more|less|fewer) than\b|\bas [a-z]+ as\b|"
                          r"\bup to\b|\bat (?:most|least)\b", re.I)
"""A comparison that sets a bound ("no higher than", "as high as", "up to"): grammar,
binding like a modal verb when a value follows."""
_STOP = frozenset("""
a an the and or but if then so to of in on at by for with from into onto about as is are
was were be been being it its this that these those there here i me my we us our you
your he she they them their his her please just also now too very really some any all do
does did done can could would will may might shall should must not no never when where
what which while whom whose than because since until after before once each every other
another same such just only even still yet again more most less least have has had
having get gets got make makes made keep let lets want like actually basically honestly
anyway maybe perhaps pls plz thx thanks okay well hey anything something everything
nothing anyone someone everyone nobody cant dont wont isnt thats whats theres sorry
fyi btw
""".split())  # noqa: SIM905 - a word list reads better as text

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
           "dec")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
             "sunday")
_CALENDAR = frozenset([*_MONTHS, *_WEEKDAYS, "january", "february", "march", "april",
                       "june", "july", "august", "september", "october", "november",
                       "december", "sept"])
_MONTH = rf"\b(?:{'|'.join(_MONTHS)})[a-z]*\.?\s+"
_MONTH_DATE = re.compile(_MONTH + r"\d", re.I)
_DAY_OF_MONTH = re.compile(_MONTH + r"\d{1,2}(?:st|nd|rd|th)?\b", re.I)
"""A date as written with its month, whole: "february 1st", "jul. 26"."""
_WEEKDAY = re.compile(rf"\b(?:{'|'.join(_WEEKDAYS)})\b")
_MONEY = re.compile(r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|"
                    r"dollars?|euros?|pounds?)\b", re.I)
"""An amount, whole: "$6,805" (not "$6"), "4,250.98 EUR"."""
_PERCENT = re.compile(r"\d\s?(?:%|percent\b)", re.I)
_TIME = re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.I)
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b")
_DOTTED = re.compile(r"\d+(?:\.\d+){2,}")
"""Numbers with two dots or more and no letters: an address (``10.244.14.248``) or a
version (``15.3.8``), an id, not a number; its count of parts is its shape
(:func:`_id_shapes`)."""
_NUMBER_UNIT = re.compile(rf"(?<![\w/.@-])(?!{_DOTTED.pattern})\d[\d,.]*(?![\w/@-])\s?([A-Za-z]+)?")
"""A number on its own (not inside an id like ``walrus-94``, nor a dotted id,
:data:`_DOTTED`), and the word after it."""
_TIME_WORDS = frozenset(("morning", "afternoon", "evening", "night", "tonight", "today",
                         "tomorrow", "yesterday", "week", "month", "year", "minute", "hour",
                         "moment", *_WEEKDAYS))
"""Words that say when (singular: :func:`_phrases` strips a plural ``s``)."""
_LETTERS = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_APOSTROPHE = re.compile(r"['’]")
SUBJECT_MAX_DF = 3
"""A word pair shared by more statements than this is a way of speaking ("changed this
morning to"), not the name of one thing (an item, its restatement and its update)."""
_ID_CHARS = re.compile(r"[\d/._@:]|^[^-]+-[^-]+-|[a-z][A-Z]")
"""What makes a distinctive string an id or a path, not a hyphenated word ("on-call"):
a digit or ``/._@:``, three hyphenated parts ("triage-bramble-moraine") or camel case."""
_NAME = re.compile(r"\b(?!I\b|I['’])[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b")
_QUOTED = re.compile(r"\"[^\"]{2,}\"|(?<![A-Za-z])'[^']{2,}'(?![A-Za-z])|`[^`]+`|“[^”]{2,}”|"
                     r"(?<![A-Za-z])‘[^’]{2,}’(?![A-Za-z])")
"""Quoted text; a single quote only when no letter touches it outside, as an apostrophe
does ("I've got it, it's AC-8" quotes nothing)."""


def sentences(text: str) -> list[str]:
    """The sentences of one message, verbatim (bullets and ctxmgr's markup left out:
    offload tags, the record of a stand-in, the note's header)."""
    out: list[str] = []
    for piece in (p for line in _SPLIT.split(without_record(text)) for p in _run_on(line)):
        piece = _BULLET.sub("", piece).strip()
        if (not piece or OFFLOAD_TAG_RE.search(piece) or piece in _HEADERS
                or _NOTE_COUNT.match(piece)):
            continue
        out.append(piece)
    return out


def _run_on(line: str) -> list[str]:
    """``line`` cut where a capitalised grammar word follows a word without a stop
    between them ("... is tagged and released The board meets ..."): mid-sentence only
    "I" and names are capitalised, so a capitalised "The", "We" or "Does" opens a new
    sentence the writer ran on without a full stop."""
    cuts = [m.start(1) for m in _CAPITAL_WORD.finditer(line)
            if _APOSTROPHE.sub("", m.group(1).lower()) in _STOP and m.group(1) != "I"]
    return [line[a:b] for a, b in zip([0, *cuts], [*cuts, len(line)], strict=True)]


def _words(sentence: str) -> list[str]:
    return _WORD.findall(sentence)


@lru_cache(maxsize=8192)
def value_kinds(sentence: str) -> frozenset[str]:
    """The kinds of value ``sentence`` carries: ``money``, ``percent``, ``time``,
    ``date``, ``unit:<word>``, ``number``, ``quoted``, ``name`` (see :func:`_names`),
    ``path``, ``id`` (empty: none)."""
    kinds: set[str] = set()
    low = sentence.lower()
    if _MONEY.search(sentence):
        kinds.add("money")
    if _PERCENT.search(sentence):
        kinds.add("percent")
    if _TIME.search(sentence):
        kinds.add("time")
    if _ISO_DATE.search(sentence) or _MONTH_DATE.search(low) or _WEEKDAY.search(low):
        kinds.add("date")
    # a number that is part of an amount, a share, a time or a date is that value; any
    # other number is a value of its own ("$450 ... within 30 days": money and unit:day)
    taken = _spans(sentence, (_MONEY, _PERCENT, _TIME, _ISO_DATE, _MONTH_DATE))
    for match in _NUMBER_UNIT.finditer(sentence):
        if _overlaps(match.span(), taken):
            continue
        unit = _unit(match)
        kinds.add(f"unit:{unit.lower().rstrip('s')}" if unit else "number")
    if _QUOTED.search(sentence):
        kinds.add("quoted")
    if _names(sentence):
        kinds.add("name")
    kinds.update(_id_kind(t) for t in _ids(sentence))
    return frozenset(kinds)


def _spans(sentence: str, patterns: Iterable[re.Pattern[str]]) -> list[tuple[int, int]]:
    """Where ``patterns`` match in ``sentence`` itself (not a lowercased copy, whose
    offsets shift when a letter lowercases to two: "İ")."""
    return [m.span() for pattern in patterns for m in pattern.finditer(sentence)]


def _overlaps(span: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    """``span`` overlaps one of ``spans``: a number that is part of a larger value."""
    return any(span[0] < b and a < span[1] for a, b in spans)


def _ids(sentence: str) -> list[str]:
    """The ids and paths of ``sentence``: distinctive strings with an id's characters,
    but not the digits of an amount ("7,275.51" of "7,275.51 EUR" is money, not an id)
    nor a date ("2025-07-24"); an email address whole ("bob@example.com", not its
    domain alone: two people at one company are two values)."""
    amounts = [m.group(0) for m in _MONEY.finditer(sentence)]
    emails = _EMAIL.findall(sentence)
    return [*emails, *(d for d in distinctive_strings(sentence)
                       if _ID_CHARS.search(d) and not any(d in a for a in amounts)
                       and not any(d in e for e in emails) and not _ISO_DATE.fullmatch(d))]


def _unit(match: re.Match[str]) -> str | None:
    """The unit of a :data:`_NUMBER_UNIT` match: the word after the number, unless it is a
    grammar word ("4,930 under", "948579 was": the number stands alone) or one letter."""
    unit = match.group(1)
    if not unit or len(unit) < 2 or unit.lower() in _STOP or unit.lower() in _BINDING:
        return None
    return unit


def _id_kind(value: str) -> str:
    """``path`` (a file path or an address with slashes) or ``id``: a new value for a
    thing has the shape of the old one, so an order number in a sentence is not taken
    for the path a later one changes."""
    return "path" if "/" in value or "\\" in value else "id"


def _names(sentence: str) -> list[str]:
    """Proper names: runs of two or more capitalised words ("Margit Halvorsen"), or one
    capitalised word inside the sentence ("answer in Czech"); months, weekdays and the
    word "I" left out ("Use June 2nd" names nobody)."""
    out = []
    for m in _NAME.finditer(sentence):
        words = [w for w in m.group(0).replace("-", " ").split()
                 if w.lower() not in _CALENDAR]
        inside = m.start() > 0 and sentence[:m.start()].strip()[-1:] not in ".!?:,"
        if len(words) >= 2 or (words and inside):
            out.append(" ".join(words))
    return out


def _is_trivial(sentence: str) -> bool:
    return len(_words(sentence)) <= TRIVIAL_WORDS and not value_kinds(sentence)


def standing_content(text: str) -> list[str]:
    """The sentences of one user message that still stand once it is compressed:
    all but courtesies and exact repeats, verbatim but for an opening aside
    (:func:`without_aside`), in order."""
    seen: set[str] = set()
    out: list[str] = []
    for s in _with_antecedents(sentences(text), text):
        if _is_trivial(s):
            continue
        s = without_aside(s)  # "Also, keep it under 5 MB." carries "keep it under 5 MB."
        s = without_coda(s)
        if s in seen:
            continue
        seen.add(s)
        out.append(s)
    return out


_BACK = frozenset(("it", "its", "it's", "it’s", "itself", "them"))
"""Pronouns that point back at a thing: a sentence with one may bind what the one
before it named ("Let me flag the v10.6.1 release for you. Please don't modify it.")."""


def _with_antecedents(found: list[str], text: str) -> list[str]:
    """``found`` (the sentences of ``text``), with each that binds and points back
    (:data:`_BACK`) but has no value joined, verbatim, to the sentence before it on its
    line when that one has a value: "Let me flag the v10.6.1 release for you." alone
    keeps the value and loses the rule ("Please don't modify it."). The other way round
    ("Dug through my emails and found the account number. It's AC-5.") is left apart:
    the longer lines cost 0.006 of the planted items at a fifth of a chat session."""
    out: list[str] = []
    for s in found:
        if (out and _BACK.intersection(w.lower() for w in _words(s)) and _binds(s)
                and not value_kinds(s) and value_kinds(out[-1])
                and (joined := f"{out[-1]} {s}") in text):  # on one line, as said
            out[-1] = joined
        else:
            out.append(s)
    return out


@lru_cache(maxsize=8192)
def priority(sentence: str, *, repeated: bool = False, update: bool = False) -> int:
    """Higher first when a note cannot hold every sentence: values and binding words
    (negation, modal verbs, a limit on a value: "under 370 MB") raise it; a question
    without a value ("what's next?"), a short remark without one, a pattern the user
    repeats with other numbers (``repeated``: "it's 5:31 here", "it's 5:56 here") and a
    remark about the moment ("today", "right now") that is not an ``update`` of an
    earlier statement lower it."""
    words = [w.lower() for w in _words(sentence)]
    kinds = value_kinds(sentence)
    score = (3 if kinds else 0) + (2 if _binds(sentence) else 0)
    if kinds and (_ADDRESSEE.intersection(words) or _imperative(sentence)):
        score += 1
    if kinds == {"number"}:
        score -= 1  # a bare count with nothing to say what of is weak evidence
    if sentence.rstrip().endswith("?") and not kinds:
        score -= 2
    if len(words) <= 4 and not kinds:
        score -= 1
    if repeated and not update:
        score -= 3
    if not update and _DEIXIS.search(sentence) and not kinds & _STABLE:
        score -= 1
    return score


_OBJECT = frozenset("""
the a an it them me us this that these those my our your his her their all every any each
""".split())  # noqa: SIM905 - a word list reads better as text
"""Determiners and object pronouns: what comes after a verb in the imperative ("give it
TCK-2", "cap the spend at $5")."""
_CLAUSE_OPENERS = frozenset(("so", "then", "and", "please", "pls", "just", "kindly", "also",
                             "always", "simply"))
"""Words a request may open with before its verb ("so call the project X")."""
_CLAUSE = re.compile(r"[,;:]\s+|\s+-\s+")
_HEDGE = frozenset("""
if unless until when whenever while once should except only but though although whether
""".split())  # noqa: SIM905 - a word list reads better as text
"""Subordinators and contrast (closed classes): a closing clause with one limits or
conditions what went before, and a sentence that opens with one ("If it would go over
$5, stop and ask me first") has its main clause last: either way the close stays."""


@lru_cache(maxsize=8192)
def _imperative(sentence: str) -> bool:
    """A clause with a value in the imperative mood: it opens with a word of no closed
    class (grammar words, auxiliaries, prepositions, conjunctions, words for a time; not
    an "-ing" or "-ed" form) and then a determiner or a pronoun ("If a tool wants the
    ticket, give it TCK-2", "so call the project X", "Cap the number of workers at 5"):
    said to the assistant, as "you" and "please" are, with no lexicon of verbs."""
    for clause in _CLAUSE.split(sentence[_lead_in_end(sentence):]):
        words = [_APOSTROPHE.sub("'", w.lower()) for w in _words(clause)]
        while words and words[0] in _CLAUSE_OPENERS:
            words = words[1:]
        if len(words) < 2 or words[1] not in _OBJECT or not value_kinds(clause):
            continue
        first = words[0]
        if (first.isalpha() and not first.endswith(("ing", "ed"))
                and not {first} & (_STOP | _FINITE | _TOPIC | _CONJUNCTIONS | _HEDGE
                                   | _TIME_WORDS | _CALENDAR)):
            return True
    return False


@lru_cache(maxsize=8192)
def _binds(sentence: str) -> bool:
    """A negation, a modal verb, "have to", or a limit or comparison on a value ("under
    370 MB", "no higher than 5"); but not a negated quantity ("not much time left"),
    "only" before a number ("only 13% of the tickets": a quantity in focus) or a modal
    verb in a condition ("if you need to reach me"): grammar that does not bind. A
    typographic apostrophe, as phones and word processors write it ("don’t"), is one."""
    words = [_APOSTROPHE.sub("'", w.lower()) for w in _words(sentence)]
    condition = {w.lower() for m in _CONDITION.finditer(sentence) for w in _words(m[0])}

    def binding(k: int, word: str) -> bool:
        after = words[k + 1] if k + 1 < len(words) else ""
        if word in _LIMITS:
            return _value_follows(words, k)
        if word in ("have", "has"):
            return after == "to"
        if word in _NEGATION or word.endswith("n't"):
            return after not in _QUANTIFIERS
        if word not in _BINDING:
            return False
        return not (word == "only" and after[:1].isdigit()) and word not in condition

    return any(binding(k, w) for k, w in enumerate(words)) or bool(
        value_kinds(sentence) and _COMPARATIVE.search(sentence))


_QUANTIFIERS = frozenset(("much", "many", "enough", "all", "every", "quite", "too", "very",
                          "yet"))
"""After a negation, these make it a quantity ("not much", "not all"), not a rule."""
_CONDITION = re.compile(r"\b(?:if|in case)\b[^,;:.!?]*", re.I)
"""A condition clause, up to its comma: a modal verb in it says when, not what must be."""


_STABLE = frozenset(("id", "path", "name"))
"""Values that name a thing rather than measure the moment: an id, a path or a name said
"now" ("the support case is now TCK-89300", "call me Ingrid Mbeki now") is what the thing
is from then on, where a count
or a time said "now" ("21 people waiting", "it's 5:31 here") is a reading of the moment."""


def _value_follows(words: Sequence[str], k: int) -> bool:
    """A number comes within three words after ``words[k]`` ("under $ 500", "over 370")."""
    return any(any(ch.isdigit() for ch in w) for w in words[k + 1:k + 4])


@lru_cache(maxsize=8192)
def _pattern(sentence: str) -> str:
    """``sentence`` with its numbers blanked out: what a repeated remark keeps."""
    return " ".join("#" if any(ch.isdigit() for ch in w) else w.lower()
                    for w in _words(sentence))


_ASIDE = re.compile(r"[^,;:.!?]+,\s+")
LEAD_IN_WORDS = 5
"""An opening phrase of at most this many words, set off by a comma, with no value, no
verb that makes it a clause and no word that binds ("Reading back through the thread,
...", "Heads up, ...", "Also, ..."), is an aside: it says how the sentence comes, not
what it is about ("The vendor meeting has changed, ..." is a clause: its subject counts;
"Never, ever ..." binds)."""
_FINITE = frozenset("""
is are was were be been am has have had do does did will would can could shall should
may might must
""".split())  # noqa: SIM905 - a word list reads better as text
"""Auxiliary and modal verbs, a closed class: with one (or a contraction: "it's", "I've")
a phrase is a clause with a subject."""


def _lead_in_end(sentence: str) -> int:
    """Where ``sentence`` starts once its opening asides (:data:`LEAD_IN_WORDS`) are
    left out; 0 when it has none."""
    end = 0
    while (m := _ASIDE.match(sentence, end)) and m.end() < len(sentence):
        words = [w.lower() for w in _words(m[0])]
        if (not words or len(words) > LEAD_IN_WORDS or value_kinds(m[0])
                or _APOSTROPHE.search(m[0])
                or _FINITE.intersection(words) or _BINDING.intersection(words)):
            break  # a value, a clause, or a word that binds ("Never, ever touch prod")
        end = m.end()
    return end


def without_aside(sentence: str) -> str:
    """``sentence`` without its opening asides (:func:`_lead_in_end`) when what is left
    says something on its own: "keep it under 5 MB." of "Also, keep it under 5 MB."; the
    sentence as it is when the opening may be a request ("Cc me, please": a word that
    points, or nothing much left), names the topic or a change (:data:`_TOPIC`) or the
    rest hangs on it ("Finance signed off, so ...")."""
    end = _lead_in_end(sentence)
    if not end:
        return sentence
    rest = sentence[end:]
    opening = [w.lower() for w in _words(sentence[:end])]
    if (_is_trivial(rest) or _POINTING.intersection(opening) or opening[0] in _TOPIC
            or _CHANGE.search(sentence[:end])
            or next(iter(_words(rest)), "").lower() in _CONJUNCTIONS):
        return sentence
    return rest


_CODA = re.compile(r"[,;]\s+(?=[^,;]*$)")
CODA_WORDS = 6
"""A closing clause of at most this many words, after a comma, may be left out (see
:func:`without_coda`)."""


def without_coda(sentence: str) -> str:
    """``sentence`` without the closing clauses, after a comma, that add nothing it would
    be kept for (", that was decided upstairs", ", personally", ", whatever happens",
    ", right?"): short, with no value, nothing that binds, asks, conditions or corrects,
    after a part that has the value and at least two words of its own for what the value
    is about ("ORD-5, that's the order in question" stays whole), does not open with a
    condition, and ranks no lower alone. A note at a tenth of the session has room for
    few lines; the original sentence stays reloadable."""
    opening = next(iter(_words(sentence)), "").lower()
    if opening in _HEDGE:
        return sentence
    while m := _CODA.search(sentence):
        rest, coda = sentence[:m.start()], sentence[m.end():]
        words = [w.lower() for w in _words(coda)]
        if (not value_kinds(rest) or len(_content_words(rest)) < 2
                or len(words) > CODA_WORDS or value_kinds(coda) or _binds(coda)
                or _HEDGE.intersection(words) or _ADDRESSEE.intersection(words)
                or _CHANGE.search(coda) or (words[:1] == ["so"] and not _binds(rest))
                or priority(rest) < priority(sentence)):
            break
        sentence = rest
    return sentence


_POINTING = frozenset("""
it me us you him her them this that these those here there
""".split())  # noqa: SIM905 - a word list reads better as text
"""Pronouns, which point at something: an opening with one ("Cc me, ...", "Ship it,
...") may be the request itself."""
_TOPIC = frozenset("""
about as for on regarding concerning re with in at to from by of after before during
""".split())  # noqa: SIM905 - a word list reads better as text
"""Prepositions: an opening with one may name the topic ("As for the payment, can I use
the same card?") or when ("After the call, ..."), so it stays; so does one with a word
of change ("Actually, ...", :data:`_CHANGE`), which marks an update."""
_CONJUNCTIONS = frozenset(("and", "or", "but", "so", "then", "yet", "nor", "because", "since"))
"""A rest that opens with one hangs on the opening ("Finance signed off, so ...")."""


@lru_cache(maxsize=8192)
def _phrases(sentence: str) -> frozenset[tuple[str, str]]:
    """The pairs of neighbouring words in ``sentence`` that hold a content word (four
    letters or more, not a grammar word): what names the thing a value is about ("the
    planned", "planned downtime"), whatever the rest of the sentence says. A value
    breaks the run, with the unit after a number ("under 281 seconds" pairs nothing: the
    words belong to the value, not to what it is about), and a contraction counts as its
    first word ("that's" is "that"). An opening aside (:func:`_lead_in_end`: "Reading back
    through the thread, ...") says how the sentence comes, not what it is about."""
    values = _value_letters(distinctive_strings(sentence))
    out: set[tuple[str, str]] = set()
    before, unit_next = "", False
    for token in _words(sentence[_lead_in_end(sentence):]):
        word = token.lower()
        if token[0].isdigit() or word in values or unit_next:
            before, unit_next = "", token[0].isdigit()
            continue
        word = _APOSTROPHE.split(word)[0].rstrip("s")
        if before and (_content(before) or _content(word)):
            out.add((before, word))
        before = word
    return frozenset(out)


def supersedes(later: str, earlier: str, *,
               df: Mapping[tuple[str, str], int] | None = None) -> bool:
    """``later`` gives a new value for what ``earlier`` set.

    ``later`` must carry a value of every kind ``earlier`` does (so ``earlier`` holds
    nothing ``later`` would lose), they must share a word pair that names the thing
    ("the planned downtime ... 222 minutes", "the planned downtime is now 125 minutes")
    and that few other statements of the conversation use (``df``: in how many it
    occurs; a pair in more than :data:`SUBJECT_MAX_DF` is a way of speaking, not a
    subject, and a pair with a grammar word, "the export", in more than one fewer, and
    only between two sentences that both negate or neither and when one of them says no
    content word the other does not ("try not to skip saving the exports to X" and "the
    export lands in Y" are two things, and so are "the contact email changed this morning
    to X" and "the database host changed this morning to Y", which share a frame, not a
    subject; :func:`likely_updates` weighs such pairs instead); a pair with a word of
    change, "new value", names nothing, and neither does one of a frame after the values
    when the words before them differ, :func:`_other_heads`), and
    their ids must be of one kind when both have ids (``ORD-56113`` does not replace
    ``GB869939294``). A later sentence that says every value of ``earlier`` again is a
    restatement, and replaces it too, whatever its words: one of them is enough.
    """
    kinds, old_kinds = value_kinds(later), value_kinds(earlier)
    if not old_kinds or not old_kinds <= kinds:
        return False
    old_values = _values(earlier)
    if old_values and old_values <= _values(later):
        return True  # every value said again: a restatement, whatever the wording
    ids, old_ids = _id_shapes(later), _id_shapes(earlier)
    if ids and old_ids and not ids & old_ids:
        return False  # an order number and a VAT number: two things, whatever the words
    # a pair with a word of change ("new value", "changed to") says that, not of what
    shared = {pair for pair in _phrases(later) & _phrases(earlier)
              if not any(_CHANGE.fullmatch(word) for word in pair)}
    if not shared or _other_heads(later, earlier):
        return False
    words, old_words = _content_words(later), _content_words(earlier)
    one_frame = _negated(later) == _negated(earlier) and (
        _covered(words, old_words) or _covered(old_words, words))
    return any((df or {}).get(pair, 1) <= SUBJECT_MAX_DF - (not _naming(pair))
               and (_naming(pair) or one_frame) for pair in shared)


def _other_heads(later: str, earlier: str) -> bool:
    """Both name something before their first value, and not one word of it alike: the
    pairs they share come after the values, in a frame they are said in ("... going
    forward", "... wherever you've got it written down"), or in a label both open with
    ("new exit criteria: monthly churn ..." and "new exit criteria: test coverage ..."),
    not in what they are about."""
    labelled = _labelled(later) and _labelled(earlier)
    head, old_head = _head(later, labelled), _head(earlier, labelled)
    return bool(head and old_head) and not any(
        _same_word(a, b) for a in head for b in old_head)


def _before_value(sentence: str) -> str:
    at = min((i for v in _values(sentence) if (i := sentence.find(v)) >= 0), default=0)
    return sentence[:at]


def _labelled(sentence: str) -> bool:
    """Content words come between a colon and the first value."""
    _, colon, rest = _before_value(sentence).rpartition(": ")
    return bool(colon and _content_words(rest))


@lru_cache(maxsize=8192)
def _head(sentence: str, after_label: bool = False) -> frozenset[str]:
    """The content words of ``sentence`` before its first value (after its label, one
    that ends in a colon, if ``after_label``)."""
    before = _before_value(sentence)
    return _content_words(before.rpartition(": ")[2] if after_label else before)


def _covered(words: frozenset[str], by: frozenset[str]) -> bool:
    """Every one of ``words`` is one of ``by`` (:func:`_same_word`)."""
    return all(any(_same_word(a, b) for b in by) for a in words)


_NOT_DENYING = (
    re.compile(r"(?:,|\b(?:and|but|or))\s+not\b", re.I),
    re.compile(r"\b(?:not|never|no(?:\s+more)?|\w+n['’]t)\s+(?:to\s+)?(?:forget|fail|skip|stop|"
               r"miss|neglect|omit)\w*\s+(?:to|before|until|\w+ing)\b", re.I),
    re.compile(r"\b(?:not|never|\w+n['’]t)\s+\w+\s+(?:how|what|which|whether|where|when|who)\b",
               re.I),
    re.compile(r"\b(?:not|never|no|\w+n['’]t)\b(?=[^,;:.!?]*\b(?:until|without)\b)", re.I),
)
"""Negations that do not deny the sentence: a "not" that sets one phrase against another
("it's TCK-2, not what I told you"); one before a verb of leaving undone, which together
say to do it ("don't forget to copy X", "no more forgetting to sign as Y", "try not to
skip booking to Y", "don't stop before v2 is out"; "don't stop the server" still denies);
one before a verb and a question word, which leaves a choice open ("paid by Friday, I
don't mind how you get there"); and "not ... until" or "no ... until", which says when
something is done ("we can't close this out until INV-2 is paid", "no wrapping up until
the export lands in X": a goal), and "no ... without", a double negative that asks for
something ("no messages go out without copying X")."""


_DENYING_VERBS = frozenset(("refrain", "refrains", "avoid", "avoids", "avoiding"))
"""Verbs that deny what follows them ("refrain from writing to X"): a rule about X, not
a statement of it, when an update is matched (as a word that binds they ranked a note
no better: 0.848 to 0.843 of the planted items)."""


@lru_cache(maxsize=8192)
def _negated(sentence: str) -> bool:
    """A negation: "not", "never", "no", a "n't" (those :data:`_NOT_DENYING` aside), or a
    verb that denies (:data:`_DENYING_VERBS`)."""
    for pattern in _NOT_DENYING:
        sentence = pattern.sub(",", sentence)
    return any(w in _NEGATION or w in _DENYING_VERBS or w.endswith(("n't", "n’t"))
               for w in (w.lower() for w in _words(sentence)))


_ID_SHAPE = re.compile(r"([A-Za-z]+[-_]?)(?=\d)|([a-z]+-)(?=[a-z]+-[a-z]+$)")
"""An id's leading letters: ``ORD-`` of ``ORD-37067``, ``triage-`` of
``triage-piston-basalt``."""


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


@lru_cache(maxsize=8192)
def _id_shapes(sentence: str) -> frozenset[str]:
    """What kind of id each id of ``sentence`` is, by its leading letters (``ord-``,
    ``gb``), its count of parts for dotted numbers (:data:`_DOTTED`), its domain for a
    host name (``.internal`` of ``osprey-34.internal``, whose leading letters are a
    name, not a kind) or ``@`` for an email address: a new value for
    a thing has the shape of the old one, so a later order number does not replace a VAT
    number, whatever the words around them share."""
    emails = _EMAIL.findall(sentence)
    out = {"@"} if emails else set()
    for d in distinctive_strings(sentence):
        if any(d in e for e in emails) or "/" in d:
            continue
        if host := _HOST.search(d):
            out.add(host[0].lower())
        elif m := _ID_SHAPE.match(d):
            out.add((m.group(1) or m.group(2)).lower())
        elif _DOTTED.fullmatch(d):
            out.add(_DIGIT_RUN.sub("9", d))
    return frozenset(out)


_HOST = re.compile(r"\.[A-Za-z]{2,}$")
"""The domain a host name ends in (``.internal``, ``.com``)."""


def _naming(pair: tuple[str, str]) -> bool:
    """Both words are content words ("planned downtime"): a stronger name for one thing
    than a pair with a grammar word ("the export"), which two items can share."""
    return all(map(_content, pair))


def _content(word: str) -> bool:
    """A content word: four letters or more, not a grammar word, not a word for a time
    or for changing ("changed this morning to", "small change:" say when or that, not
    what: two updates of different things share them)."""
    return (len(word) >= 4 and word not in _STOP and word not in _TIME_WORDS
            and not _CHANGE.fullmatch(word))


@lru_cache(maxsize=8192)
def _values(sentence: str) -> frozenset[str]:
    """The values of ``sentence`` as written: ids and paths, numbers with the word after
    them ("370 MB"), amounts, dates, names."""
    out = set(_ids(sentence))
    whole = _spans(sentence, (_MONEY, _TIME, _ISO_DATE, _DAY_OF_MONTH))
    out.update(sentence[a:b].strip() for a, b in whole)
    for m in _NUMBER_UNIT.finditer(sentence):
        if _overlaps(m.span(), whole):
            continue
        number = m.group(0)[:m.start(1) - m.start()] if m.group(1) else m.group(0)
        out.add(" ".join(filter(None, (number.strip().rstrip(".,"), _unit(m)))))
    out.update(_names(sentence))
    return frozenset(out)


@lru_cache(maxsize=8192)
def _content_words(sentence: str) -> frozenset[str]:
    """The content words of ``sentence`` (:func:`_content`), the values (a number's unit
    too: "3.7 seconds") and a contraction's second part left out: what it is about, in
    its words (an opening aside left out, as :func:`_phrases` does)."""
    rest = sentence[_lead_in_end(sentence):]
    for value in sorted({*distinctive_strings(sentence), *_names(sentence)}, key=len,
                        reverse=True):
        rest = rest.replace(value, " ")
    rest = _NUMBER_UNIT.sub(lambda m: " " if _unit(m) or not m.group(1) else f" {m.group(1)}",
                            rest)
    out = set()
    for token in _words(rest):
        word = _APOSTROPHE.split(token.lower())[0]
        if not token[0].isdigit() and _content(word.rstrip("s")) and word not in _BINDING:
            out.add(word)
    return frozenset(out)


def _value_letters(values: Iterable[str]) -> set[str]:
    """The words of ``values`` ("walrus" and "labs" of ``github.com/walrus-labs``),
    lowercased: they belong to the value, not to what the sentence is about."""
    return {w.lower() for value in values for w in _LETTERS.findall(value)}


def _same_word(a: str, b: str) -> bool:
    """One word, give or take an ending ("retries", "retry") or a slip of the keys: two
    letters swapped ("spend", "sepnd")."""
    if a == b:
        return True
    if len(a) == len(b) and sorted(a) == sorted(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 2
    common = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                  min(len(a), len(b)))
    return common >= max(4, min(len(a), len(b)) - 2)


_CHANGE = re.compile(r"\b(?:now|new|instead|anymore|actually|rather|wrong|mistake|moved|"
                     r"chang\w*|correct\w*|revis\w*|updat\w*|switch\w*|"
                     r"from \w+(?: \w+)? on|as of)\b", re.I)
"""Words that mark a change or a repair ("now", "instead", "actually", "from here on", "as of",
"changed", "revised"): English adverbs and the words for changing, one signal among
those :func:`likely_updates` weighs, never enough alone."""
_TIME_UNITS = frozenset(("second", "minute", "hour", "day", "week", "month", "year"))
_QUANTITIES = frozenset(("number", "money", "percent", "time", "date"))
LIKELY_EVIDENCE = 2
"""The evidence (:func:`_update_match`) from which a later statement likely updates an
earlier one."""
LIKELY_RANK = 2
"""The most an earlier statement ranks once a later one likely updates it: the least of
what binds or carries a value. It stays above chatter, in case the link is wrong (about
one in ten joins two things), but below everything else worth keeping."""
UPDATE_BONUS = 2
"""Priority steps a statement gains for giving a new value: the user said that thing
twice, and the new value is what stands. Two steps, not one: at a fifth of a chat
session, 493 latest values of 500 stood where one step kept 487 (phrasings no rule was
designed on), for 0.005 fewer planted items kept in two families; three steps cost 0.04."""
CHANGE_BONUS = 1
"""Priority steps for a value said in words of change ("new max is 143 seconds", "I
changed my mind; put X as the signature") that no earlier statement was found for: most
updates that share no word with what they replace say that they change something. One
step, not :data:`UPDATE_BONUS`: the words also come in things said once ("the new plan",
"I'd rather not"); at a fifth of a chat session (100 sessions in each of four families),
1,998 latest values of 2,000 stood where none kept 1,996, and 1,995 where 1,986 on the next
100 seeds, survival the same or up to 0.003 higher; two steps cost 0.006 to 0.009."""
_KEY_MAX_DF = 8
"""A unit, an id's shape or a word in more statements than this finds no candidates."""


def likely_updates(statements: Sequence[Statement], *,
                   replaced: Mapping[tuple[int, ...], Iterable[tuple[int, ...]]] | None = None
                   ) -> dict[tuple[int, ...], tuple[int, ...] | None]:
    """For each statement that likely gives a new value, in words of its own, for what
    one earlier statement set, the order of that earlier one (``None``: several earlier
    ones fit it equally well, so which one it updates is not known): an update
    :func:`supersedes` cannot tell ("the ticket for this is TCK-1" ... "the support case
    is now TCK-2"; "keep the planned downtime under 222 minutes" ... "any maintenance
    outage can now go as high as 199 minutes").

    Weaker evidence than :func:`supersedes` asks for, so nothing is dropped for it: the
    earlier one ranks no higher than :data:`LIKELY_RANK` and the later one at least as
    high as it did (:func:`scores`), unless it gave a new value itself: the user corrected
    that one already, and weak evidence does not demote the latest value of a thing.
    The two must be each other's best match (one later statement, one earlier; of equal
    evidence, the one that shares more of the subject's words, and of a statement and those
    it replaced, ``replaced`` as :func:`latest` found it, the latest), and neither pasted; a
    later statement that fits several equally still ranks as an update, and demotes none
    of them."""
    if replaced is None:
        replaced = _latest(tuple(statements))[1]
    first: dict[str, Statement] = {}  # of equal statements the first, as :func:`latest`
    for s in sorted(statements, key=lambda s: s.order):
        first.setdefault(s.text, s)
    valued = [s for s in first.values() if not s.pasted and value_kinds(s.text)]
    df: Counter[str] = Counter(w for s in valued for w in _content_words(s.text))
    index: dict[str, list[int]] = {}
    found: dict[tuple[int, int], tuple[int, int]] = {}
    in_part: set[tuple[int, int]] = set()  # links to one part of a line run on
    for j, late in enumerate(valued):
        keys = _update_keys(late.text)
        near = {i for k in keys if len(index.get(k, ())) <= _KEY_MAX_DF
                for i in index.get(k, ())}
        for i in sorted(near):
            # (evidence, subject words shared): of equal evidence, the more shared wins
            if (match := _update_match(late.text, valued[i].text, df))[0] >= LIKELY_EVIDENCE:
                found[(j, i)] = match
            elif (match := _part_match(late.text, valued[i].text, df))[0] >= LIKELY_EVIDENCE:
                found[(j, i)] = match
                in_part.add((j, i))
        for k in keys:
            index.setdefault(k, []).append(j)
    best_earlier: dict[int, tuple[tuple[int, int], list[int]]] = {}
    best_later: dict[int, tuple[tuple[int, int], list[int]]] = {}
    for (j, i), match in found.items():
        for best, me, other in ((best_earlier, j, i), (best_later, i, j)):
            top = best.get(me)
            if top is None or match > top[0]:
                best[me] = (match, [other])
            elif match == top[0]:
                top[1].append(other)  # a tie: no one best match, unless one thing

    def one(others: list[int]) -> int | None:
        # of a statement and the ones it replaced (a restatement), the latest stands
        said = {valued[k].order: k for k in others}
        left = set(said) - {o for k in said for o in replaced.get(k, ())}
        return said[left.pop()] if len(left) == 1 else None

    out: dict[tuple[int, ...], tuple[int, ...] | None] = {}
    for j, (_, others) in best_earlier.items():
        earlier = one(others)
        if earlier is None or one(best_later[earlier][1]) == j:
            out[valued[j].order] = (None if earlier is None or (j, earlier) in in_part
                                    else valued[earlier].order)
    return out


_LETTER_RUN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+")
_DIGIT_RUN = re.compile(r"\d+")


@lru_cache(maxsize=8192)
def _forms(sentence: str) -> frozenset[str]:
    """The written form of each value without an id's leading letters (:func:`_id_shapes`):
    letters as ``a`` (``Aa`` capitalised), digits as ``9``, the rest as it is. A path
    and its replacement, a time zone, a CamelCase name or an IP address keep their form
    (``tests/a_a``, ``Aa/Aa``, ``AaAa``, ``9.9.9.9``): weak evidence of one thing, not
    a condition, as a value may change its form (``s3://...`` to ``/srv/...``)."""
    out = set()
    emails = _EMAIL.findall(sentence)  # an address's parts are not values of their own
    for value in [*_ids(sentence), *(n for n in _names(sentence) if " " not in n)]:
        if _ID_SHAPE.match(value) or any(value in e for e in emails):
            continue
        form = _DIGIT_RUN.sub("9", _LETTER_RUN.sub(
            lambda m: "Aa" if m[0][0].isupper() and m[0][1:].islower() and len(m[0]) > 1
            else "a", value))
        if form not in ("a", "Aa", "9"):  # a bare word or number has no form to share
            out.add(form)
    return frozenset(out)


def _update_keys(sentence: str) -> set[str]:
    """What a statement and its update may share: a unit, an amount, a share or a name,
    an id's shape, a value's form, a word (by its first four letters, and by its letters, for a
    slip of the keys)."""
    keys = {k for k in value_kinds(sentence)
            if k.startswith("unit:") or k in ("money", "percent", "name")}
    keys.update(f"id:{shape}" for shape in _id_shapes(sentence))
    keys.update(f"form:{form}" for form in _forms(sentence))
    for word in _content_words(sentence):
        keys.update((f"w:{word[:4]}", f"l:{''.join(sorted(word))}"))
    return keys


def _update_match(later: str, earlier: str, df: Mapping[str, int]) -> tuple[int, int]:
    """How strongly ``later`` looks like a new value for what ``earlier`` set, and how many
    of the subject's words they share (:func:`_shared_subject`, which breaks a tie).

    The evidence is 0 when its
    values could not stand for ``earlier``'s (a kind missing, ids of another shape, a
    restatement, or a rule and a plain statement about one id); else an id shape they
    share (2, an email address 1), a unit (2, a unit of time 1), an amount or a share
    (1), a name for what a name alone set, said in words of change (1), a value's
    written form (1, :func:`_forms`), each content word they share that
    few statements use (1), and a word of change in ``later`` (1, with other evidence
    only)."""
    kinds, old_kinds = value_kinds(later), value_kinds(earlier)
    if not old_kinds <= kinds or _values(earlier) <= _values(later):
        return 0, 0  # a kind missing, or every value said again: a restatement
    shapes, old_shapes = _id_shapes(later), _id_shapes(earlier)
    if shapes and old_shapes and not shapes & old_shapes:
        return 0, 0
    quantity = any(k in _QUANTITIES or k.startswith("unit:") for k in old_kinds)
    if not quantity and _negated(later) != _negated(earlier):
        return 0, 0  # "never refund ORD-1" and "the refund for ORD-2 has gone through"
    evidence = sum(1 if shape == "@" else 2 for shape in shapes & old_shapes)
    evidence += len(_forms(later) & _forms(earlier))
    evidence += len({"money", "percent"} & kinds & old_kinds)
    if old_kinds == {"name"} and "name" in kinds and _CHANGE.search(later):
        evidence += 1  # a name, said anew in words of change ("call me X instead")
    for kind in {k for k in kinds & old_kinds if k.startswith("unit:")}:
        evidence += 1 if kind[5:] in _TIME_UNITS else 2
    subject = _shared_subject(later, earlier, df)
    evidence += subject
    if evidence and _says_change(later):
        evidence += 1
    return evidence, subject


def _part_match(later: str, earlier: str, df: Mapping[str, int]) -> tuple[int, int]:
    """:func:`_update_match` of ``later`` and the best part of ``earlier``, a line that
    runs two statements together (:data:`_PART_CUT`) with a kind of value ``later`` does
    not say ("... may not exceed 46 workers; ... the spend on contractors has a hard
    ceiling of 4,505.88 EUR" ... "the ceiling on contractor costs has moved to $7,465");
    (0, 0) when no part matches better than the whole."""
    if value_kinds(earlier) <= value_kinds(later):
        return 0, 0
    return max((_update_match(later, part, df) for part in _parts(earlier)
                if not _is_trivial(part)), default=(0, 0))


_ELAPSED = re.compile(rf"\b\d[\d,.]*\s?(?:{'|'.join(sorted(_TIME_UNITS))})s?\s+now\b", re.I)
"""A length of time up to now ("on hold for 31 minutes now"): time gone by, not a word
of change."""


def _says_change(sentence: str) -> bool:
    """A word of change (:data:`_CHANGE`), time gone by (:data:`_ELAPSED`) aside."""
    return bool(_CHANGE.search(_ELAPSED.sub(" ", sentence)))


def _shared_subject(later: str, earlier: str, df: Mapping[str, int]) -> int:
    """The content words of ``earlier`` that few statements use (at most
    :data:`SUBJECT_MAX_DF`) and ``later`` says too, give or take a slip of the keys."""
    words = _content_words(later)
    return sum(1 for b in _content_words(earlier) if df.get(b, 1) <= SUBJECT_MAX_DF
               and any(_same_word(a, b) for a in words))


@dataclass(frozen=True, slots=True)
class Statement:
    """One sentence the user said, and when (for ordering and the latest value)."""

    text: str
    order: tuple[int, ...]
    """Sorts the statements of a conversation in the order they were said."""
    pasted: bool = False
    """It comes from text the user pasted (a log, an email, a policy: many lines), which
    they refer to rather than say: it goes after what they said themselves."""


def statements_of(message: Message) -> list[Statement]:
    """What ``message`` (a user turn) says that stands, in order: the lines of a note
    ctxmgr wrote (read back as the user's words), else its standing content."""
    text = message.text
    at, header = next(((text.find(h), h) for h in _HEADERS if h in text), (-1, ""))
    if at >= 0:
        lines = []
        for line in without_record(text[at + len(header):]).splitlines():
            line = line.strip()
            if _NOTE_COUNT.match(line) or OFFLOAD_TAG_RE.search(line):
                break
            if line:  # a line each (notes written before had a "- " bullet)
                lines.append(line[2:] if line.startswith("- ") else line)
        return [Statement(t, (k,)) for k, t in enumerate(lines)]
    if sum(bool(line.strip()) for line in text.splitlines()) <= PASTE_LINES:
        return [Statement(t, (k,)) for k, t in enumerate(standing_content(text))]
    out: list[Statement] = []  # a long message: the pasted part, and what the user wrote
    paragraphs = [p for p in _PARAGRAPH.split(text) if p.strip()]
    short = [sum(bool(line.strip()) for line in p.splitlines()) <= OWN_LINES
             and len(p) <= OWN_CHARS for p in paragraphs]
    # the user's words around the paste: the first paragraph, and after the paste's
    # last long one (a log, an email's body) all that follow, else the last
    after = max((n for n, s in enumerate(short) if not s), default=len(paragraphs) - 2)
    for n, paragraph in enumerate(paragraphs):
        own = short[n] and (n == 0 or n > after)
        out.extend(Statement(t, (len(out),), not own) for t in standing_content(paragraph))
    return out


def latest(statements: Iterable[Statement]) -> list[Statement]:
    """``statements`` deduplicated (the first of equal ones), with every one that a
    later one (or a part of a later line that ran two together, :func:`_parts`)
    :func:`supersedes` left out, and of a line that ran two together the part a later
    one replaced (:func:`_rest_not_replaced`), in order."""
    return _latest(tuple(statements))[0]


def _latest(statements: tuple[Statement, ...]
            ) -> tuple[list[Statement], dict[tuple[int, ...], set[tuple[int, ...]]]]:
    """:func:`latest`, and for each statement that replaced others, whole or in part,
    the orders of all it replaced (and what those had replaced whole).

    A statement can only replace one it shares a value or a word pair with (see
    :func:`supersedes`), so each is checked against those alone, found through an index:
    a chat that pastes a log every turn has thousands of statements."""
    ordered = sorted(statements, key=lambda s: s.order)
    df: Counter[tuple[str, str]] = Counter()
    value_df: Counter[str] = Counter()
    for text in {s.text for s in ordered}:
        df.update(_phrases(text))
        value_df.update(_values(text))
    out: dict[tuple[int, ...], Statement] = {}  # in order; a replaced one is removed
    by_key: dict[object, set[tuple[int, ...]]] = {}
    replaced: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    seen: set[str] = set()
    for s in ordered:
        if s.text in seen:
            continue
        seen.add(s.text)
        if not value_kinds(s.text):  # it neither replaces nor can be replaced
            out[s.order] = s
            continue
        # a pair more statements share than SUBJECT_MAX_DF names no subject: no key; a
        # restatement says every value of the one it replaces, so its rarest is enough
        pairs = [p for p in _phrases(s.text) if df[p] <= SUBJECT_MAX_DF]
        values = _values(s.text)
        candidates = {o for k in [*pairs, *values] for o in by_key.get(k, ())}
        parts = tuple(_parts(s.text)) if candidates else ()  # each cut once, not per candidate
        for o in sorted(candidates):
            old = out.get(o)
            if old is None:
                continue
            if supersedes(s.text, old.text, df=df) or any(
                    supersedes(part, old.text, df=df) for part in parts):
                del out[o]
                replaced.setdefault(s.order, set()).update((o, *replaced.get(o, ())))
            elif (rest := _rest_not_replaced(s.text, old.text, df)) is not None:
                out[o] = Statement(rest, old.order, old.pasted)
                replaced.setdefault(s.order, set()).add(o)
        out[s.order] = s
        rarest = [min(values, key=lambda v: (value_df[v], v))] if values else []
        for k in [*pairs, *rarest]:
            by_key.setdefault(k, set()).add(s.order)
    return list(out.values()), replaced


_PART_CUT = re.compile(r"[,;]\s+|(?<=[a-z])\s+(?=[A-Z][\w'’-]*,?\s+[a-z])")
"""Where one statement may end and the next begin in a line run on without a full stop:
after a comma or a semicolon, before a capitalised word between lowercase ones ("... 22,348
rows so yeah I find ...", "... each time Ultimately, this is ..."; not inside "20:15
UTC" or "Fenella Nakamura")."""


def _run_on_parts(line: str) -> Iterator[tuple[str, str]]:
    """Each way to cut ``line`` in two at a :data:`_PART_CUT` that splits no value."""
    # every value but a capitalised word (which may open the part after the cut)
    values = {v for v in _values(line) if " " in v or v not in _names(line)}
    for cut in _PART_CUT.finditer(line):
        head, tail = line[:cut.start()].strip(), line[cut.end():].strip()
        if values <= _values(head) | _values(tail):
            yield head, tail


def _parts(line: str) -> Iterator[str]:
    """Each side of each cut of a line that ran statements together (:func:`_run_on_parts`):
    a later line "order ORD-7 is refunded Scratch that, our VAT number is GB2" replaces
    "our VAT number is GB9" through its second part."""
    for head, tail in _run_on_parts(line):
        yield head
        yield tail


def _rest_not_replaced(later: str, earlier: str,
                       df: Mapping[tuple[str, str], int]) -> str | None:
    """What is left of ``earlier`` when ``later`` replaces a part of it: ``earlier`` ran
    two statements together and holds a kind of value ``later`` does not say (so
    :func:`supersedes` cannot drop it whole), and one side of a cut (:data:`_PART_CUT`)
    is what ``later`` gives a new value for. The rest is kept verbatim, the replaced value
    goes; ``None``: no part of it is replaced."""
    if value_kinds(earlier) <= value_kinds(later):
        return None
    for head, tail in _run_on_parts(earlier):
        for part, rest in ((head, tail), (tail, head)):
            if (not _is_trivial(rest) and not _values(part) & _values(rest)
                    and supersedes(later, part, df=df)):
                return rest
    return None


def scores(statements: Sequence[Statement], *, among: Sequence[Statement] = ()
           ) -> dict[tuple[int, ...], int]:
    """:func:`priority` of each statement (by order): a pasted one loses three steps; one
    whose pattern recurs among ``statements`` and ``among`` (say, the statements a later
    value replaced) counts as repeated, and one that replaced a statement of those in
    words of its own, or binding, as an update (:func:`_is_update`). An update ranks at
    least as high as what it replaced: "the planned downtime is now capped at 125
    minutes" carries on the rule "don't let the planned downtime go above 228 minutes".
    One a later statement likely updates (or what says it again since) steps down to
    :data:`LIKELY_RANK`, unless it gave a new value itself (of the links onto such a
    value in the generated sessions, 20 of 21 were wrong: "the API timeout stays under 25
    seconds" onto "the goal is now a page load under 4.9 seconds")."""
    pool = (*statements, *among)
    patterns = Counter(_pattern(text) for text in {s.text for s in pool})
    replaced = _latest(pool)[1]
    text_of = {s.order: s.text for s in pool}
    # what is left of a line a later one replaced in part (:func:`latest`) keeps the
    # line's order: it is scored for its own words, not for the value that went
    own = {s.order: priority(s.text, repeated=patterns[_pattern(s.text)] > 1,
                             update=_is_update(s.text, [text_of[o] for o in
                                                        replaced.get(s.order, ())]))
           - (3 if s.pasted else 0)
           for s in (*among, *statements)}
    # what replaced each statement last: a likely update of a statement said again
    # since is one of what says it now
    now = {o: new for new, olds in sorted(replaced.items()) for o in olds}
    gone = now.keys()
    likely = {a: b for a, b in ((a, b if b is None else now.get(b, b)) for a, b in
                                likely_updates(pool, replaced=replaced).items())
              if b is None or (b not in gone and b < a)}
    changed = {s.order for s in statements if s.order in likely or any(
        _values(text_of[e]) - _values(s.text) for e in replaced.get(s.order, ()))}
    said_anew = {s.order for s in statements if s.order not in changed and not s.pasted
                 and value_kinds(s.text) and _says_change(s.text)}
    out = {}
    for s in statements:
        earlier = [*replaced.get(s.order, ())]
        if (one := likely.get(s.order)) is not None:
            earlier.append(one)
        score = max([own[s.order], *(own[o] for o in earlier)])
        out[s.order] = score + (UPDATE_BONUS if s.order in changed
                                else CHANGE_BONUS if s.order in said_anew else 0)
    for later, earlier_one in likely.items():
        if (later in out and earlier_one is not None and earlier_one in out
                and earlier_one not in changed):
            out[earlier_one] = min(out[earlier_one], LIKELY_RANK)
    return out


def _is_update(text: str, replaced: Sequence[str]) -> bool:
    """``text``, which replaced the statements ``replaced``, changes what stands: said in
    words of its own ("the planned downtime is now capped at 125 minutes" after "don't
    let it go above 228 minutes"), or binding ("keep the discount under 17%" after "keep
    the discount under 29%"). The same words with another number and nothing binding are
    a reading taken again ("the queue shows 16 people waiting"), and rank as the repeated
    remark they are, binding or not when they speak of the moment ("it's 5:20 here, so
    not much time left")."""
    return bool(replaced) and (any(_pattern(o) != _pattern(text) for o in replaced)
                               or (_binds(text) and not _DEIXIS.search(text)))


INSTRUCTION_RANK = 4
"""From this :func:`scores` up a statement is an instruction: a value said to the
assistant, or one that binds. A note that cannot hold every instruction holds the most
priority it can: instructions go by the characters they take per step of priority above
:data:`LIKELY_RANK` (a rule that binds a value said to the assistant, 6, before a
request with a value, 4, unless it is twice as long). At a tenth of a chat session 0.42
and 0.39 of the planted items survive where rank, then recency kept 0.38 and 0.36, with
about as many safety rules (0.55 and 0.44, from 0.57 and 0.44). Below, the higher score
first, and of equal scores the most recent, as a plain statement of a value may be an
update no link was found for (shorter first there lost 4 more latest values of 2,000 at
a fifth of the session)."""


def _rank(score: int) -> int:
    """Where a statement of ``score`` stands in :func:`select`: higher first; every
    instruction (:data:`INSTRUCTION_RANK` and up) alike."""
    return min(score, INSTRUCTION_RANK)


def select(statements: Sequence[Statement], max_chars: int, *,
           among: Sequence[Statement] = (),
           score: Mapping[tuple[int, ...], int] | None = None
           ) -> tuple[list[Statement], int]:
    """The statements that fit ``max_chars``, highest :func:`_rank` first (instructions by
    characters per step of priority, :data:`INSTRUCTION_RANK`; other ties by recency),
    shown in their original order, and how many were left out. Once one does not fit,
    none of lower rank is taken: room is not filled with chatter.
    ``among``: other statements of the conversation, to tell repeated remarks;
    ``score``: their :func:`scores`, when the caller has them already (a note sized
    to its room selects from the same statements several times)."""
    score = scores(statements, among=among) if score is None else score
    newest_first = sorted(statements, key=lambda s: s.order, reverse=True)
    ranked = sorted(newest_first, key=lambda s: (  # stable: other ties by recency
        -_rank(score[s.order]),
        len(s.text) / (score[s.order] - LIKELY_RANK) if score[s.order] >= INSTRUCTION_RANK
        else 0))
    kept: list[Statement] = []
    size = 0
    floor: int | None = None  # the rank of the first statement that did not fit
    for s in ranked:
        if floor is not None and _rank(score[s.order]) < floor:
            break
        cost = len(s.text) + 1  # its line
        if size + cost > max_chars:
            floor = _rank(score[s.order]) if floor is None else floor
            continue
        kept.append(s)
        size += cost
    kept.sort(key=lambda s: s.order)
    return kept, len(statements) - len(kept)
