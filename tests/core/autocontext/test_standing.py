"""What the user said that still stands: the sentences strategy 9 carries, verbatim.

What a user relies on: every sentence that holds an instruction, a rule, a value, a
preference or a goal is kept word for word (only a short opening remark may go), a
courtesy is not; when a value is changed for the same thing, the latest one stands;
and when the note cannot hold everything, what binds or carries a value goes first
and chatter never takes the room of what matters. Checked on hand-made sentences and
on generated sessions in both phrasing families (``benchmarks/planted``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from planted import (
    FAMILIES,
    KINDS,
    Session,
    SessionSpec,
    filler,
    generate_session,
)

from ctxmgr.autocontext.marker import offload_tag
from ctxmgr.autocontext.pins import is_user_turn
from ctxmgr.autocontext.record import CALLS_HEADER
from ctxmgr.autocontext.standing import (
    CHANGE_BONUS,
    INSTRUCTION_RANK,
    LIKELY_RANK,
    TRIVIAL_WORDS,
    UPDATE_BONUS,
    USER_NOTE_HEADER,
    Statement,
    latest,
    likely_updates,
    priority,
    scores,
    select,
    sentences,
    standing_content,
    statements_of,
    supersedes,
    value_kinds,
    without_aside,
    without_coda,
)
from ctxmgr.messages import text_message


def said(*texts: str) -> list[Statement]:
    """Statements in the order given."""
    return [Statement(t, (k,)) for k, t in enumerate(texts)]


def texts(statements: Sequence[Statement]) -> list[str]:
    return [s.text for s in statements]


# ================================================================= sentences


def test_a_message_is_cut_into_sentences_at_line_breaks_and_sentence_ends() -> None:
    assert sentences("First thing. Second thing!\nThird? fourth") == [
        "First thing.", "Second thing!", "Third?", "fourth"]
    assert sentences("- Never book a red-eye.\n* Budget: $450.\n2) Aisle seats") == [
        "Never book a red-eye.", "Budget: $450.", "Aisle seats"]  # bullets left out


def test_ctxmgrs_own_markup_is_not_taken_for_the_users_words() -> None:
    note = "\n".join([USER_NOTE_HEADER, "- Never touch prod.", "(+3 more in the original)",
                      CALLS_HEADER, "bash:", "rm -rf build/", offload_tag("a" * 32)])
    assert sentences(note) == ["Never touch prod."]
    assert sentences("(nothing that still stands)") == []


@pytest.mark.parametrize("text", [
    "Also, never touch the prod database.",
    "Change of plan: keep replies under 100 words.",
    "Update on the attachment size: the new limit is 46 MB.",  # the opening names the subject
    "Reading back through the thread, the timeout is 30 seconds.",
    "For the record, my account is AC-1234.",
    "If it is all the same to you, keep replies short.",  # a condition
    "Unless told otherwise, answer in French.",
    "Because of the audit, never delete logs.",  # a reason
    "Don't forget, the cap is $450.",  # a negation
    "On 2024-05-01, the price doubles.",  # a value
    "When you are done with the report and the slides and the rest, email me.",  # long
    "Honestly, do it.",
])
def test_a_sentence_keeps_its_opening_verbatim(text: str) -> None:
    # An opening remark may name what the sentence is about; leaving it off lost updates
    # ("Update on the attachment size: ..."), and saved little room.
    assert sentences(text) == [text]


@pytest.mark.parametrize(("text", "parts"), [
    ("The cap is 26 workers The portal is slow today",
     ["The cap is 26 workers", "The portal is slow today"]),
    ("Tag v11.29.8 and release it Anyway, what did the logs say?",
     ["Tag v11.29.8 and release it", "Anyway, what did the logs say?"]),
    ("Answer in French When you are done, email me.",
     ["Answer in French", "When you are done, email me."]),
    ("Ask me before emailing ana@example.com Don't stop before p95 is below 464 ms.",
     ["Ask me before emailing ana@example.com", "Don't stop before p95 is below 464 ms."]),
    ("Keep it under 28 workers That's the ceiling",  # a contraction of grammar words
     ["Keep it under 28 workers", "That's the ceiling"]),
    ("the staging IP = 10.2.7.59 fyi Thanks!",  # a courtesy ends the line
     ["the staging IP = 10.2.7.59 fyi", "Thanks!"]),
    ("keep churn under 38% The queue is getting long again.",  # a value's sign ends it
     ["keep churn under 38%", "The queue is getting long again."]),
])
def test_a_sentence_run_on_without_a_full_stop_is_cut_where_a_capitalised_grammar_word_opens(
        text: str, parts: list[str]) -> None:
    assert sentences(text) == parts


@pytest.mark.parametrize("text", [
    "Send it to Margit Halvorsen in Oslo today.",  # names
    "The deadline is in May 2025.",  # a month, then a number
    "Book it with The Hague office.",  # a name that opens with a grammar word
    "ok thx I'll be offline for a bit",  # "I" is always capitalised
    "Answer in Czech.",  # a name ends it
])
def test_names_and_i_do_not_cut_a_sentence(text: str) -> None:
    assert sentences(text) == [text]


def test_standing_content_drops_courtesies_and_exact_repeats_and_keeps_the_rest_verbatim(
        ) -> None:
    text = ("ok thanks. Never refund more than $450. go on!\n"
            "What's the status? Never refund more than $450. Cc me, please.")
    assert standing_content(text) == ["Never refund more than $450.", "What's the status?",
                                      "Cc me, please."]
    assert all(len(s.split()) > TRIVIAL_WORDS or value_kinds(s)
               for s in standing_content(text))
    assert standing_content("Port 8443.") == ["Port 8443."]  # short, but it has a value


# ================================================================= values and priority


@pytest.mark.parametrize(("sentence", "kinds"), [
    ("The refund cap is $650.", {"money"}),
    ("Cap the spend at 7,275.51 EUR.", {"money"}),  # an amount's digits are not an id
    ("Keep the hotel rate under $6,435.50.", {"money"}),
    ("Keep the discount under 20%.", {"percent"}),
    ("Call me at 5:30 pm.", {"time"}),
    ("Ship it on Friday.", {"date"}),
    ("Use June 2nd.", {"date"}),  # a month is not a name
    ("The batch size is 500 rows.", {"unit:row"}),
    ("Retry 3 times.", {"unit:time"}),
    ("The answer is 42.", {"number"}),
    ("The answer is 42 and always was.", {"number"}),  # a grammar word is not a unit
    ("Keep it at 300 under any load.", {"number"}),
    ("Refunds up to $450 within 30 days.", {"money", "unit:day"}),
    ('Call the project "Blue Heron".', {"quoted", "name"}),
    ("Label it 'urgent-only', it's the rule.", {"quoted"}),
    ("Don’t touch it, it’s ‘frozen’ for now.", {"quoted"}),
    ("I've got it right here, it's AC-832595.", {"id"}),  # apostrophes quote nothing
    ("Send it to Margit Halvorsen.", {"name"}),
    ("Answer in Czech.", {"name"}),
    ("Also, Saying this again because it matters.", set()),  # a clause opens after a comma
    ("The config is in src/app/settings.py", {"path"}),
    ("Order ORD-33866 is the one.", {"id"}),  # an id is not a path: it cannot replace one
    # an address is an id, and the word after it no unit
    ("Go with 10.244.14.248 whenever you need the staging server's IP.", {"id"}),
    ("I think that is fine.", set()),
    ("Please keep it short.", set()),
])
def test_value_kinds(sentence: str, kinds: set[str]) -> None:
    assert value_kinds(sentence) == kinds


def test_a_value_ranks_above_a_bare_binding_word_which_ranks_above_plain_talk() -> None:
    assert priority("Never refund more than $450.") > priority("Refunds go to Ana Ruiz.") > \
        priority("Never use the old portal.") > priority("The portal is slow again.")


def test_a_limit_word_binds_only_before_a_value() -> None:
    assert priority("Keep attachments under 370 MB.") > priority("Attachments are 370 MB.")
    assert priority("My cat walked over the desk.") == priority("My cat walked across the desk.")


@pytest.mark.parametrize("rule", ["Don't touch pg-prod-7.", "You mustn't refund ORD-49140.",
                                  "We can't go over $450 on a refund.", "Don't ever restart it."])
def test_a_typographic_apostrophe_binds_as_a_straight_one(rule: str) -> None:
    # phones and word processors write "don’t": the rule ranked with plain remarks
    curly = rule.replace("'", "\N{RIGHT SINGLE QUOTATION MARK}")
    assert priority(curly) == priority(rule)


def test_a_question_without_a_value_ranks_below_a_statement() -> None:
    assert priority("what do you suggest we do next?") < priority("we should do the refund next.")


def test_a_repeated_remark_and_a_remark_about_the_moment_rank_lower_unless_an_update() -> None:
    assert priority("It's 5:31 here.", repeated=True) < priority("It's 5:31 here.")
    assert priority("The cap is 500 MB today.") < priority("The cap is 500 MB.")
    assert priority("The cap is 500 MB today.", update=True) == priority("The cap is 500 MB.")


@pytest.mark.parametrize("moment", ["as of today", "as of now"])
def test_as_of_today_says_from_when_a_value_holds_not_a_remark_about_the_moment(
        moment: str) -> None:
    assert priority(f"The API timeout goes to 93 seconds {moment}.") == priority(
        "The API timeout goes to 93 seconds.")


@pytest.mark.parametrize("changed", ["Heads up, the support case is now TCK-89300.",
                                     "The config file changed this morning to ~/q/a.env.",
                                     "Today the repo we work in is github.com/acme/lantern.",
                                     "Better to call me Ingrid Mbeki now.",
                                     "Heads up, whoever is on call is now Tavish Quaresma."])
def test_an_id_a_path_or_a_name_said_now_is_what_the_thing_is_not_a_remark_about_the_moment(
        changed: str) -> None:
    timeless = (changed.replace(" now", "").replace(" this morning", "")
                .replace("Today the", "The"))
    assert priority(changed) == priority(timeless)
    assert priority("The queue is at 21 people now.") < priority("The queue is at 21 people.")


@pytest.mark.parametrize(("said", "stands"), [
    ("The hotel rate has a hard ceiling of $5,840, full stop.",
     "The hotel rate has a hard ceiling of $5,840"),
    ("The attachment size is to be held at 194 MB or below, that was decided upstairs.",
     "The attachment size is to be held at 194 MB or below"),
    ("Sending the summaries to ana@acme.io is what I'd go for, personally.",
     "Sending the summaries to ana@acme.io is what I'd go for"),
    ("The last invoice was $342.28, a record, bear with me.", "The last invoice was $342.28"),
])
def test_a_closing_remark_that_adds_nothing_to_keep_does_not_take_room(
        said: str, stands: str) -> None:
    # a note at a tenth of the session holds few lines: the value and what it is about
    assert standing_content(said) == [stands]


@pytest.mark.parametrize("said", [
    "If a step would delete anything under /srv/x, stop and ask me first.",  # the main clause
    "ORD-87084, that's the order in question.",  # what the value is about
    "Keep the discount under 15%, not 10%.",  # a value
    "Send the summaries to ana@acme.io, please.",  # it asks
    "The ticket for this is TCK-2, I was wrong before.",  # a correction
    "Last time someone tried deleting /srv/x we lost a day, so that's off limits.",
    "Keep replies under 200 words, unless I ask for more.",  # a condition
    "Never refund order ORD-94702, not even to test something.",  # it binds
])
def test_a_closing_clause_that_conditions_corrects_or_names_the_thing_stays(said: str) -> None:
    assert without_coda(said) == said


@pytest.mark.parametrize(("request_", "remark"), [
    ("If a form or a tool wants the ticket for this, give it TCK-20977.",
     "The form showed the ticket for this as TCK-20977."),
    ("Half the team sits elsewhere, so call the project GannetBasalt.",
     "Half the team sits elsewhere, so the project is GannetBasalt."),
    ("Cap the number of parallel workers at 5 workers.",
     "The number of parallel workers was 5 workers."),
])
def test_a_request_in_the_imperative_is_said_to_the_assistant(request_: str,
                                                              remark: str) -> None:
    # no lexicon of verbs: a word of no closed class, then a determiner or a pronoun
    assert priority(request_) >= INSTRUCTION_RANK > priority(remark)
    for not_a_request in ("Today the repo we work in is github.com/acme/lantern.",
                          "Sending the report to ana@acme.io went fine.",
                          "The old order from 2023 is unrelated, ignore it."):
        assert priority(not_a_request) < INSTRUCTION_RANK, not_a_request


def test_an_update_ranks_at_least_as_high_as_the_rule_it_replaced() -> None:
    # "capped at 125 minutes" carries on the rule it changes, though it has no binding
    # word of its own: a note with room for one sentence keeps it over a later remark
    rule = "Don't let the planned downtime go above 228 minutes."
    update = "Change of plan: the planned downtime is now capped at 125 minutes."
    remark = "The queue shows 21 people waiting."
    stated = said(rule, update, remark)
    standing = latest(stated)
    assert [s.text for s in standing] == [update, remark]
    # ... and a step higher: the user said that thing twice, and this is what stands
    assert scores(standing, among=stated)[(1,)] == scores(stated)[(0,)] + UPDATE_BONUS
    assert scores(stated)[(0,)] > priority(update)
    kept, left_out = select(standing, len(update) + 3, among=stated)
    assert [s.text for s in kept] == [update] and left_out == 1


@pytest.mark.parametrize(("before", "after"), [
    ("The queue shows 7 people waiting.", "The queue shows 16 people waiting."),
    ("We shipped 1,297 parcels last month.", "We shipped 552 parcels last month."),
    ("Order 948579 was a different customer.", "Order 514300 was a different customer."),
])
def test_the_same_words_with_another_number_are_a_reading_not_an_update(
        before: str, after: str) -> None:
    # the later reading replaces the earlier one, but ranks as the repeated remark it is:
    # a note with room for one more sentence keeps the rule said once
    rule = "Keep attachments under 370 MB."
    stated = said(before, rule, after)
    standing = latest(stated)
    assert [s.text for s in standing] == [rule, after]
    score = scores(standing, among=stated)
    assert score[(2,)] < priority(after) < score[(1,)]
    kept, _ = select(standing, len(rule) + 3, among=stated)
    assert [s.text for s in kept] == [rule]


def test_the_same_words_with_another_limit_are_an_update() -> None:
    # a binding sentence said again with another value changes the rule: it keeps its rank
    stated = said("Keep the discount under 29%.", "Keep the discount under 17%.")
    standing = latest(stated)
    assert [s.text for s in standing] == ["Keep the discount under 17%."]
    assert scores(standing, among=stated)[(1,)] == \
        priority("Keep the discount under 17%.") + UPDATE_BONUS


def test_a_comparison_that_bounds_a_value_binds_like_a_modal_verb() -> None:
    for bound in ("The export may be as large as 370 MB.", "Retries can go up to 9 attempts.",
                  "The batch is no larger than 500 rows.", "Use at most 4 workers."):
        assert priority(bound) > priority("The export was 370 MB."), bound


def test_a_value_said_to_the_assistant_ranks_above_the_same_value_said_about_the_day() -> None:
    assert priority("Please send the summary to ana.ruiz@example.com.") > \
        priority("The summary went to ana.ruiz@example.com.")
    assert priority("Could you keep replies to 4 bullet points?") > \
        priority("Replies had 4 bullet points.")


def test_a_bare_count_ranks_below_a_value_that_says_what_it_counts() -> None:
    assert priority("We have 38 other tickets.") < priority("We have 38 open tickets.")


@pytest.mark.parametrize("remark", ["It's 2:42 here, so we are short on time.",
                                    "We shipped 3,775 parcels last month.",
                                    "The refund went out two days ago for $40."])
def test_a_remark_tied_to_the_place_or_time_it_was_said_ranks_lower(remark: str) -> None:
    timeless = (remark.replace(" here", "").replace(" last month", "")
                .replace(" two days ago", ""))
    assert priority(remark) < priority(timeless)
    assert priority("From here on, send it to Ana Ruiz.") == priority("Send it to Ana Ruiz.")


def test_two_limits_in_one_unit_are_two_things_unless_their_words_say_otherwise() -> None:
    """"Seconds" in both is no subject: a page load and an API timeout stay two limits."""
    said = [Statement("They expect that the landing page loads in under 1.3 seconds.", (0,)),
            Statement("Is there any way to hold the API timeout under 281 seconds?", (1,))]
    assert len(latest(said)) == 2


COURTESIES = ("thanks a lot, that's really helpful!", "ok, sounds good to me", "great, go on",
              "perfect, thank you so much", "cool cool", "nice work", "appreciate it",
              "alright then", "yes please go ahead", "sure, whatever you think is best",
              "what's next?", "haha yes", "that works for me", "makes sense now")
VALUES = ("Refunds above $200 need my approval.", "use port 8443 for staging",
          "The deadline is 2024-06-30.", "keep each reply under 120 words",
          "my account number is AC-993120", "Address me as Dr. Okafor.",
          "the backlog should be down to 40 tickets", "Answer in Portuguese.",
          "The cap is 500 MB today.", "page me at 07:30 if it fails")


@pytest.mark.parametrize("courtesy", COURTESIES)
def test_a_courtesy_never_outranks_a_sentence_with_a_value(courtesy: str) -> None:
    lowest = min(priority(v) for v in VALUES)
    for s in sentences(courtesy):
        assert priority(s) < lowest


# ================================================================= the latest value


def test_a_new_value_for_the_same_thing_replaces_the_old_one() -> None:
    assert supersedes("The planned downtime is now 125 minutes.",
                      "Keep the planned downtime under 222 minutes.")
    assert supersedes("The planned downtime can now reach 300 minutes.",  # a rule lifted
                      "Never let the planned downtime pass 222 minutes.")
    assert supersedes("The refund cap is $650 now.", "The refund cap is $450.")
    assert supersedes("The deadline moved to 2024-06-01.", "The deadline is 2024-05-17.")


def test_a_value_for_another_thing_or_of_another_kind_replaces_nothing() -> None:
    assert not supersedes("The hotel rate must stay under $200.", "The refund cap is $450.")
    assert not supersedes("Call the refund team at 5 pm.", "The refund cap is $450.")
    assert not supersedes("Never book a red-eye.", "The refund cap is $450.")


def test_two_updates_in_one_frame_are_two_things_when_one_word_is_all_they_share() -> None:
    # the opening of the first, read as an aside, leaves "new value X": one content word
    # that any sentence saying "new value" covers
    history = [text_message("user", "Right, so. Vendor migrated the main database, new value "
                                    "db-minnow-primary-5. Someone from finance just pinged me."),
               text_message("user", "Vendor migrated the order we're talking about, new value "
                                    "ORD-49484")]
    said = [Statement(s.text, (k, *s.order)) for k, m in enumerate(history)
            for s in statements_of(m)]
    assert any("db-minnow-primary-5" in s.text for s in latest(said))


def test_a_later_sentence_that_would_lose_one_of_the_earlier_values_replaces_nothing() -> None:
    earlier = "The refund cap is $450 and the refund window is 30 days."
    assert not supersedes("The refund cap is $650 now.", earlier)


def test_a_restatement_with_every_value_again_replaces_the_earlier_one_whatever_its_words(
        ) -> None:
    assert supersedes("Again: 370 MB is the cap for attachments", "Attachments stop at 370 MB.")


@pytest.mark.parametrize("value", ["€4,930", "$450", "12,500", "370 MB", "30 days", "v5.6.27"])
@pytest.mark.parametrize(("earlier", "later"), [
    ("The spend on contractors shouldn't go past {v} under any circumstances.",
     "Anything past {v} is a no."),
    ("Keep it at {v} or less.", "{v} is still the most we can do."),
    ("hold the attachments to {v} for now", "Again: {v} at most, whatever they say"),
])
def test_a_restatement_is_told_by_its_values_whatever_grammar_word_follows_a_number(
        earlier: str, later: str, value: str) -> None:
    assert supersedes(later.format(v=value), earlier.format(v=value))
    other = value.replace("4", "7").replace("3", "8").replace("5", "6")
    assert not supersedes(later.format(v=other), earlier.format(v=value))


def test_words_most_statements_share_are_a_way_of_speaking_not_a_subject() -> None:
    a = "The warehouse code changed this morning to WH-1001."
    b = "The loading dock changed this morning to WH-2002."
    # "changed this morning to" is a frame: each names a thing of its own (code, dock)
    assert not supersedes(b, a)
    assert supersedes("The warehouse code is now WH-2002.", a)  # "warehouse code" names it
    conversation = said(a, b, "The returns depot changed this morning to WH-3003.",
                        "The host changed this morning to db-4.internal.")
    assert texts(latest(conversation)) == texts(conversation)  # four things, four values


@pytest.mark.parametrize(("later", "earlier"), [
    # ids of two kinds are two things, whatever the words around them share
    ("The ticket changed this morning to TCK-2002.",
     "The warehouse code changed this morning to WH-1001."),
    ("Heads up, the tax id on invoices is now GB756452525.",
     "Heads up, the order we're talking about is now ORD-27187."),
    ("The contact email changed this morning to tavish.obradovic25@copperleaf-co.com.",
     "The order changed this morning to ORD-3003."),
    # a pair with a grammar word does not join a rule and a plain statement
    ("We're done when the export lands in /srv/gannet-64/minnow/ every night.",
     "Try not to skip saving the exports to /var/lib/walrus/thimble-exports-78."),
    # a contraction is its first word, a grammar word ("that's the", "I'll be")
    ("It's db-minnow-primary-5, that's the primary database host.",
     "ORD-33866, that's the order in question."),
    ("The export lands in s3://orchid-809/exports every night, I'll be around.",
     "Send the summaries to ops/inbox, I'll be offline for a bit."),
    # a number's unit and the word before it belong to the value, not to its subject
    ("Is there any way to hold the API timeout under 281 seconds?",
     "They expect that the landing page loads in under 1.3 seconds."),
    # an order number is not a path, even in a run-on sentence about another thing
    ("New number for the parallel workers: 11 workers give all times in America/Denver",
     "The parallel workers cant go over 26 workers btw SUB-80025 is not to be cancelled"),
])
def test_words_that_belong_to_grammar_or_to_the_value_do_not_make_one_subject(
        later: str, earlier: str) -> None:
    assert not supersedes(later, earlier)


def test_a_word_of_change_names_no_subject() -> None:
    # "Small change:" opens two updates of two things: neither replaces the other
    language = "Small change: answer in Indonesian from now on."
    zone = "Small change: give all times in America/Denver from now on."
    assert not supersedes(zone, language)
    assert texts(latest(said(language, zone))) == [language, zone]


def test_a_word_the_sentence_says_is_its_subject_even_when_a_value_spells_it_too() -> None:
    # "the exports" is the subject of both, though the new path ends in "exports" too
    earlier = "Try not to skip saving the exports to /srv/osprey-96/zephyr/."
    later = "Save the exports to s3://thimble-vellum-762/exports instead."
    assert likely_updates(said("Never touch prod.", earlier, later)) == {(2,): (1,)}


def test_two_addresses_at_one_domain_are_two_values() -> None:
    # the domain alone is not the value: a rule about one person stays beside a request
    # about another at the same company, and an address in other words is an update
    rule = "Never email bob@example.com about billing."
    other = "Copy alice@example.com on every reply about billing."
    assert texts(latest(said(rule, other))) == [rule, other]
    old, new = "Send the weekly report to bob@example.com.", \
        "Send the weekly report to alice@example.com instead."
    assert texts(latest(said(old, new))) == [new]
    # an address at the end of a sentence is the same value as one mid-sentence
    again = "Possible to send the weekly report to alice@example.com?"
    assert texts(latest(said(new, again))) == [again]


def test_a_shared_label_before_a_colon_does_not_make_two_goals_one() -> None:
    # "new exit criteria:" opens two goals about two things: neither replaces the other;
    # with nothing after the label, the label still names the thing
    churn = "new exit criteria: monthly churn is under 20 percent."
    coverage = "new exit criteria: test coverage reaches 46%."
    assert texts(latest(said(churn, coverage))) == [churn, coverage]
    assert supersedes("Update on the attachment size: it is 30 MB now.",
                      "Update on the attachment size: 25 MB.")


def test_no_before_without_asks_for_something_and_its_update_is_found() -> None:
    # "no X without Y" is a double negative: it asks for Y, as its update does, so the
    # two are not a rule and a plain statement kept apart by their negation
    earlier = "No invoices go out without copying finance-lead@acme.io on them."
    later = "Correction: copy ap-team@acme.io on the invoices from now on."
    assert likely_updates(said("Never touch prod.", earlier, later)) == {(2,): (1,)}


@pytest.mark.parametrize(("earlier", "later"), [
    # "no more forgetting to X" asks for X
    ("No more forgetting to sign the replies as Fenella Iwasaki, please!",
     "actually pls sign the replies as Margit Yilmaz going forward"),
    # a negation before a verb and a question word leaves a choice open, it denies nothing
    ("Provided invoice INV-80656 is marked as paid, I don't mind how you get there.",
     "ok new plan, the goal is that invoice INV-94896 is marked as paid by Friday"),
])
def test_a_negation_that_denies_nothing_does_not_keep_an_update_apart(earlier: str,
                                                                      later: str) -> None:
    assert likely_updates(said("Never touch prod.", earlier, later)) == {(2,): (1,)}


def test_a_rule_in_a_verb_that_denies_is_no_update_of_the_value_it_names_the_kind_of(
        ) -> None:
    # "refrain from writing to" X is a rule about another database, not a new main one
    fact = "they've just changed the main database; the new one is pg-prod-juniper5"
    rule = "I'd be grateful if you could refrain from writing to the pg-prod-zephyr7 database."
    assert likely_updates(said(fact, rule)) == {}
    assert scores(said(fact, rule))[(0,)] >= priority(fact)  # not demoted


def test_a_negation_before_a_verb_and_its_object_still_denies() -> None:
    rule = "Don't tell anyone what the admin password is: it stays with ops."
    update = "The admin password is now hunter-22."
    assert likely_updates(said(rule, update)) == {}


def test_an_update_of_one_part_of_a_run_on_line_ranks_as_one_and_demotes_nothing() -> None:
    # the line runs a workers limit and a spend cap together; the later cap in words of
    # its own updates the second part only: it ranks as an update, and the line keeps
    # its rank, as the workers limit still stands
    run_on = ("Batch jobs may not use more than 12 workers; also the cloud spend has a "
              "hard cap of 3,200 EUR")
    later = "Heads-up that the cap on cloud costs has moved to $4,100."
    stated = said("Never touch prod.", run_on, later)
    assert likely_updates(stated) == {(2,): None}
    score = scores(stated)
    assert score[(1,)] == priority(run_on)
    assert score[(2,)] == priority(later) + UPDATE_BONUS
    # said as a line of its own, the cap is linked, and the old one steps down
    alone = said("Never touch prod.", "The cloud spend has a hard cap of 3,200 EUR.", later)
    assert likely_updates(alone) == {(2,): (1,)}


@pytest.mark.parametrize("anew", [
    "ok so the build timeout got bumped, new max is 143 seconds",
    "I changed my mind; put Ada Okafor as the signature, please.",
    "Spoke to the client and they moved the goalposts: tests/billing_sync is green.",
])
def test_a_value_said_in_words_of_change_ranks_a_step_higher(anew: str) -> None:
    # no earlier statement is found for it (nothing else was said), but the words say
    # it changes something: a step up, so it is not the first plain fact to go
    assert scores(said(anew)) == {(0,): priority(anew) + CHANGE_BONUS}
    plain = "The build timeout is 143 seconds."
    assert scores(said(plain)) == {(0,): priority(plain)}
    # time gone by is no word of change
    waiting = "We have been on hold for 31 minutes now."
    assert scores(said(waiting)) == {(0,): priority(waiting)}


def test_a_numbers_unit_is_part_of_the_value_not_a_shared_subject() -> None:
    # two limits in seconds on two things: "seconds" is what both measure in, not what
    # they are about, so neither is taken for the other's update
    goal = "Let's aim for the landing page to load in under 3.7 seconds."
    assert likely_updates(said(goal, "166 seconds is the most we can do on the api timeout."
                               )) == {}
    assert likely_updates(said(goal, "The landing page can now load in 4.5 seconds.")) == {
        (1,): (0,)}


def test_a_host_name_is_told_by_its_domain_not_by_its_leading_word() -> None:
    # "osprey-" and "sorrel-" are names; both hosts are ".internal": one kind of id
    old = "Did I mention the primary database host is osprey-34.internal?"
    new = "Correction: the primary database host is actually sorrel-53.internal."
    assert texts(latest(said(old, "Keep replies short.", new))) == ["Keep replies short.", new]
    # an order number still does not replace a host
    assert not supersedes("Correction: the primary database host is actually ORD-5531.", old)


def test_an_opening_aside_is_not_the_subject_but_an_opening_clause_is() -> None:
    # "Reading back through the thread, ..." opens two sentences about two things; the
    # server's address does not replace the goal
    aside = "Reading back through the thread, "
    goal = aside + "revised goal: v12.3.28 is out."
    assert not supersedes(aside + "I had the staging server's IP wrong, the right one is "
                                  "10.42.51.147.", goal)
    # a clause before the comma still names the thing
    assert supersedes("The vendor meeting has changed, it's now 2025-07-06.",
                      "The vendor meeting is 2025-07-15.")


def test_a_pair_with_a_grammar_word_names_one_thing_only_while_two_statements_use_it(
        ) -> None:
    first = "Save the exports to /var/lib/walrus/exports-78."
    update = "Save the exports to /srv/ptarmigan-12/moraine/ instead."
    assert texts(latest(said(first, update))) == [update]
    goal = "In the end the export lands in /srv/gannet-64/minnow/ every night."
    # "the export" in three statements: the goal is another thing, and stays
    assert goal in texts(latest(said(first, goal, update)))


def test_latest_keeps_one_of_equal_statements_and_only_the_newest_value_in_order() -> None:
    stated = said("The refund cap is $450.", "Never touch prod.", "The refund cap is $450.",
                  "Answer in Czech.", "The refund cap is $650 now.")
    assert texts(latest(stated)) == ["Never touch prod.", "Answer in Czech.",
                                     "The refund cap is $650 now."]
    assert latest(reversed(stated)) == latest(stated)  # by when it was said, not list order


@pytest.mark.parametrize(("earlier", "later"), [
    # other words for the same thing, and a word of change
    ("Please note down the ticket for this: TCK-90808.",
     "Heads up, the support case is now TCK-89300."),
    ("Keep the planned downtime under 222 minutes.",
     "Good news, any maintenance outage can now go as high as 199 minutes."),
    ("Don't let the number of retries go above 10 attempts.",
     "Retry attempts can now go as high as 4 attempts."),
    # a slip of the keys in the subject
    ("Can we keep the spend on contractors to $6,000 at most?",
     "From this week the sepnd on contractors can be up to $8,035, no more."),
])
def test_an_update_in_other_words_is_likely_and_ranks_first(earlier: str, later: str) -> None:
    stated = said("Never touch the prod database.", earlier, later)
    assert not supersedes(later, earlier)  # too little to drop the earlier one for
    assert likely_updates(stated) == {(2,): (1,)}
    score = scores(stated)
    assert score[(2,)] > score[(1,)]
    assert score[(1,)] <= min(priority(earlier), LIKELY_RANK)
    kept, _ = select(stated[1:], len(later) + 3)
    assert texts(kept) == [later]


@pytest.mark.parametrize(("earlier", "later"), [
    # a rule and a goal about two orders are two things
    ("Please don't refund order ORD-69404, whatever happens.",
     "I need to get to where the refund for order ORD-73296 has gone through."),
    # a unit of time alone, without a word of change, is no evidence
    ("Keep the planned downtime under 222 minutes.",
     "I've been on hold with the carrier for 31 minutes."),
    # nor is the "now" of time gone by
    ("Keep the planned downtime under 222 minutes.",
     "I've been on hold with the carrier for 31 minutes now."),
    # not for a name either
    ("Please copy Ana Lopez on escalations.",
     "I've waited 40 minutes now for Ben Ortiz to answer about escalations."),
])
def test_two_things_said_alike_are_not_a_likely_update(earlier: str, later: str) -> None:
    assert not supersedes(later, earlier)
    assert likely_updates(said(earlier, later)) == {}


def test_a_likely_update_demotes_the_copy_latest_keeps_of_a_sentence_said_twice() -> None:
    cap = "Keep the planned downtime under 222 minutes."
    update = "Good news, any maintenance outage can now go as high as 199 minutes."
    stated = said(cap, "Never touch prod.", cap, update)
    assert likely_updates(stated) == {(3,): (0,)}
    standing = latest(stated)
    assert texts(standing) == [cap, "Never touch prod.", update]
    score = scores(standing, among=stated)
    assert score[(0,)] == min(priority(cap), LIKELY_RANK) < score[(3,)]


def test_a_likely_update_of_a_sentence_said_again_in_other_words_demotes_what_stands(
        ) -> None:
    # the update looks most like the question, which the restatement replaced; the
    # restatement says the old code now, and steps down in its stead
    question, restated, update = ("Have you got the warehouse code down as WH-1055?",
                                  "The warehouse code would be WH-1055.",
                                  "Correct the depot id to WH-2077 wherever you have got it "
                                  "written down.")
    stated = said(question, restated, update)
    assert likely_updates(stated) == {(2,): (0,)}
    assert texts(latest(stated)) == [restated, update]
    score = scores(latest(stated), among=stated)
    assert score[(1,)] == LIKELY_RANK < priority(restated) < score[(2,)]


def test_the_rule_a_likely_update_changed_gives_its_room_to_a_fact_still_standing() -> None:
    # the old cap binds and ranked above a plain fact; once a later sentence likely
    # changed it, it ranks with the least of what carries a value, and a tight note
    # keeps the new cap and the fact
    cap, fact, update = said("The spend on contractors must never be more than $6,805.",
                             "For reference, the repository is github.com/acme/app-7.",
                             "Good news, contractor costs can now go as high as $9,000.")
    assert priority(cap.text) > priority(fact.text)
    score = scores([cap, fact, update])
    assert score[cap.order] == LIKELY_RANK < score[fact.order] < score[update.order]
    kept, left_out = select([cap, fact, update], len(fact.text) + len(update.text) + 2)
    assert (texts(kept), left_out) == ([fact.text, update.text], 1)


def test_a_likely_update_of_one_of_several_demotes_none_and_still_ranks_as_an_update() -> None:
    # two earlier caps in minutes: the later one is about neither in words, so which one it
    # changes is not known; both stay as they ranked, and the change ranks above its words
    downtime, backup = ("Keep the planned downtime under 222 minutes.",
                        "Keep the nightly backup under 40 minutes.")
    change = "It can now go as high as 199 minutes."
    stated = said(downtime, backup, change)
    assert likely_updates(stated) == {(2,): None}
    score = scores(stated)
    assert (score[(0,)], score[(1,)]) == (priority(downtime), priority(backup))
    assert score[(2,)] == priority(change) + UPDATE_BONUS


def test_of_two_updates_as_likely_the_one_that_names_the_subject_wins_the_earlier_value(
        ) -> None:
    # both later caps are in seconds and as likely an update; one says a word of change
    # ("new"), the other names what the cap is on ("timeout"): that one replaces it, and
    # "as of today" marks a change, not a remark about the moment
    cap = "i can't sign off on the api timeout above 170 seconds"
    goal = "New finish line, we stop once the landing page loads in under 1.1 seconds."
    change = "The API timeout goes to 93 seconds as of today."
    stated = said(cap, goal, change)
    assert likely_updates(stated)[(2,)] == (0,)
    score = scores(stated)
    assert score[(2,)] > score[(1,)] and score[(0,)] == LIKELY_RANK


@pytest.mark.parametrize("later", [
    # another thing in minutes, with a word of change: as likely an update as a wrong one
    "The standup now runs 90 minutes, sadly.",
    # the same thing changed a second time, in other words
    "Backups can run as long as 70 minutes from today.",
])
def test_a_value_the_user_already_changed_is_not_demoted_by_a_likely_update(later: str
                                                                           ) -> None:
    # a likely link is weak evidence, wrong about one time in ten; a value the user
    # already corrected once is the latest of its thing, and losing it is the failure
    # that matters: it keeps its rank, the later sentence still ranks as an update, and
    # shown in order the later one has the last word
    cap, change = ("Keep the nightly backup under 40 minutes.",
                   "Change of plan: the nightly backup may now take up to 55 minutes.")
    stated = said(cap, change, later)
    assert likely_updates(stated)[(2,)] == (1,)
    standing = latest(stated)
    assert texts(standing) == [change, later]
    score = scores(standing, among=stated)
    assert score[(1,)] >= priority(change, update=True) > LIKELY_RANK
    assert score[(2,)] >= score[(1,)]


def test_an_email_address_is_one_value_not_a_form_for_each_of_its_parts() -> None:
    # two addresses share "@" and nothing else: summaries are not the urgent copies
    urgent = "Copy anouk.pemberton46@ironbark-retail.com on anything urgent."
    assert likely_updates(said(urgent, "Send the summaries to priya.e43@saltmarsh-media.com."
                               )) == {}
    assert likely_updates(said(urgent, "Actually, copy priya.e43@saltmarsh-media.com on "
                                       "anything urgent instead.")) == {(1,): (0,)}


def test_an_update_of_a_goal_said_twice_in_other_words_updates_the_latest_wording() -> None:
    # the restatement replaced the question; the new goal updates that one thing, so it
    # ranks above the restatement and the restatement steps down
    stated = said("Can we get to the point where version v14.11.20 is tagged and released?",
                  "Keep replies short.",
                  "Basically we need it so version v14.11.20 is tagged and released, that's it.",
                  "Revised goal: v12.3.28 is out.")
    assert likely_updates(stated) == {(3,): (2,)}
    score = scores(latest(stated), among=stated)
    assert score[(3,)] > score[(2,)] == LIKELY_RANK


def test_a_new_address_ranks_above_two_earlier_ones_it_may_replace() -> None:
    stated = said("anouk.pemberton46@ironbark-retail.com is the contact email.",
                  "Copy ruairi.ravensworth3@bluepeak-outfitters.com on anything urgent.",
                  "They reissued the address for questions, it's "
                  "ottilie.holloway58@copperleaf-co.com now.")
    assert likely_updates(stated) == {(2,): None}
    score = scores(stated)
    assert score[(2,)] == priority(stated[2].text) + UPDATE_BONUS > max(score[(0,)],
                                                                        score[(1,)])


def test_contractions_do_not_hide_that_a_new_account_number_updates_the_old_one() -> None:
    # "I've ... it's" once read as a quotation: the earlier sentence then had a value the
    # later one lacked, could not be updated by it, and took room beside its update
    stated = said("I've got my account number right here, it's AC-832595.",
                  "Keep replies short.",
                  "My account number has changed, it's now AC-990192.")
    assert likely_updates(stated) == {(2,): (0,)}
    score = scores(stated)
    assert score[(2,)] > score[(0,)]


def test_a_contrasting_not_does_not_make_a_correction_a_rule() -> None:
    # ", not what I told you" denies the old value, not the sentence: a correction, which
    # may update the earlier ticket; a rule against one order is not updated by a goal
    assert likely_updates(said("The ticket for this is TCK-67805.", "Keep replies short.",
                               "Turns out the ticket is TCK-11493, not what I told you.")
                          ) == {(2,): (0,)}
    assert likely_updates(said("Never refund order ORD-49140.", "Keep replies short.",
                               "The refund for order ORD-66447 has gone through.")) == {}


def test_a_negation_before_a_verb_of_leaving_undone_says_to_do_it() -> None:
    # "don't forget to sign as X" asks to sign as X: an instruction a later one updates
    assert likely_updates(said("Don't forget to sign the replies as Leopold Okonkwo.",
                               "Keep replies short.",
                               "Actually, sign the replies as Torvald Thistlewood instead.")
                          ) == {(2,): (0,)}
    assert likely_updates(said("Don't stop the server db-rowan-primary-8.", "Keep replies short.",
                               "The server db-rowan-primary-9 was stopped.")) == {}


@pytest.mark.parametrize(("earlier", "later"), [
    ("February 1st is the vendor meeting.", "Heads up, the vendor call is now 2025-07-24."),
    ("The vendor meeting is 2025-07-18, so we're good there.",
     "The system now lists July 26th as the call with the vendor."),
])
def test_a_date_is_a_value_in_either_form_not_an_id(earlier: str, later: str) -> None:
    # an ISO date is a date, not an id a written one lacks; and a date is a value, so
    # a sentence with another date does not say every value of the earlier one again
    assert value_kinds(later) == value_kinds(earlier) == {"date"}
    assert likely_updates(said(earlier, "Keep replies short.", later)) == {(2,): (0,)}


def test_a_date_is_read_where_it_is_written_whatever_the_letters_before_it() -> None:
    # "İ" lowercases to two characters: a date found in a lowercased copy was cut short
    # the date said again, in other words, is a restatement
    assert supersedes("For the vendor call, February 1st works.",
                      "İİİ: the vendor meeting is February 1st.")


def test_not_until_says_when_the_work_is_done_not_what_is_forbidden() -> None:
    # "we can't close this out until INV-1 is paid" is a goal; a new goal updates it
    assert likely_updates(said("We can't close this out until invoice INV-21427 is paid.",
                               "Keep replies short.",
                               "What matters now is that INV-66541 shows as settled.")
                          ) == {(2,): (0,)}
    # and so does "no ... until"
    assert likely_updates(said(
        "no wrapping up until the export lands in /var/lib/osprey/quarry-exports-48 every night",
        "Keep replies short.",
        "Spoke to the client and they've moved the goalposts: /var/lib/kestrel/sorrel-exports-17"
        " gets the nightly export.")) == {(2,): (0,)}


@pytest.mark.parametrize(("earlier", "later"), [
    ("I'd prefer you call the project KestrelThimble.",
     "On second thought, refer to the project as WombatOsprey."),  # AaAa
    ("Every test in tests/thimble_vellum passes, that's the goal.",
     "What matters now is that tests/larkspur_rowan is fully green."),  # a/a_a
    ("The monthly ad budget is capped at 940 USD.",  # an amount, a word of change
     "Good news, ad spending per month can now go as high as 3,225.93 EUR."),
    ("Whenever you get the chance, address me as Yusuf Thistlewood.",  # a name, said anew
     "let's switch it up and call me Lucien Vantongeren"),
])
def test_a_value_of_the_same_form_or_kind_is_evidence_of_an_update(earlier: str,
                                                                   later: str) -> None:
    assert likely_updates(said(earlier, "Keep replies short.", later)) == {(2,): (0,)}


def test_a_name_said_without_a_word_of_change_is_no_evidence_of_an_update() -> None:
    assert likely_updates(said("Address me as Yusuf Thistlewood.", "Keep replies short.",
                               "The report goes to Lucien Vantongeren.")) == {}


def test_an_address_is_replaced_by_an_address_not_by_a_version_said_in_the_same_frame(
        ) -> None:
    address = "Correct the staging address to 10.199.193.73 wherever you've got it written down."
    version = "Correct the deployed version to v15.3.8 wherever you've got it written down."
    assert not supersedes(version, address)
    assert supersedes("The staging server's IP got updated, so it's 10.145.121.21 now",
                      "Go with 10.244.14.248 whenever you need the staging server's IP.")


@pytest.mark.parametrize(("earlier", "later"), [
    ("actually pls send the summaries to ruairi.quaresma4@gracelane-mfg.com going forward",
     "actually pls copy oluwaseun.quaresma64@fernhill-logistics.com on anything urgent "
     "going forward"),
    ("Correct the settings file to /etc/ptarmigan/thimble-51.conf wherever you've got it "
     "written down.",
     "Correct the repository to github.com/osprey-labs/kestrel-12 wherever you've got it "
     "written down."),
])
def test_a_frame_said_after_the_values_names_no_subject(earlier: str, later: str) -> None:
    assert not supersedes(later, earlier)
    assert texts(latest(said(earlier, later))) == [earlier, later]


@pytest.mark.parametrize(("earlier", "later", "rest"), [
    ("just fyi the import batch size has a hard ceiling of 22,348 rows so yeah I find it "
     "much easier to follow along when you give all times in America/Bogota.",
     "heads-up that the ceiling on each import batch has moved to 695 rows",
     "I find it much easier to follow along when you give all times in America/Bogota."),
    ("As a standing rule, address me as Fenella Nakamura each time Ultimately, this is all "
     "about making sure test coverage reaches 19%.",
     "Slight change of target, we're now done once test coverage reaches 21 percent.",
     "As a standing rule, address me as Fenella Nakamura each time"),
])
def test_a_new_value_for_one_of_two_statements_run_together_keeps_the_other(
        earlier: str, later: str, rest: str) -> None:
    stated = said(earlier, "Keep replies short.", later)
    assert texts(latest(stated)) == [rest, "Keep replies short.", later]
    assert scores(latest(stated), among=stated)[(2,)] > priority(later)  # an update


def test_what_is_left_of_a_line_ranks_for_its_own_words_not_for_the_value_that_went(
        ) -> None:
    # the line's first part is said again later: the chatter left of it is not an instruction
    line = ("whenever you get the chance, call the project ThimbleHeron Back to the refund "
            "question now.")
    stated = said(line, "Keep replies short.",
                  "Half the team sits elsewhere, so call the project ThimbleHeron.")
    standing = latest(stated)
    assert texts(standing)[0] == "Back to the refund question now."
    assert scores(standing, among=stated)[(0,)] == priority("Back to the refund question now.")


def test_a_line_that_runs_two_statements_together_replaces_through_either_part() -> None:
    # whole, the later line is about an order first; its second part gives the new code
    earlier = "The warehouse code is WH-1055."
    later = ("order ORD-78965 is refunded Scratch that, the warehouse code is WH-2077, I was "
             "reading the wrong line")
    assert not supersedes(later, earlier)
    assert texts(latest(said(earlier, "Keep replies short.", later))) == [
        "Keep replies short.", later]


def test_a_part_replaced_never_takes_a_piece_of_a_value_from_the_rest() -> None:
    earlier = ("my preference has always been sending the daily update at 20:15 UTC we can't "
               "close this out until the report is in Hamish Dunleavy's inbox")
    later = "My aim is simple: the report is in Hamish Dunleavy's inbox"
    assert "20:15 UTC" in texts(latest(said(earlier, later)))[0]


def test_a_line_run_on_keeps_both_statements_when_neither_is_replaced() -> None:
    earlier = ("just fyi the import batch size has a hard ceiling of 22,348 rows so yeah I "
               "find it much easier when you give all times in America/Bogota.")
    later = "The queue shows 16 people waiting, so I expect 695 rows by noon."
    assert texts(latest(said(earlier, later))) == [earlier, later]


def test_an_amount_is_read_whole_so_a_restatement_replaces_the_earlier_one() -> None:
    first = "Can we keep the spend on contractors to $6,805 at most?"
    again = "The spned on contractors must never be more than $6,805."
    assert supersedes(again, first)  # "$6,805" both times, not "$6" and "6,805."
    assert texts(latest(said(first, again))) == [again]


@pytest.mark.parametrize(("remark", "rule"), [
    ("It's 5:20 here, so not much time left.", "It's 5:20 pm, so don't call them."),
    ("Only 13% of the tickets today are about shipping.",
     "Only 13% of the tickets may be closed unanswered."),
    ("My extension is 709 if you need to reach me.", "You need to use extension 709."),
])
def test_grammar_that_does_not_bind_ranks_below_a_rule(remark: str, rule: str) -> None:
    assert priority(remark) < priority(rule)


def test_a_limit_in_a_condition_still_binds() -> None:
    assert priority("If the planned downtime would go over 217 minutes, stop and ask me.") > \
        priority("The planned downtime was 217 minutes.")


# ================================================================= reading a message


def test_a_user_message_stands_for_its_standing_content_in_order() -> None:
    m = text_message("user", "Thanks! Never touch prod. The cap is $450.", id="u")
    assert statements_of(m) == said("Never touch prod.", "The cap is $450.")


def test_a_note_ctxmgr_wrote_is_read_back_line_by_line_as_the_users_words() -> None:
    note = text_message("user", "\n".join([
        USER_NOTE_HEADER, "- Never touch prod. Ever.", "- The cap is $650 now.",
        "(+2 more in the original)", CALLS_HEADER, "bash:", "- not a user line",
        offload_tag("b" * 32)]), id="n")
    assert statements_of(note) == said("Never touch prod. Ever.", "The cap is $650 now.")
    # a note written before the header was shortened reads back the same
    older = text_message("user", note.text.replace(
        USER_NOTE_HEADER, "What the user said earlier (verbatim; later lines win):"), id="o")
    assert statements_of(older) == statements_of(note)
    assert statements_of(text_message("user", note.text.replace(
        "(+2 more in the original)", "(+2 more)"), id="p")) == statements_of(note)


def test_a_pasted_text_ranks_after_what_the_user_wrote_around_it() -> None:
    body = "\n".join(filler._EMAIL_LINES[:6])
    m = text_message("user", f"Here is what the customer wrote:\n\n{body}\n\n"
                             "Never offer more than a $20 voucher.", id="u")
    found = statements_of(m)
    own = [s for s in found if not s.pasted]
    assert texts(own) == ["Here is what the customer wrote:",
                          "Never offer more than a $20 voucher."]
    assert {s.text for s in found if s.pasted} == set(filler._EMAIL_LINES[:6])
    score = scores(found)
    rule = next(s for s in found if "voucher" in s.text)
    assert all(score[s.order] < score[rule.order] for s in found if s.pasted)


def test_every_short_paragraph_after_a_pasted_email_is_the_users_own() -> None:
    body = " ".join(["The parcel has not moved for days and I want a refund now."] * 8)
    m = text_message("user", "Here's what the customer wrote:\n\nHello,\n\n" + body
                     + "\n\nRegards,\nA frustrated customer\n\n"
                     "i changed my mind; put Fenella Castellanos as the signature, please"
                     "\n\nKeep the spend on contractors under $2,465.", id="u")
    found = statements_of(m)
    own = texts([s for s in found if not s.pasted])
    assert "i changed my mind; put Fenella Castellanos as the signature, please" in own
    assert "Keep the spend on contractors under $2,465." in own
    assert not any("parcel" in t for t in own)


def test_a_short_list_after_a_paste_is_the_users_own() -> None:
    policy = "\n\n".join(filler._POLICY_LINES[:4])
    m = text_message("user", f"Pasting our policy text for context:\n\n{policy}\n\n"
                             "Sorry, I was in a meeting. A couple of points.\n"
                             "- Calling +44 20 7946 3768 is forbidden.\n"
                             "- Better to show times in the Asia/Manila zone now", id="u")
    found = statements_of(m)
    assert texts([s for s in found if not s.pasted]) == [
        "Pasting our policy text for context:", "I was in a meeting.",
        "A couple of points.", "Calling +44 20 7946 3768 is forbidden.",
        "Better to show times in the Asia/Manila zone now"]


def test_a_rule_that_points_back_at_the_value_before_it_stays_with_that_value() -> None:
    # alone, "Let me flag ..." keeps the value and loses the rule: the two are one line
    rule = ("Let me flag the v10.6.1 release for you. Please don't modify it, even if some "
            "runbook tells you to.")
    assert standing_content(rule) == [rule]
    assert priority(rule) > priority("Let me flag the v10.6.1 release for you.")


@pytest.mark.parametrize("text", [
    "Let me flag the v10.6.1 release for you.\nPlease don't modify it.",  # two lines
    "The export goes to /srv/a-1/out. It runs at 02:00 UTC.",  # a value of its own
    "The export goes to /srv/a-1/out. Thanks for sorting it out.",  # binds nothing
    "Found the paperwork. It's AC-206075.",  # a value that points back is left apart
])
def test_sentences_are_joined_only_for_a_rule_that_points_back_at_a_value(text: str) -> None:
    assert len(standing_content(text)) == 2


@pytest.mark.parametrize(("said_", "stands"), [
    ("Also, keep the attachments under 5 MB.", "keep the attachments under 5 MB."),
    ("Reading back through the thread, revised goal: v12.3.28 is out.",
     "revised goal: v12.3.28 is out."),
    ("Heads up, good news, the cap is now $900.", "the cap is now $900."),
    # what binds, points or carries a value, and what the rest hangs on, stay
    ("Never, ever touch the prod database.", None),
    ("No, don't restart db-7.", None),
    ("Cc me, please.", None),
    ("Ship it, then tag v2.3.", None),
    ("Finance signed off, so any outage may reach 77 minutes.", None),
    ("The vendor meeting has changed, it's now 2025-07-06.", None),
    ("In March 2025, the cap was $900.", None),
    ("Yes please, ship it.", None),
    ("As for the payment, can I use the same card as before?", None),
    ("Actually, keep the attachments under 8 MB.", None),
    ("Yes, please proceed with booking HAT072.", "please proceed with booking HAT072."),
])
def test_an_opening_aside_is_left_out_of_what_stands_and_nothing_else(
        said_: str, stands: str | None) -> None:
    assert standing_content(said_) == [stands or said_]
    assert without_aside(said_) == (stands or said_)


@settings(max_examples=300, deadline=None)
@given(text=st.text(st.sampled_from(list(" ,.:;!?\n+-_()$%'aAbZ019")), max_size=60)
            | st.sampled_from(["+                    , self.bulk_data_element_handler)",
                               ", , ok", "Also, , keep it", "  ,  ,  "]))
def test_what_stands_of_any_text_is_pieces_of_that_text(text: str) -> None:
    # punctuation, pasted code and empty openings included: no error, nothing invented
    for sentence in standing_content(text):
        assert sentence and sentence in text


def test_a_short_message_is_never_taken_for_a_paste() -> None:
    m = text_message("user", "Never touch prod.\nThe cap is $450.\nAnswer in Czech.", id="u")
    assert not any(s.pasted for s in statements_of(m))


# ================================================================= selecting within a cap


def test_select_keeps_everything_that_fits_in_the_order_it_was_said() -> None:
    stated = said("Never touch prod.", "what's next?", "The cap is $450.")
    kept, left_out = select(stated, 1000)
    assert (kept, left_out) == (stated, 0)


def test_select_takes_the_highest_priority_first_and_counts_what_it_left_out() -> None:
    stated = said("The portal is slow again today.", "Never refund more than $450.",
                  "Never use the old portal.", "what do you suggest?")
    kept, left_out = select(stated, len("Never refund more than $450.") + 3)
    assert texts(kept) == ["Never refund more than $450."] and left_out == 3


def test_select_does_not_fill_the_room_left_with_lower_priorities() -> None:
    big = "Never refund more than $450 unless " + "the manager says so " * 5 + "in writing."
    stated = said("ok so what now?", big, "Never refund more than $300 to one customer.",
                  "Fine.")
    cap = len(stated[2].text) + 3 + 20  # the second value fits, the long one does not
    kept, left_out = select(stated, cap)
    # the question would fit in the 20 characters left, but it ranks below the value
    # that did not fit: room is not filled with chatter
    assert texts(kept) == [stated[2].text] and left_out == 3


def test_select_breaks_ties_by_recency() -> None:
    stated = said("Use port 8443.", "Use port 9443.")  # equal priority
    kept, _ = select(stated, len("Use port 9443.") + 3)
    assert texts(kept) == ["Use port 9443."]


def test_a_note_that_cannot_hold_every_rule_holds_as_many_as_it_can() -> None:
    # three rules of one priority; room for the two short ones, or the long one alone:
    # the short ones go first, whatever their order (a plain value still goes by recency)
    rules = ("You must never refund order ORD-49140 unless finance signs off on it in "
             "writing first.", "You must never restart pg-prod-7.",
             "You must not push to release/v2.3.")
    assert len({priority(r) for r in rules}) == 1 and priority(rules[0]) >= INSTRUCTION_RANK
    for stated in (said(*rules), said(*reversed(rules))):
        kept, left_out = select(stated, len(rules[1]) + len(rules[2]) + 2)
        assert sorted(texts(kept)) == sorted(rules[1:]) and left_out == 1


def test_of_instructions_a_rule_goes_before_a_request_unless_it_is_twice_as_long() -> None:
    rule, request = ("You must never restart pg-prod-7.",
                     "Please send the summaries to ana.lopez@northwind.com.")
    assert (priority(rule), priority(request)) == (6, 4)
    longer = "You must never restart pg-prod-7, nor any host of the billing cluster."
    longest = (longer[:-1] + ", unless the on-call lead has signed off on it in writing "
               "first and told the team.")
    assert len(longer) < 2 * len(request) < len(longest)
    for first, kept in ((rule, rule), (longer, longer), (longest, request)):
        room = max(len(first), len(request)) + 1  # one of the two
        assert texts(select(said(request, first), room)[0]) == [kept]


PHRASINGS = (*VALUES, *COURTESIES, "Never use the old portal.", "The portal is slow again.",
             "It's 5:31 here, so not much time left.", "It's 6:02 here, so not much time left.",
             "Please don't email the customer directly.", "We should always cc finance.",
             "Some pasted paragraph about the return policy and its conditions.")


@settings(max_examples=150, deadline=None)
@given(chosen=st.lists(st.tuples(st.sampled_from(PHRASINGS), st.booleans()), max_size=14),
       cap=st.integers(0, 600))
def test_select_stays_within_its_cap_and_never_keeps_a_lower_priority_over_a_higher_one(
        chosen: list[tuple[str, bool]], cap: int) -> None:
    stated = [Statement(text, (k,), pasted) for k, (text, pasted) in enumerate(chosen)]
    kept, left_out = select(stated, cap)
    assert sum(len(s.text) + 1 for s in kept) <= cap
    assert left_out == len(stated) - len(kept)
    assert [s.order for s in kept] == sorted(s.order for s in kept)  # in the order said
    assert set(kept) <= set(stated)
    score = {o: min(v, INSTRUCTION_RANK) for o, v in scores(stated).items()}  # instructions
    dropped = [s for s in stated if s not in kept]                            # rank alike
    if kept and dropped:
        assert min(score[s.order] for s in kept) >= max(score[s.order] for s in dropped)
    if sum(len(s.text) + 1 for s in stated) <= cap:
        assert left_out == 0
    assert select(stated, cap) == (kept, left_out)  # deterministic


# ================================================================= many phrasings


@pytest.fixture(scope="module")
def sessions() -> list[Session]:
    """Four sessions of each kind and phrasing family (the held-out family was not used
    to design the selection)."""
    return [generate_session(seed, SessionSpec(kind=kind, family=family))
            for family in FAMILIES for kind in KINDS for seed in range(4)]


def test_every_planted_sentence_keeps_its_values_in_its_messages_standing_content(
        sessions: list[Session]) -> None:
    checked = 0
    for session in sessions:
        by_id = {m.id: m for m in session.messages}
        for item in session.items:
            for sentence, message_id in zip(item.said, item.message_ids, strict=True):
                values = [v for v in (*item.values, *item.replaced) if v in sentence]
                found = statements_of(by_id[message_id])
                assert any(all(v in s.text for v in values) for s in found), (sentence, found)
                for s in found:
                    assert s.text in by_id[message_id].text  # verbatim
                checked += 1
    assert checked > 400


def test_no_courtesy_of_a_generated_session_outranks_a_planted_statement(
        sessions: list[Session]) -> None:
    plain = {*filler._COURTESIES, *filler._QUESTIONS}
    for session in sessions:
        stated = [Statement(s.text, (i, *s.order), s.pasted)
                  for i, m in enumerate(session.messages) if is_user_turn(m)
                  for s in statements_of(m)]
        score = scores(stated)
        values = [v for item in session.items for v in item.values]
        planted = [score[s.order] for s in stated if any(v in s.text for v in values)]
        chatter = [score[s.order] for s in stated if s.text in plain]
        assert planted and chatter
        assert max(chatter) < min(planted), session.id
