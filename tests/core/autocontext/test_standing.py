"""The reader of what the user said, in any language: sentences, values, rules, updates.

What a user relies on: their sentences are found in any script and carried verbatim; a
sentence that binds the assistant (negation, a modal word, a word that asks, the
imperative) outranks one that only carries a number; text the reader cannot classify
is never ranked below what it took for chatter; a value the user changed later stands
at its latest, and two things said in one frame are not taken for one. Everything the
reader knows of a language is in its data file (``standing/languages``).
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmgr.autocontext.marker import offload_tag
from ctxmgr.autocontext.standing import (
    LANGUAGES,
    TRIVIAL_WORDS,
    USER_NOTE_HEADER,
    Statement,
    binds,
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
)
from ctxmgr.autocontext.standing.lexicon import languages_of, marks
from ctxmgr.autocontext.standing.reading import CHATTER, REQUEST, RULE, TEXT, VALUE
from ctxmgr.messages import text_message

# --------------------------------------------------------------------- sentences


@pytest.mark.parametrize(("text", "expected"), [
    ("Never delete the backups. Version 3.5 is out! Is it?",
     ["Never delete the backups.", "Version 3.5 is out!", "Is it?"]),
    ("请不要使用表情符号。永远不要碰生产数据库。预算是5000元！",
     ["请不要使用表情符号。", "永远不要碰生产数据库。", "预算是5000元！"]),
    ("絵文字は使わないでください。予算は3万円です。",
     ["絵文字は使わないでください。", "予算は3万円です。"]),
    ("لا تحذف النسخ الاحتياطية. هل هذا واضح؟ نعم",
     ["لا تحذف النسخ الاحتياطية.", "هل هذا واضح؟", "نعم"]),
    ("Не удаляйте бэкапы.\nБюджет 5000 ₽.", ["Не удаляйте бэкапы.", "Бюджет 5000 ₽."]),
    ("- no emojis\n1) reply in Czech\n[x] keep it short",
     ["no emojis", "reply in Czech", "keep it short"]),
    ("Visit example.com today, the total is 3.5 EUR.",
     ["Visit example.com today, the total is 3.5 EUR."]),
])
def test_sentences_end_at_a_stop_of_any_script_or_a_line_break(text: str,
                                                               expected: list[str]) -> None:
    assert sentences(text) == expected


def test_ctxmgrs_own_markup_is_not_taken_for_the_users_words() -> None:
    text = f"{USER_NOTE_HEADER}\nNever touch prod.\n(+3 more)\n{offload_tag('ab12cd34ef56ab78')}"
    assert sentences(text) == ["Never touch prod."]


@pytest.mark.parametrize("courtesy", ["ok thanks", "好的。", "Danke!", "спасибо", "감사합니다",
                                      "ありがとう。", "شكرا", "perfect", "👍"])
def test_a_courtesy_in_any_language_is_not_content(courtesy: str) -> None:
    assert standing_content(f"{courtesy}\nNever delete the backups.") == [
        "Never delete the backups."]


def test_a_short_sentence_that_binds_is_never_a_courtesy() -> None:
    for rule in ("No emojis.", "别用表情。", "Keine Emojis.", "Без эмодзи нельзя."):
        assert standing_content(rule) == [rule]
        assert len(rule.split()) <= TRIVIAL_WORDS or binds(rule)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_what_stands_of_any_text_is_pieces_of_that_text(text: str) -> None:
    for sentence in standing_content(text):
        assert sentence in text


# ------------------------------------------------------------------------ values


@pytest.mark.parametrize(("sentence", "kinds"), [
    ("预算是5000元。", {"unit:元"}),
    ("预算改成７５００元。", {"unit:元"}),  # full-width digits
    ("予算は3万円です。", {"unit:円"}),
    ("예산은 50만 원입니다.", {"unit:원"}),
    ("Бюджет — 50 000 руб.", {"unit:руб"}),
    ("The budget is $5,000.", {"money"}),
    ("Budget: 4,250.98 EUR.", {"money", "unit:eur"}),
    ("Keep the discount under 25%.", {"percent"}),
    ("Call me on 3月5日 at 14:30.", {"time", "unit:月", "unit:日"}),
    ("The meeting is on 2025-03-05.", {"date"}),
    ("最后p95得低于626ms。", {"unit:ms"}),
    ("Order ORD-37067 is late, mail bob@example.com", {"id"}),
    ("Use /srv/data/export.csv", {"path"}),
    ("v11.31.20 is out", {"id"}),
    ("Answer with «oui» only", {"quoted"}),
    ("最高折扣是百分之四十四。", {"percent"}),  # Han numerals, two or more
    ("回复一律用纯文本。", set()),
    ("Keep the answers short.", set()),
])
def test_values_are_found_in_any_script(sentence: str, kinds: set[str]) -> None:
    assert value_kinds(sentence) - {"name"} == kinds


def test_a_capital_names_something_only_where_nouns_have_none() -> None:
    assert "name" in value_kinds("Always reply in Czech.")
    assert "name" in value_kinds("Die Signatur ab heute: Torsten Lindemann.")
    assert "name" not in value_kinds("Die Datenbank Produktion darf nicht verändert werden.")


# ---------------------------------------------------------------- rules and ranks

RULES = {  # language: (a rule without a value, a sentence that only carries a number)
    "en": ("Keep the answers short.", "I had 3 coffees."),
    "de": ("Bitte keine Emojis verwenden.", "Ich hatte heute 3 Kaffee."),
    "fr": ("N'utilisez jamais d'emojis.", "J'ai bu 3 cafés ce matin."),
    "es": ("Nunca uses emojis.", "Me tomé 3 cafés esta mañana."),
    "pt": ("Não use emojis, por favor.", "Tomei 3 cafés hoje."),
    "it": ("Non usare mai le emoji.", "Ho bevuto 3 caffè stamattina."),
    "nl": ("Gebruik geen emoji.", "Ik heb vandaag 3 koffie gedronken."),
    "ru": ("Не используйте эмодзи.", "Я выпил 3 чашки кофе."),
    "pl": ("Nigdy nie używaj emoji.", "Wypiłem dziś 3 kawy."),
    "tr": ("Lütfen emoji kullanmayın.", "Bugün 3 kahve içtim."),
    "zh": ("请不要使用表情符号。", "我今天喝了3杯咖啡。"),
    "ja": ("絵文字は使わないでください。", "今日はコーヒーを3杯飲んだ。"),
    "ko": ("이모티콘을 사용하지 마세요.", "오늘 커피를 3잔 마셨어요."),
    "ar": ("لا تستخدم الرموز التعبيرية من فضلك.", "شربت 3 أكواب من القهوة اليوم."),
}


def test_every_language_the_issue_names_has_a_data_file() -> None:
    assert set(RULES) <= set(LANGUAGES)


@pytest.mark.parametrize("language", sorted(RULES))
def test_a_rule_outranks_a_sentence_that_only_carries_a_number(language: str) -> None:
    rule, number = RULES[language]
    assert language in languages_of(rule)
    assert binds(rule) and not binds(number)
    assert priority(rule) > priority(number)


@pytest.mark.parametrize(("question", "asking"), [
    ("Which one should we tackle first?", "Could you please keep it short?"),
    ("Что нам делать дальше?", "Не могли бы вы, пожалуйста, отвечать кратко?"),
])
def test_a_question_binds_only_when_it_asks_for_something(question: str,
                                                         asking: str) -> None:
    assert not binds(question) and priority(question) == CHATTER
    assert binds(asking)


def test_a_rule_ranks_above_a_request_which_ranks_above_a_plain_value() -> None:
    assert priority("Never delete the backups.") == RULE
    assert priority("Please draft a short reply.") == REQUEST
    assert priority("My extension is 451.") == VALUE
    assert RULE > REQUEST > VALUE > TEXT > CHATTER


def test_text_the_reader_cannot_classify_ranks_above_what_it_took_for_chatter() -> None:
    unknown = "नमस्ते, मेरा नाम राहुल है और मैं दिल्ली से हूँ"  # Hindi: no data file
    assert languages_of(unknown) == frozenset() and priority(unknown) == TEXT
    assert priority(unknown) > priority("what's the status?")


@pytest.mark.parametrize("update", [
    "计划有变，回复的落款改成赵国栋。",  # a name in Han: no value the reader can see
    "更新：对我的称呼从现在起是马志强。",
    "업데이트 — 답장 서명: 앞으로 한유진.",
    "Обновление: подпись с этого момента другая.",
    "Petite mise à jour : la signature change désormais.",
])
def test_text_that_says_something_changed_ranks_as_the_request_it_may_update(
        update: str) -> None:
    # what the user now wants, though the reader cannot link it to what it replaces: it
    # must not lose its place to that older request, nor outrank a rule
    assert priority(update) >= priority("请叫我王伟。") == REQUEST
    assert priority(update) > priority("我们昨天去了公园，天气很好。") == TEXT
    assert priority(update) < priority("永远不要碰生产数据库。")


@pytest.mark.parametrize(("rule", "focus"), [
    ("Customers get formal address, surnames only.", "Only 13% of the tickets are urgent."),
    ("Also nur Klartext, kein Markdown.", "Nur 3 von 20 Tickets sind dringend."),
    ("只用纯文本。", "我只喝了3杯咖啡。"),
])
def test_only_binds_unless_it_puts_a_number_in_focus(rule: str, focus: str) -> None:
    assert binds(rule) and not binds(focus)


@pytest.mark.parametrize("bound", ["max 5 sentences per answer",
                                   "The vendor API timeout is 223 seconds tops.",
                                   "广告一个月不能超过37万元。",
                                   "Ответы — не более 5 предложений."])
def test_a_limit_on_a_value_binds(bound: str) -> None:
    assert binds(bound)
    assert not binds("We walked over to the other office.")


@pytest.mark.parametrize("wish", ["Ich möchte, dass die Backups in Ruhe gelassen werden.",
                                  "Kannst du auf Markdown verzichten?",
                                  "我希望回复都用捷克语。", "Je voudrais des réponses courtes.",
                                  # "can you" as each language asks it, word order and all
                                  "Vous pouvez garder les réponses courtes ?",
                                  "Не могла бы ты отвечать покороче?",
                                  "이모티콘 없이 쓸 수 있나요?", "Dá pra responder sem emojis?"])
def test_a_wish_or_a_question_that_asks_is_a_request(wish: str) -> None:
    assert priority(wish) == REQUEST


@pytest.mark.parametrize("general", ["All customer-facing stuff goes out in Czech.",
                                     "Jede Nachricht an Kunden geht vorher über meinen Tisch.",
                                     "Любое сообщение клиенту сначала проходит через меня.",
                                     "所有发给客户的东西都用捷克语。"])
def test_a_sentence_about_every_case_is_a_rule_of_the_conversation(general: str) -> None:
    assert binds(general)


def test_a_limit_with_a_number_written_out_binds() -> None:
    assert binds("Ответы — меньше пяти предложений, я читаю с телефона.")
    assert binds("Keep answers under five sentences, I read these on my phone.")


def test_a_word_several_languages_share_tells_less_than_one_of_its_own() -> None:
    assert languages_of("I want to go home.") == {"en"}  # not Dutch for its "want"
    assert languages_of("Unser Ticketsystem zeigt Markdown roh an, also nur Klartext.") == {"de"}


def test_a_word_of_one_language_is_not_read_in_another() -> None:
    assert languages_of("Le rendez-vous est le 5 mai.") == {"fr"}
    assert "negation" not in marks("Le rendez-vous est le 5 mai.")  # Italian "mai"
    assert "negation" in marks("Non dimenticare mai i backup.")


def test_a_reading_taken_again_with_other_numbers_is_chatter_unless_it_asks() -> None:
    said = [Statement("The queue shows 16 people waiting.", (1,)),
            Statement("The queue shows 21 people waiting.", (2,)),
            Statement("Keep the discount under 29%.", (3,)),
            Statement("Keep the discount under 17%.", (4,))]
    score = scores(said)
    assert score[(2,)] == CHATTER
    assert score[(4,)] >= RULE


def test_a_pasted_paragraph_ranks_after_what_the_user_wrote_but_a_typed_list_does_not() -> None:
    pasted = text_message("user", "Here's the log:\n\n" + "\n".join(
        f"2024-01-0{k}T10:00:00Z ERROR job {k} failed" for k in range(1, 9))
        + "\n\nNever restart the scheduler.")
    found = statements_of(pasted)
    assert [s.pasted for s in found] == [False, *[True] * 8, False]
    listed = text_message("user", "House rules:\n1) no emojis\n2) reply in Czech\n"
                                  "3) backups are off limits\n4) sign as Dana\n5) no tables\n"
                                  "6) plain text\n\nLunch was a sad sandwich.")
    rules = [s for s in statements_of(listed) if s.listed]
    assert [s.text for s in rules] == ["no emojis", "reply in Czech", "backups are off limits",
                                       "sign as Dana", "no tables", "plain text"]
    score = scores(statements_of(listed))
    lunch = next(s for s in statements_of(listed) if s.text.startswith("Lunch"))
    assert all(score[s.order] > score[lunch.order] for s in rules)


def test_a_note_ctxmgr_wrote_is_read_back_line_by_line() -> None:
    note = text_message("user", f"{USER_NOTE_HEADER}\n请不要使用表情符号。\nNever touch prod.\n"
                                f"(+2 more)\n{offload_tag('ab12cd34ef56ab78')}")
    assert [s.text for s in statements_of(note)] == ["请不要使用表情符号。", "Never touch prod."]


# ------------------------------------------------------------------ latest value

UPDATES = [
    ("Keep the planned downtime under 222 minutes.", "The planned downtime is now 125 minutes."),
    ("The deadline is 2024-05-17.", "The deadline moved to 2024-06-01."),
    ("Our staging server is 10.0.4.17.", "Our staging server is now 10.0.9.3."),
    ("预算是5000元。", "预算改成７５００元。"),
    ("予算は3万円です。", "予算は5万円に変更です。"),
    ("Бюджет на рекламу — 5000 рублей в месяц.", "Теперь бюджет на рекламу — 8000 рублей в месяц."),
    ("Das Werbebudget ist auf 9.820 EUR im Monat gedeckelt.",
     "Neuer Stand: das monatliche Werbebudget ist jetzt 9.260 Euro."),
    ("Meine Kundennummer ist AC-585630.",
     "Planänderung – meine Kundennummer: ab sofort AC-732216."),
]


@pytest.mark.parametrize(("earlier", "later"), UPDATES)
def test_a_new_value_for_the_same_thing_replaces_the_old_one(earlier: str, later: str) -> None:
    said = [Statement("Never touch the prod database.", (0,)), Statement(earlier, (1,)),
            Statement(later, (2,))]
    assert [s.text for s in latest(said)] == ["Never touch the prod database.", later]


@pytest.mark.parametrize("frame", [
    "Small change: the {} becomes {}.",
    "Korrektur: {} ist {}, nicht das, was ich vorhin gesagt habe.",
])
def test_updates_of_several_things_in_one_frame_replace_only_their_own(frame: str) -> None:
    """Words the conversation says around many values are a way of speaking, not what a
    value is about: only the thing's own words link an update to what it replaces."""
    things = [("suite that has to pass", "tests/quarry_orchid", "tests/wombat_sparrow"),
              ("config file", "/srv/wombat-23/tamarind.yaml", "/etc/vellum/walrus-54.conf"),
              ("monthly ad budget", "940 EUR", "1,190 EUR"),
              ("import batch size", "20,485 rows", "13,264 rows")]
    said = [Statement(frame.format(name, old), (k,)) for k, (name, old, _) in enumerate(things)]
    said += [Statement(frame.format(name, new), (10 + k,))
             for k, (name, _, new) in enumerate(things)]
    assert [s.order for s in latest(said)] == [(10,), (11,), (12,), (13,)]


@pytest.mark.parametrize(("earlier", "later"), [
    # a rule about a thing is not a new value of a statement of one
    ("Never refund ORD-10293.", "The refund for ORD-55821 has gone through."),
    # a value of another kind, and a sentence that would lose a value
    ("The refund cap is $450.", "The refund window is 30 days."),
    ("The refund cap is $450 and refunds close after 30 days.", "The refund cap is $650 now."),
    # German nouns are capitalised: not names that a later name replaces
    ("Die Datenbank Produktion darf nicht verändert werden.",
     "Die Datenbank Produktion läuft auf Server Nord."),
])
def test_a_value_for_another_thing_replaces_nothing(earlier: str, later: str) -> None:
    assert not supersedes(later, earlier)
    assert len(latest([Statement(earlier, (1,)), Statement(later, (2,))])) == 2


def test_a_restatement_with_every_value_again_replaces_the_earlier_one() -> None:
    assert supersedes("Once more: ORD-77489 is the order.", "The order is ORD-77489.")


def test_an_update_in_other_words_is_likely_and_ranks_the_earlier_one_lower() -> None:
    said = [Statement("The ticket for this is TCK-53140.", (1,)),
            Statement("Never touch prod.", (2,)),
            Statement("Correction: the support case is actually TCK-87780.", (3,))]
    assert likely_updates(said) == {(3,): (1,)}
    score = scores(said)
    assert score[(3,)] > score[(1,)]


# -------------------------------------------------------------------- selection


def test_select_keeps_what_fits_in_the_order_it_was_said() -> None:
    said = [Statement(t, (k,)) for k, t in enumerate(
        ["Never touch prod.", "My extension is 451.", "Keep the answers short."])]
    kept, left = select(said, 1000)
    assert [s.text for s in kept] == [s.text for s in said] and left == 0


def test_select_takes_rules_first_and_counts_what_it_left_out() -> None:
    said = [Statement(t, (k,)) for k, t in enumerate(
        ["I had 3 coffees today.", "Never touch prod.", "My extension is 451.",
         "Keep the answers short."])]
    kept, left = select(said, 45)
    assert [s.text for s in kept] == ["Never touch prod.", "Keep the answers short."]
    assert left == 2


def test_select_does_not_fill_the_room_left_with_lower_ranks() -> None:
    said = [Statement("Never delete anything under /srv/keep/ without asking me first.", (0,)),
            Statement("Ok, another thing then.", (1,))]
    kept, _ = select(said, 30)
    assert kept == []


def test_nfkc_width_does_not_make_two_sentences_of_one() -> None:
    half, full = "预算是5000元。", unicodedata.normalize("NFKC", "预算是５０００元。")
    assert half == full
