"""How a user says what must stand: subjects, phrasings and updates, in two families.

A selection that keeps "what the user said" must work on sentences it has never
seen, so it is designed on one family of phrasings (``"design"``) and checked on
another (``"heldout"``) that shares no template with it. Each item type has the
same structural forms in both families (imperative, first-person statement,
conditional, polite request, question, passive, modal, casual lowercase,
embedded in a reason, value first, several sentences with a pronoun, ...), each
written differently, so the held-out family tests wording, not a new grammar.

A template names fields of its item type's subjects (``{subj}``, ``{target}``,
``{state}``, ``{do}`` ...; a capitalised name, ``{Subj}``, is the same field with a
capital first letter) and ``{v}``, the value. :func:`render` fills them and then
applies a style (lowercase, a typo, no final punctuation) to every word but the
value, which always stays verbatim.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ctxmgr.replay.instructions.values import ValueKind

__all__ = [
    "FAMILIES",
    "ITEM_TYPES",
    "SUBJECTS",
    "TEMPLATES",
    "UPDATABLE",
    "UPDATES",
    "Family",
    "ItemType",
    "Subject",
    "Template",
    "pick_style",
    "render",
]

ItemType = Literal["safety", "constraint", "fact", "goal", "preference"]
ITEM_TYPES: tuple[ItemType, ...] = ("safety", "constraint", "fact", "goal", "preference")
UPDATABLE: tuple[ItemType, ...] = ("constraint", "fact", "goal", "preference")
"""Types whose value a user changes later (a cap, a fact, a target, a preference); a
safety rule is never "updated": a second protected target is a second rule."""
Family = Literal["design", "heldout"]
FAMILIES: tuple[Family, ...] = ("design", "heldout")

_SENTINEL = "\x00"  # where the value goes while the style is applied


@dataclass(frozen=True, slots=True)
class Subject:
    """What an item is about: its template fields (``{v}`` marks the value) and the kind
    of value it takes."""

    type: ItemType
    value: ValueKind
    fields: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Template:
    """One phrasing: its text, family and structural form (or update style)."""

    text: str
    family: Family
    form: str


def _subjects(type_: ItemType, names: tuple[str, ...],
              rows: tuple[tuple[str, ...], ...]) -> tuple[Subject, ...]:
    return tuple(Subject(type=type_, value=row[-1], fields=dict(zip(names, row[:-1],
                                                                    strict=True)))
                 for row in rows)


SUBJECTS: dict[ItemType, tuple[Subject, ...]] = {
    "safety": _subjects("safety", ("act", "acting", "acted", "target", "pron"), (
        ("write to", "writing to", "written to", "the {v} database", "it", "host"),
        ("push to", "pushing to", "pushed to", "the {v} branch", "it", "branch"),
        ("delete", "deleting", "deleted", "anything under {v}", "anything there", "dir"),
        ("restart", "restarting", "restarted", "the server {v}", "it", "host"),
        ("refund", "refunding", "refunded", "order {v}", "it", "order"),
        ("email", "emailing", "emailed", "the customer at {v}", "them", "email"),
        ("drop", "dropping", "dropped", "the {v} table", "it", "table"),
        ("cancel", "cancelling", "cancelled", "subscription {v}", "it", "subscription"),
        ("share", "sharing", "shared", "the secrets in {v}", "them", "file"),
        ("touch", "touching", "touched", "the {v} cluster", "it", "cluster"),
        ("call", "calling", "called", "the number {v}", "it", "phone"),
        ("modify", "modifying", "modified", "the {v} release", "it", "version"),
    )),
    "constraint": _subjects("constraint", ("subj", "alt"), (
        ("the refund on any single order", "a single refund", "money"),
        ("the discount we give", "any discount", "percent"),
        ("the monthly ad budget", "ad spending per month", "money"),
        ("the import batch size", "each import batch", "count:rows"),
        ("the API timeout", "the request timeout", "count:seconds"),
        ("the number of retries", "retry attempts", "count:attempts"),
        ("the length of your replies", "any answer you write", "count:words"),
        ("the attachment size", "each uploaded file", "count:MB"),
        ("the number of parallel workers", "concurrent workers", "count:workers"),
        ("the planned downtime", "any maintenance outage", "count:minutes"),
        ("the hotel rate", "the nightly room price", "money"),
        ("the price increase", "how much prices go up", "percent"),
        ("the daily email volume", "emails sent per day", "count:emails"),
        ("the spend on contractors", "contractor costs", "money"),
    )),
    "fact": _subjects("fact", ("subj", "alt"), (
        ("my account number", "the number on my account", "account"),
        ("the order in question", "the order we're talking about", "order"),
        ("the staging server's IP", "the staging address", "ip"),
        ("the customer's name", "the person on the account", "name"),
        ("the config file", "the settings file we use", "file"),
        ("the on-call engineer", "whoever is on call this week", "name"),
        ("the ticket for this", "the support case", "ticket"),
        ("the warehouse code", "the shipping depot's code", "warehouse"),
        ("the release we're on", "the deployed version", "version"),
        ("our VAT number", "the tax id on invoices", "vat"),
        ("the repository", "the repo we work in", "repo"),
        ("the contact email", "the address for questions", "email"),
        ("the maintenance window", "the slot for maintenance", "time"),
        ("the vendor meeting", "the call with the vendor", "date"),
        ("the primary database host", "the main database", "host"),
    )),
    "goal": _subjects("goal", ("state", "alt_state"), (
        ("every test in {v} passes", "{v} is fully green", "suite"),
        ("p95 latency is below {v}", "the slowest 5% of requests finish within {v}",
         "count:ms"),
        ("invoice {v} is marked as paid", "{v} shows as settled", "invoice"),
        ("the database is on {v}", "migrations are applied up to {v}", "schema"),
        ("the refund for order {v} has gone through", "order {v} is refunded", "order"),
        ("version {v} is tagged and released", "{v} is out", "version"),
        ("the backlog is down to {v}", "no more than {v} remain", "count:tickets"),
        ("test coverage reaches {v}", "coverage is at {v} or more", "percent"),
        ("the report is in {v}'s inbox", "{v} has the report", "name"),
        ("the landing page loads in under {v}", "page load time is below {v}",
         "count:load"),
        ("monthly churn is under {v}", "fewer than {v} of customers cancel each month",
         "percent"),
        ("all {v} are on the new plan", "the {v} have moved to the new plan",
         "count:customers"),
        ("the export lands in {v} every night", "{v} gets the nightly export", "dir"),
    )),
    "preference": _subjects("preference", ("do", "doing", "alt"), (
        ("address me as {v}", "addressing me as {v}", "call me {v}", "name"),
        ("sign the replies as {v}", "signing the replies as {v}",
         "put {v} as the signature", "name"),
        ("send the summaries to {v}", "sending the summaries to {v}",
         "have the summaries go to {v}", "email"),
        ("give all times in {v}", "giving all times in {v}", "show times in the {v} zone",
         "timezone"),
        ("answer in {v}", "answering in {v}", "write to me in {v}", "language"),
        ("tag the tickets with {v}", "tagging the tickets with {v}",
         "put the label {v} on tickets", "tag"),
        ("keep summaries to {v}", "keeping summaries to {v}",
         "make summaries no longer than {v}", "count:bullets"),
        ("send the daily update at {v}", "sending the daily update at {v}",
         "have the daily update arrive at {v}", "time"),
        ("book expenses to cost center {v}", "booking expenses to cost center {v}",
         "charge expenses to {v}", "cost_center"),
        ("call the project {v}", "calling the project {v}", "refer to the project as {v}",
         "codename"),
        ("save the exports to {v}", "saving the exports to {v}", "put the exports in {v}",
         "dir"),
        ("copy {v} on anything urgent", "copying {v} on anything urgent",
         "loop in {v} when something is urgent", "email"),
    )),
}


def _pairs(rows: Mapping[str, tuple[str, str]]) -> tuple[Template, ...]:
    """Templates from ``{form: (design text, held-out text)}``."""
    return tuple(Template(text=text, family=family, form=form)
                 for form, pair in rows.items()
                 for family, text in zip(FAMILIES, pair, strict=True))


TEMPLATES: dict[ItemType, tuple[Template, ...]] = {
    "safety": _pairs({
        "negative imperative": ("Never {act} {target}.",
                                "Do not {act} {target} under any circumstances."),
        "first person": ("I don't want anyone {acting} {target}.",
                         "I need you to stay away from {acting} {target}."),
        "conditional": ("If a step would {act} {target}, stop and ask me first.",
                        "Unless I say so in this chat, {acting} {target} is not allowed."),
        "polite request": ("Please don't {act} {target}, whatever happens.",
                           "Would you kindly avoid {acting} {target}."),
        "question": ("Can you promise me you won't {act} {target}?",
                     "You won't {act} {target}, right? That one is critical."),
        "passive": ("{Target} must never be {acted}.",
                    "{Target} is not to be {acted} by anyone but me."),
        "modal": ("Nobody should {act} {target}.",
                  "You mustn't {act} {target}, not even to test something."),
        "casual": ("pls dont {act} {target}", "srsly no {acting} {target} ok"),
        "reason": ("Last time someone tried {acting} {target} we lost a day, so that's "
                   "off limits.",
                   "We had an incident in the spring, which is why {acting} {target} is "
                   "forbidden."),
        "topic first": ("{Target}: hands off, no {acting} {pron} at all.",
                        "As for {target}, that stays untouched, so no {acting} {pron}."),
        "pronoun": ("There's one thing to remember about {target}. Don't ever {act} {pron}.",
                    "Heads up, {target} belongs to another team. We never {act} {pron}."),
        "always": ("Always leave {target} alone; {acting} {pron} is out of the question.",
                   "Make sure {target} stays exactly as it is, no {acting} {pron}."),
    }),
    "constraint": _pairs({
        "imperative": ("Keep {subj} under {v}.", "Cap {subj} at {v}."),
        "negative imperative": ("Don't let {subj} go above {v}.",
                                "Do not exceed {v} on {subj}."),
        "first person": ("I can't sign off on {subj} above {v}.",
                         "We have a hard limit of {v} on {subj}."),
        "conditional": ("If {subj} would go over {v}, stop and ask me first.",
                        "Should {subj} ever need to pass {v}, check with me before doing "
                        "anything."),
        "polite request": ("Could you please make sure {subj} stays at or below {v}?",
                           "Would you mind keeping {subj} below {v}, please."),
        "question": ("Can we keep {subj} to {v} at most?",
                     "Is there any way to hold {subj} under {v}? That's the ceiling."),
        "passive": ("{Subj} is capped at {v}.", "{Subj} has been limited to {v} by finance."),
        "modal": ("{Subj} must never be more than {v}.",
                  "{Subj} shouldn't go past {v} under any circumstances."),
        "casual": ("max {v} for {subj} pls", "{subj} cant go over {v} btw"),
        "reason": ("Because of the budget review, {subj} has to stay below {v}.",
                   "Finance flagged it again, so {subj} needs to stay under {v} from here "
                   "on."),
        "value first": ("{v} is the most we can do on {subj}.",
                        "Nothing above {v} for {subj}, full stop."),
        "pronoun": ("One more thing about {subj}. It can't be higher than {v}.",
                    "About {subj}: I talked to my manager. Anything past {v} is a no."),
    }),
    "fact": _pairs({
        "statement": ("{Subj} is {v}.", "For reference, {subj} is {v}."),
        "first person": ("I looked it up: {subj} is {v}.",
                         "I've got {subj} right here, it's {v}."),
        "value first": ("{v} is {subj}.", "{v}, that's {subj}."),
        "conditional": ("If you need {subj}, it's {v}.",
                        "In case anything asks for {subj}, use {v}."),
        "polite request": ("Please note down {subj}: {v}.",
                           "Could you remember that {subj} is {v}?"),
        "question": ("Did I mention {subj} is {v}?", "You have {subj}, right? It's {v}."),
        "passive": ("{Subj} was set to {v} when we onboarded.",
                    "{Subj} has been registered as {v}."),
        "casual": ("{subj} = {v} fyi", "oh and {subj}'s {v}"),
        "embedded": ("The portal finally loaded, and it shows {subj} as {v}.",
                     "My colleague just confirmed that {subj} is {v}, so we're good there."),
        "pronoun": ("Found the paperwork. {Subj} is {v}. Sorry it took a while.",
                    "Okay, I checked twice. It's {v}, that's {subj}."),
        "imperative": ("Use {v} as {subj} from now on.", "Whenever {subj} comes up, it's {v}."),
        "appositive": ("We're dealing with {subj}, {v}, so keep that handy.",
                       "The thing to keep in mind is that {subj} is {v} and not what the old "
                       "docs say."),
    }),
    "goal": _pairs({
        "statement": ("The goal is that {state}.", "What I want at the end is that {state}."),
        "completion": ("We're done when {state}.", "This is finished only once {state}."),
        "first person": ("Success for me means {state}.", "I'll call it a win if {state}."),
        "conditional": ("If {state} by the end, we're good.",
                        "As long as {state} at the end, I'm happy."),
        "polite request": ("Please keep going until {state}.",
                           "Could you work on this until {state}?"),
        "question": ("Can we get to the point where {state}?",
                     "How soon can we get to where {state}? That's the target."),
        "passive": ("The work is considered complete once {state}.",
                    "It was agreed with the client that the job ends when {state}."),
        "casual": ("basically we need it so {state}, thats it",
                   "all i care about is that {state}"),
        "embedded": ("My boss asked again this morning; what matters is that {state}.",
                     "The board meets next week and they expect that {state}."),
        "pronoun": ("Let me be clear about the target. By the end, {state}.",
                    "Here's the finish line. {State}. Nothing else counts."),
        "aim": ("I need to get to where {state}.", "My aim is simple: {state}."),
        "negative": ("Don't stop before {state}.", "We can't close this out until {state}."),
    }),
    "preference": _pairs({
        "statement": ("I'd prefer you {do}.", "I prefer it when you {do}."),
        "imperative": ("{Do}, please.", "Always {do}."),
        "first person": ("I like it best if you {do}.", "It works better for me when you {do}."),
        "conditional": ("If it's all the same to you, {do}.", "When you write to me, {do}."),
        "polite request": ("Would you mind {doing}?", "Could you {do} from now on?"),
        "question": ("Can you {do}? That suits me better.", "Any chance you could {do}?"),
        "nominal": ("{Doing} would be appreciated.", "My preference has always been {doing}."),
        "casual": ("pls {do} going forward", "oh also {do}, thx"),
        "reason": ("My team reads these on their phones, so {do}.",
                   "It's easier for the auditors if you {do}."),
        "pronoun": ("Small request. {Do}.",
                    "Quick note on style. I'm used to you {doing}. Let's keep it that way."),
        "negative": ("Don't forget to {do}.", "Try not to skip {doing}."),
        "habit": ("From here on, {do}.", "Going forward, make a habit of {doing}."),
    }),
}

UPDATES: dict[ItemType, tuple[Template, ...]] = {
    # "same": the subject's own words come back; "rephrased": other words, no pronoun
    "constraint": (
        Template(text="Change of plan: {subj} is now capped at {v}.", family="design",
                 form="same"),
        Template(text="Update on {subj}: the new limit is {v}.", family="design", form="same"),
        Template(text="{Subj} goes to {v} as of today.", family="design", form="same"),
        Template(text="Good news, {alt} can now go as high as {v}.", family="design",
                 form="rephrased"),
        Template(text="Finance signed off, so {alt} may reach {v}.", family="design",
                 form="rephrased"),
        Template(text="We're revising {subj}, keep it under {v} from now on.",
                 family="heldout", form="same"),
        Template(text="new number for {subj}: {v}", family="heldout", form="same"),
        Template(text="Please treat {v} as the limit for {subj} from here.", family="heldout",
                 form="same"),
        Template(text="New ceiling for {alt}: {v}.", family="heldout", form="rephrased"),
        Template(text="From this week {alt} can be up to {v}, no more.", family="heldout",
                 form="rephrased"),
    ),
    "fact": (
        Template(text="Correction: {subj} is actually {v}.", family="design", form="same"),
        Template(text="I had {subj} wrong, the right one is {v}.", family="design",
                 form="same"),
        Template(text="{Subj} changed this morning to {v}.", family="design", form="same"),
        Template(text="They reissued {alt}, it's {v} now.", family="design", form="rephrased"),
        Template(text="Heads up, {alt} is now {v}.", family="design", form="rephrased"),
        Template(text="{Subj} has changed, it's now {v}.", family="heldout", form="same"),
        Template(text="sorry, my mistake, {subj} should be {v}", family="heldout",
                 form="same"),
        Template(text="Turns out {subj} is {v}, not what I told you.", family="heldout",
                 form="same"),
        Template(text="Please use {v} for {alt} from here on.", family="heldout",
                 form="rephrased"),
        Template(text="The system now lists {v} as {alt}.", family="heldout",
                 form="rephrased"),
    ),
    "goal": (
        Template(text="The target moved: we're done when {state}.", family="design",
                 form="same"),
        Template(text="New finish line, we stop once {state}.", family="design", form="same"),
        Template(text="Let's aim differently now; what counts is that {alt_state}.",
                 family="design", form="rephrased"),
        Template(text="Revised goal: {alt_state}.", family="design", form="rephrased"),
        Template(text="Scrap the old target, success now means {state}.", family="heldout",
                 form="same"),
        Template(text="after the call, the goal is that {state}", family="heldout",
                 form="same"),
        Template(text="The client changed the ask, so what we need now is that {alt_state}.",
                 family="heldout", form="rephrased"),
        Template(text="What matters now is that {alt_state}.", family="heldout",
                 form="rephrased"),
    ),
    "preference": (
        Template(text="Actually, {do} instead.", family="design", form="same"),
        Template(text="Change of preference: please {do}.", family="design", form="same"),
        Template(text="On second thought, {alt}.", family="design", form="rephrased"),
        Template(text="Going forward I'd rather you {alt}.", family="design",
                 form="rephrased"),
        Template(text="Small change: {do} from now on.", family="heldout", form="same"),
        Template(text="scratch what I said before, {do}", family="heldout", form="same"),
        Template(text="I changed my mind; {alt}, please.", family="heldout",
                 form="rephrased"),
        Template(text="Better to {alt} now.", family="heldout", form="rephrased"),
    ),
}

_TYPO_WORD = re.compile(r"\b[A-Za-z]{5,}\b")
Style = Literal["plain", "lowercase", "no final punctuation", "typo"]
STYLES: tuple[tuple[Style, float], ...] = (
    ("plain", 0.55), ("lowercase", 0.15), ("no final punctuation", 0.15), ("typo", 0.15))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _styled(text: str, style: Style, rng: random.Random) -> str:
    if style == "lowercase":
        return text.lower().rstrip(".")
    if style == "no final punctuation":
        return text.rstrip(".!")
    if style == "typo":
        words = list(_TYPO_WORD.finditer(text))
        if words:
            w = rng.choice(words)
            i = rng.randrange(1, len(w.group()) - 2)
            s = w.group()
            swapped = s[:i] + s[i + 1] + s[i] + s[i + 2:]
            return text[:w.start()] + swapped + text[w.end():]
    return text


def pick_style(rng: random.Random) -> Style:
    """A style, mostly ``plain``."""
    styles, weights = zip(*STYLES, strict=True)
    return rng.choices(styles, weights)[0]


def render(template: Template, subject: Subject, value: str, *, style: Style = "plain",
           rng: random.Random | None = None) -> str:
    """``template`` said about ``subject`` with ``value``; ``style`` changes every word but
    the value, which stays verbatim."""
    fields: dict[str, str] = {"v": _SENTINEL}
    for name, text in subject.fields.items():
        text = text.replace("{v}", _SENTINEL)
        fields[name] = text
        fields[_capital(name)] = _capital(text)
    text = template.text.format(**fields)
    text = _styled(text, style, rng or random.Random(0))
    return text.replace(_SENTINEL, value)
