"""The closed classes of English words the rules read: negation, modal verbs, the
prepositions that set a limit, pronouns, determiners, words of time and of change.

Grammar words, not phrasings: a rule built on them holds for sentences the rules were
never shown, where a list of instruction phrasings would not."""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d.,:/%-]*")

_NEGATION = frozenset(("never", "not", "no", "nor", "cannot", "dont"))
"""Negation (and every word ending in "n't"): a closed class of grammar words."""
# Grammar words (closed classes), not phrasings: what makes a sentence bind (negation,
# modal verbs, "at most", the prepositions that set a limit).
_BINDING = _NEGATION | frozenset("""
must should shall always only need needs required require requires most least
under below above over within beyond
""".split())  # noqa: SIM905 - a word list reads better as text
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
_TIME_WORDS = frozenset(("morning", "afternoon", "evening", "night", "tonight", "today",
                         "tomorrow", "yesterday", "week", "month", "year", "minute", "hour",
                         "moment", *_WEEKDAYS))
"""Words that say when (singular: :func:`_phrases` strips a plural ``s``)."""
_LETTERS = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_APOSTROPHE = re.compile(r"['’]")


def _words(sentence: str) -> list[str]:
    return _WORD.findall(sentence)


_OBJECT = frozenset("""
the a an it them me us this that these those my our your his her their all every any each
""".split())  # noqa: SIM905 - a word list reads better as text
"""Determiners and object pronouns: what comes after a verb in the imperative ("give it
TCK-2", "cap the spend at $5")."""
_CLAUSE_OPENERS = frozenset(("so", "then", "and", "please", "pls", "just", "kindly", "also",
                             "always", "simply"))
"""Words a request may open with before its verb ("so call the project X")."""
_HEDGE = frozenset("""
if unless until when whenever while once should except only but though although whether
""".split())  # noqa: SIM905 - a word list reads better as text
"""Subordinators and contrast (closed classes): a closing clause with one limits or
conditions what went before, and a sentence that opens with one ("If it would go over
$5, stop and ask me first") has its main clause last: either way the close stays."""


_QUANTIFIERS = frozenset(("much", "many", "enough", "all", "every", "quite", "too", "very",
                          "yet"))
"""After a negation, these make it a quantity ("not much", "not all"), not a rule."""
_FINITE = frozenset("""
is are was were be been am has have had do does did will would can could shall should
may might must
""".split())  # noqa: SIM905 - a word list reads better as text
"""Auxiliary and modal verbs, a closed class: with one (or a contraction: "it's", "I've")
a phrase is a clause with a subject."""


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


_CHANGE = re.compile(r"\b(?:now|new|instead|anymore|actually|rather|wrong|mistake|moved|"
                     r"chang\w*|correct\w*|revis\w*|updat\w*|switch\w*|"
                     r"from \w+(?: \w+)? on|as of)\b", re.I)
"""Words that mark a change or a repair ("now", "instead", "actually", "from here on", "as of",
"changed", "revised"): English adverbs and the words for changing, one signal among
those :func:`likely_updates` weighs, never enough alone."""
_TIME_UNITS = frozenset(("second", "minute", "hour", "day", "week", "month", "year"))
_QUANTITIES = frozenset(("number", "money", "percent", "time", "date"))


_ELAPSED = re.compile(rf"\b\d[\d,.]*\s?(?:{'|'.join(sorted(_TIME_UNITS))})s?\s+now\b", re.I)
"""A length of time up to now ("on hold for 31 minutes now"): time gone by, not a word
of change."""
