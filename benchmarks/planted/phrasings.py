"""How a user says what must stand: subjects, phrasings and updates, in four families.

A selection that keeps "what the user said" must work on sentences it has never
seen, so it is designed on one family of phrasings (``"design"``) and checked on
another (``"heldout"``) that shares no template with it. Two more were written later,
each by a writer who had not read the selection code: ``"probe"`` (longer, chattier
sentences; it showed the kinds of failure the closing-remark and imperative rules of
:mod:`ctxmgr.autocontext.standing` address) and ``"fresh"`` (a terse operations manager:
fragments, abbreviations, enterprise boilerplate), measured before any change was made
for it. Each item type has the same structural forms in every family (imperative,
first-person statement, conditional, polite request, question, passive, modal, casual lowercase,
embedded in a reason, value first, several sentences with a pronoun, ...), each
written differently, so the held-out, probe and fresh families test wording, not a
new grammar.

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

from planted.values import ValueKind

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
Family = Literal["design", "heldout", "probe", "fresh"]
FAMILIES: tuple[Family, ...] = ("design", "heldout", "probe", "fresh")

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


def _pairs(rows: Mapping[str, tuple[str, str, str, str]]) -> tuple[Template, ...]:
    """Templates from ``{form: (design text, held-out text, probe text, fresh text)}``."""
    return tuple(Template(text=text, family=family, form=form)
                 for form, pair in rows.items()
                 for family, text in zip(FAMILIES, pair, strict=True))


TEMPLATES: dict[ItemType, tuple[Template, ...]] = {
    "safety": _pairs({
        "negative imperative": ("Never {act} {target}.",
                                "Do not {act} {target} under any circumstances.",
                                "Whatever the logs end up telling you, don't go and {act} "
                                "{target}.",
                                "Not to {act} {target}, ever. Non-negotiable."),
        "first person": ("I don't want anyone {acting} {target}.",
                         "I need you to stay away from {acting} {target}.",
                         "I really can't have {target} {acted} today, not by you and not by any "
                         "script you kick off.",
                         "I do not approve {acting} {target}; my sign-off is mandatory for that "
                         "and I am not giving it this quarter."),
        "conditional": ("If a step would {act} {target}, stop and ask me first.",
                        "Unless I say so in this chat, {acting} {target} is not allowed.",
                        "If the thing you're about to run is going to {act} {target}, hold off "
                        "and check with me before it goes ahead.",
                        "If a job needs to {act} {target}: halt, raise ticket, wait for my go."),
        "polite request": ("Please don't {act} {target}, whatever happens.",
                           "Would you kindly avoid {acting} {target}.",
                           "I'd be grateful if you could refrain from {acting} {target}.",
                           "Kindly ensure no one is {acting} {target} during this engagement."),
        "question": ("Can you promise me you won't {act} {target}?",
                     "You won't {act} {target}, right? That one is critical.",
                     "Quick sanity check before we get going: we're agreed nobody is going to "
                     "{act} {target}, yeah?",
                     "Can you confirm {acting} {target} is out of scope for this task?"),
        "passive": ("{Target} must never be {acted}.",
                    "{Target} is not to be {acted} by anyone but me.",
                    "Under no circumstances is {target} going to be {acted} as part of this work.",
                    "{Target} shall not be {acted} per change-control policy."),
        "modal": ("Nobody should {act} {target}.",
                  "You mustn't {act} {target}, not even to test something.",
                  "You'd need my explicit OK to {act} {target}, and you won't be getting it this "
                  "week.",
                  "You should never be {acting} {target} - not your call to make."),
        "casual": ("pls dont {act} {target}", "srsly no {acting} {target} ok",
                   "oh and dont go {acting} {target} k",
                   "fyi {acting} {target} = nope"),
        "reason": ("Last time someone tried {acting} {target} we lost a day, so that's "
                   "off limits.",
                   "We had an incident in the spring, which is why {acting} {target} is "
                   "forbidden.",
                   "{Acting} {target} set off a compliance review last quarter and I'd rather "
                   "not go through that again, so it's not happening.",
                   "Due to audit finding last quarter, and per the access policy circulated by "
                   "the CISO office, {acting} {target} is now prohibited for all teams, agents "
                   "included."),
        "topic first": ("{Target}: hands off, no {acting} {pron} at all.",
                        "As for {target}, that stays untouched, so no {acting} {pron}.",
                        "Re {target}: it's frozen until further notice, so no {acting} {pron}.",
                        "{Target} - read-only. No {acting} {pron}."),
        "pronoun": ("There's one thing to remember about {target}. Don't ever {act} {pron}.",
                    "Heads up, {target} belongs to another team. We never {act} {pron}.",
                    "Let me flag {target} for you. Please don't {act} {pron}, even if some "
                    "runbook tells you to.",
                    "{Target} is owned by finance ops. You are not to {act} {pron}."),
        "always": ("Always leave {target} alone; {acting} {pron} is out of the question.",
                   "Make sure {target} stays exactly as it is, no {acting} {pron}.",
                   "At all times {target} stays as is; {acting} {pron} is never on the table.",
                   "Standing rule: {target} = no-touch zone 24/7, zero {acting} {pron}."),
    }),
    "constraint": _pairs({
        "imperative": ("Keep {subj} under {v}.", "Cap {subj} at {v}.",
                       "Limit {subj} to {v}.",
                       "Hold {subj} at max {v}."),
        "negative imperative": ("Don't let {subj} go above {v}.",
                                "Do not exceed {v} on {subj}.",
                                "Never allow {subj} to creep past {v}, even for one-offs.",
                                "No exceeding {v} on {subj} - not even one time, pls."),
        "first person": ("I can't sign off on {subj} above {v}.",
                         "We have a hard limit of {v} on {subj}.",
                         "I've been told in no uncertain terms that {subj} tops out at {v}, so I "
                         "need you to respect that.",
                         "My approval limit for {subj} is {v}; anything bigger needs VP sign-off "
                         "and that takes two weeks minimum, so please do not put me there."),
        "conditional": ("If {subj} would go over {v}, stop and ask me first.",
                        "Should {subj} ever need to pass {v}, check with me before doing "
                        "anything.",
                        "If you reckon {subj} needs to be more than {v}, flag it to me rather "
                        "than just doing it.",
                        "If {subj} > {v} -> escalate to me, do not proceed."),
        "polite request": ("Could you please make sure {subj} stays at or below {v}?",
                           "Would you mind keeping {subj} below {v}, please.",
                           "Would you be able to hold {subj} to no more than {v}? Thanks ever so "
                           "much.",
                           "Kindly ensure {subj} remains within {v} as per policy."),
        "question": ("Can we keep {subj} to {v} at most?",
                     "Is there any way to hold {subj} under {v}? That's the ceiling.",
                     "Could we agree on {v} as the upper bound for {subj}?",
                     "{Subj} within {v} - doable?"),
        "passive": ("{Subj} is capped at {v}.", "{Subj} has been limited to {v} by finance.",
                    "{Subj} is to be held at {v} or below, that was decided upstairs.",
                    "{Subj} is restricted to {v} (approved by CFO office)."),
        "modal": ("{Subj} must never be more than {v}.",
                  "{Subj} shouldn't go past {v} under any circumstances.",
                  "{Subj} may not exceed {v}; there's no wiggle room on that one.",
                  "{Subj} cannot exceed {v}, it is a compliance requirement."),
        "casual": ("max {v} for {subj} pls", "{subj} cant go over {v} btw",
                   "just fyi {subj} has a hard ceiling of {v} so yeah",
                   "{subj} max {v} k thx"),
        "reason": ("Because of the budget review, {subj} has to stay below {v}.",
                   "Finance flagged it again, so {subj} needs to stay under {v} from here "
                   "on.",
                   "Since the auditors are watching us closely this year, please hold {subj} to "
                   "{v} max.",
                   "Q4 cost freeze in effect, therefore {subj} stays within {v}."),
        "value first": ("{v} is the most we can do on {subj}.",
                        "Nothing above {v} for {subj}, full stop.",
                        "{v} tops for {subj}, and I mean tops.",
                        "{v} = hard cap for {subj}."),
        "pronoun": ("One more thing about {subj}. It can't be higher than {v}.",
                    "About {subj}: I talked to my manager. Anything past {v} is a no.",
                    "So {subj} came up in the budget meeting. We agreed it can't go beyond {v} "
                    "this cycle.",
                    "Item 2 - {subj}. It stays at {v} or lower, procurement agreed."),
    }),
    "fact": _pairs({
        "statement": ("{Subj} is {v}.", "For reference, {subj} is {v}.",
                      "{Subj} would be {v}.",
                      "{Subj}: {v}."),
        "first person": ("I looked it up: {subj} is {v}.",
                         "I've got {subj} right here, it's {v}.",
                         "I just pulled up the record and {subj} is showing as {v} on my end.",
                         "I have checked in SAP, {subj} is {v}."),
        "value first": ("{v} is {subj}.", "{v}, that's {subj}.",
                        "{v} is what you'll want for {subj}.",
                        "{v} - this is {subj}, pls note."),
        "conditional": ("If you need {subj}, it's {v}.",
                        "In case anything asks for {subj}, use {v}.",
                        "If a form or a tool wants {subj}, give it {v}.",
                        "If prompted for {subj}, enter {v}."),
        "polite request": ("Please note down {subj}: {v}.",
                           "Could you remember that {subj} is {v}?",
                           "Do me a favour and jot down {subj}, which is {v}.",
                           "Request you to keep {subj} on file: {v}."),
        "question": ("Did I mention {subj} is {v}?", "You have {subj}, right? It's {v}.",
                     "Have you got {subj} down as {v}? Because that's the right one.",
                     "{Subj} you have as {v}? Pls confirm."),
        "passive": ("{Subj} was set to {v} when we onboarded.",
                    "{Subj} has been registered as {v}.",
                    "{Subj} is listed as {v} in the admin console.",
                    "{Subj} is recorded in the CMDB as {v}."),
        "casual": ("{subj} = {v} fyi", "oh and {subj}'s {v}",
                   "{subj} is {v} i think? pretty sure yeah",
                   "btw {subj} -> {v}"),
        "embedded": ("The portal finally loaded, and it shows {subj} as {v}.",
                     "My colleague just confirmed that {subj} is {v}, so we're good there.",
                     "Sarah from accounts forwarded me an email this morning where she mentions "
                     "that {subj} is {v}, so let's go with that.",
                     "Finance team circulated the master data sheet yesterday evening after the "
                     "sync, and per that sheet {subj} is {v}."),
        "pronoun": ("Found the paperwork. {Subj} is {v}. Sorry it took a while.",
                    "Okay, I checked twice. It's {v}, that's {subj}.",
                    "Dug through my old emails and found {subj} in there. It's {v}.",
                    "Got {subj} from the vendor portal. It reads {v}."),
        "imperative": ("Use {v} as {subj} from now on.", "Whenever {subj} comes up, it's {v}.",
                       "Go with {v} whenever you need {subj}.",
                       "Put {v} wherever {subj} is needed."),
        "appositive": ("We're dealing with {subj}, {v}, so keep that handy.",
                       "The thing to keep in mind is that {subj} is {v} and not what the old "
                       "docs say.",
                       "Just bear in mind that {subj} ({v}) is the one we care about here.",
                       "{Subj}, i.e. {v}, is what we work with today."),
    }),
    "goal": _pairs({
        "statement": ("The goal is that {state}.", "What I want at the end is that {state}.",
                      "Ultimately, this is all about making sure {state}.",
                      "Objective: {state}."),
        "completion": ("We're done when {state}.", "This is finished only once {state}.",
                       "We can wrap this up the moment {state}.",
                       "Definition of done = {state}."),
        "first person": ("Success for me means {state}.", "I'll call it a win if {state}.",
                         "Honestly I'll sleep a lot better once {state}.",
                         "I will consider this delivered when {state}."),
        "conditional": ("If {state} by the end, we're good.",
                        "As long as {state} at the end, I'm happy.",
                        "Provided {state}, I don't mind how you get there.",
                        "If by Friday {state}, no further asks from my side."),
        "polite request": ("Please keep going until {state}.",
                           "Could you work on this until {state}?",
                           "Would you mind sticking with it until {state}? I know it's a slog.",
                           "Kindly continue the work till {state}."),
        "question": ("Can we get to the point where {state}?",
                     "How soon can we get to where {state}? That's the target.",
                     "Realistically, can we make sure {state} before the week's out?",
                     "ETA for when {state}?"),
        "passive": ("The work is considered complete once {state}.",
                    "It was agreed with the client that the job ends when {state}.",
                    "The ticket will be signed off once {state}, not before.",
                    "Deliverable is accepted by the steering group only when {state}, as per the "
                    "SOW signed in January."),
        "casual": ("basically we need it so {state}, thats it",
                   "all i care about is that {state}",
                   "end goal tldr {state} and we're golden",
                   "tgt = {state}, nothing else matters rly"),
        "embedded": ("My boss asked again this morning; what matters is that {state}.",
                     "The board meets next week and they expect that {state}.",
                     "The client phoned while you were busy and made it pretty clear they expect "
                     "that {state}.",
                     "Steering committee this morning, action item on us: ensure {state}."),
        "pronoun": ("Let me be clear about the target. By the end, {state}.",
                    "Here's the finish line. {State}. Nothing else counts.",
                    "There's really only one thing I'll check at the end. It's whether {state}.",
                    "One KPI matters for this task. It is met only when {state}."),
        "aim": ("I need to get to where {state}.", "My aim is simple: {state}.",
                "What we're shooting for is that {state}.",
                "Aiming for: {state}."),
        "negative": ("Don't stop before {state}.", "We can't close this out until {state}.",
                     "No wrapping up until {state}, okay?",
                     "Do not mark done before {state}."),
    }),
    "preference": _pairs({
        "statement": ("I'd prefer you {do}.", "I prefer it when you {do}.",
                      "I'm keen for you to {do}.",
                      "Standard for my team is you {do}."),
        "imperative": ("{Do}, please.", "Always {do}.",
                       "{Do} whenever it applies.",
                       "{Do}. Standard practice."),
        "first person": ("I like it best if you {do}.", "It works better for me when you {do}.",
                         "I find it much easier to follow along when you {do}.",
                         "I always want that you {do}."),
        "conditional": ("If it's all the same to you, {do}.", "When you write to me, {do}.",
                        "Whenever you get the chance, {do}.",
                        "If you send me anything, {do}."),
        "polite request": ("Would you mind {doing}?", "Could you {do} from now on?",
                           "I'd appreciate it if you could {do}.",
                           "Kindly {do} in all communications."),
        "question": ("Can you {do}? That suits me better.", "Any chance you could {do}?",
                     "Is it possible for you to {do} instead of the default?",
                     "Possible to {do}?"),
        "nominal": ("{Doing} would be appreciated.", "My preference has always been {doing}.",
                    "{Doing} is what I'd go for, personally.",
                    "{Doing} - mandatory for my reports."),
        "casual": ("pls {do} going forward", "oh also {do}, thx",
                   "ooh and can u {do} if poss",
                   "and {do} k? ty"),
        "reason": ("My team reads these on their phones, so {do}.",
                   "It's easier for the auditors if you {do}.",
                   "Half the team sits in another office and it trips them up otherwise, so {do}.",
                   "Our monthly SLA reporting pulls straight from these threads and the PMO "
                   "tooling breaks otherwise, so {do}."),
        "pronoun": ("Small request. {Do}.",
                    "Quick note on style. I'm used to you {doing}. Let's keep it that way.",
                    "Something I forgot to mention earlier. I'd like you to {do}. It saves me a "
                    "step.",
                    "Format thing from PMO side. They require that you {do} every time."),
        "negative": ("Don't forget to {do}.", "Try not to skip {doing}.",
                     "No more forgetting to {do}, please!",
                     "No messages going out without {doing}."),
        "habit": ("From here on, {do}.", "Going forward, make a habit of {doing}.",
                  "As a standing rule, {do} each time.",
                  "Every time from now: {do}."),
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
        Template(text="Quick revision on {subj}: it's {v} now, not what I said before.",
                 family="probe", form="same"),
        Template(text="ok so {subj} got bumped, new max is {v}", family="probe", form="same"),
        Template(text="Sorry to chop and change, but {subj} needs to be {v} at most going "
                      "forward.", family="probe", form="same"),
        Template(text="Budget got revisited and {alt} is allowed up to {v} now.", family="probe",
                 form="rephrased"),
        Template(text="Heads-up that the ceiling on {alt} has moved to {v}.", family="probe",
                 form="rephrased"),
        Template(text="Rev. limit {subj}: {v} effective immediately.", family="fresh", form="same"),
        Template(text="{subj} -> {v} from today, pls adjust", family="fresh", form="same"),
        Template(text="Per revised policy, kindly keep {subj} within {v} henceforth.",
                 family="fresh", form="same"),
        Template(text="Procurement approved change: {alt} max {v}.",
                 family="fresh", form="rephrased"),
        Template(text="Limit for {alt} is changed to {v}.", family="fresh", form="rephrased"),
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
        Template(text="Scratch that, {subj} is {v}, I was reading the wrong line.", family="probe",
                 form="same"),
        Template(text="{Subj} got updated on their side, so it's {v} now.", family="probe",
                 form="same"),
        Template(text="ugh wait, {subj} is {v}, ignore the earlier one", family="probe",
                 form="same"),
        Template(text="They've just changed {alt}; the new one is {v}.", family="probe",
                 form="rephrased"),
        Template(text="Correct {alt} to {v} wherever you've got it written down.", family="probe",
                 form="rephrased"),
        Template(text="Pls fix on your side: {subj} = {v}.", family="fresh", form="same"),
        Template(text="Was wrong info from me. {Subj} correct is {v}.",
                 family="fresh", form="same"),
        Template(text="fyi {subj} now {v}", family="fresh", form="same"),
        Template(text="Vendor migrated {alt}, new value {v}.", family="fresh", form="rephrased"),
        Template(text="Kindly replace {alt} with {v} in all records.",
                 family="fresh", form="rephrased"),
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
        Template(text="Slight change of target, we're now done once {state}.", family="probe",
                 form="same"),
        Template(text="ok new plan, the goal's that {state}", family="probe", form="same"),
        Template(text="Spoke to the client and they've moved the goalposts: {alt_state}.",
                 family="probe", form="rephrased"),
        Template(text="Forget the earlier finish line; I need it so that {alt_state}.",
                 family="probe", form="rephrased"),
        Template(text="Scope change: done = {state}.", family="fresh", form="same"),
        Template(text="Client escalation, new exit criteria: {state}.",
                 family="fresh", form="same"),
        Template(text="Target re-baselined, now {alt_state}.", family="fresh", form="rephrased"),
        Template(text="Management wants different outcome: {alt_state}.",
                 family="fresh", form="rephrased"),
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
        Template(text="Could you {do} instead from now on?", family="probe", form="same"),
        Template(text="actually pls {do} going forward, my bad", family="probe", form="same"),
        Template(text="Changed my mind on that, can you {alt} instead?", family="probe",
                 form="rephrased"),
        Template(text="Let's switch it up and {alt}.", family="probe", form="rephrased"),
        Template(text="Pls change: {do}.", family="fresh", form="same"),
        Template(text="Correction on format, kindly {do} henceforth.", family="fresh", form="same"),
        Template(text="New practice: {alt}.", family="fresh", form="rephrased"),
        Template(text="From next msg on, {alt} pls.", family="fresh", form="rephrased"),
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
