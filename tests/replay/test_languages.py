"""The polyglot suite (issue 41): sessions in fourteen languages and an outside-style
family are deterministic, valid measuring instruments written in each language's own
script and punctuation; scoring keeps an item without a value by its sentence (after
NFKC and whitespace) and an item with a value by its latest value; the ceiling keeps
everything when there is room; the benchmark runs, writes its section, and turns bad
input into one line and exit 2."""

from __future__ import annotations

import importlib.util
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest
from planted.compressors import Compressed, ceiling_compressor
from planted.kept import is_kept, is_stale, normalize, said_verbatim, score_items
from planted.languages import (
    FORMS,
    ITEM_TYPES,
    LANGUAGE_CODES,
    OUTSIDE_CODES,
    SUBJECTS,
    language,
    script_share,
    subjects_of,
)
from planted.polyglot import (
    LAYOUTS,
    PolyglotItem,
    PolyglotSession,
    PolyglotSpec,
    check_polyglot_session,
    generate_polyglot_session,
    generate_polyglot_sessions,
)
from planted.polyglot_protocol import Survival, Tally, run_polyglot, target_checks

from ctxmgr import Message, validate_pairing
from ctxmgr.messages import message_to_dict, text_message
from ctxmgr.replay.fidelity import visible_text

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_languages.py"
_LOG_ROW = re.compile(r"^20\d\d-\d\d-\d\dT", re.M)


@pytest.fixture(scope="module")
def native() -> dict[str, list[PolyglotSession]]:
    """Three chat sessions in every language."""
    return {code: generate_polyglot_sessions(3, PolyglotSpec(language=code))
            for code in LANGUAGE_CODES}


@pytest.fixture(scope="module")
def outside() -> dict[str, list[PolyglotSession]]:
    """Three outside-style sessions in every language that writes them."""
    return {code: generate_polyglot_sessions(3, PolyglotSpec(language=code, family="outside"))
            for code in OUTSIDE_CODES}


def _item(said: tuple[str, ...], values: tuple[str, ...] = (),
          replaced: tuple[str, ...] = ()) -> PolyglotItem:
    return PolyglotItem(key="i00", type="instruction" if not values else "constraint",
                        subject="no_emojis" if not values else "refund_cap", language="en",
                        position="early", values=values, replaced=replaced,
                        latest=values[0] if replaced else None, said=said,
                        message_ids=("m",) * len(said), form="casual")


# ---------------------------------------------------------------- the sessions


@pytest.mark.parametrize("spec", [PolyglotSpec(language="en"),
                                  PolyglotSpec(language="zh", kind="tools"),
                                  PolyglotSpec(language="ru", family="outside")],
                         ids=["en-chat", "zh-tools", "ru-outside"])
def test_a_seed_gives_the_same_session_every_time(spec: PolyglotSpec) -> None:
    a, b = generate_polyglot_session(5, spec), generate_polyglot_session(5, spec)
    assert [message_to_dict(m) for m in a.messages] == [message_to_dict(m) for m in b.messages]
    assert a.items == b.items
    other = generate_polyglot_session(6, spec)
    assert [m.text for m in other.messages] != [m.text for m in a.messages]


def test_a_seed_plants_the_same_subjects_at_the_same_turns_in_every_language(
        native: dict[str, list[PolyglotSession]]) -> None:
    def shape(s: PolyglotSession) -> list[tuple[str, str, bool, tuple[int, ...]]]:
        where = {m.id: k for k, m in enumerate(s.messages) if m.role == "user"}
        users = sorted(where.values())
        return [(i.subject, i.position, i.updated,
                 tuple(users.index(where[m]) for m in i.message_ids)) for i in s.items]

    english = [shape(s) for s in native["en"]]
    for code, sessions in native.items():
        assert [shape(s) for s in sessions] == english, code


def test_every_session_is_a_valid_instrument(native: dict[str, list[PolyglotSession]],
                                             outside: dict[str, list[PolyglotSession]]
                                             ) -> None:
    tools = [generate_polyglot_session(1, PolyglotSpec(language=c, kind="tools"))
             for c in LANGUAGE_CODES]
    for s in [*tools, *(s for v in (*native.values(), *outside.values()) for s in v)]:
        assert validate_pairing(s.messages, allow_in_flight=False) == [], s.id
        assert check_polyglot_session(s) == [], s.id
    assert all(any(m.role == "tool" for m in s.messages) for s in tools)


def test_every_planted_value_occurs_only_in_its_own_items_messages(
        native: dict[str, list[PolyglotSession]],
        outside: dict[str, list[PolyglotSession]]) -> None:
    for s in (s for v in (*native.values(), *outside.values()) for s in v):
        texts = {m.id: normalize(visible_text(m)) for m in s.messages}
        for item in s.items:
            for value in (*item.values, *item.replaced):
                where = {i for i, t in texts.items() if normalize(value) in t}
                assert where and where <= set(item.message_ids), (s.id, value)
            if item.valueless:
                for said in item.said:
                    where = {i for i, t in texts.items() if normalize(said) in t}
                    assert where and where <= set(item.message_ids), (s.id, said)


def test_each_session_plants_every_item_type_with_updates_and_rules_without_a_value(
        native: dict[str, list[PolyglotSession]]) -> None:
    for s in native["de"]:
        assert Counter(i.type for i in s.items) == dict.fromkeys(ITEM_TYPES, 3)
        assert sum(i.updated for i in s.items) == 5
        assert sum(i.valueless for i in s.items) >= 3
        users = [m for m in s.messages if m.role == "user"]
        planted = {m for i in s.items for m in i.message_ids}
        assert users[0].id not in planted and users[-1].id not in planted


def test_a_replaced_value_is_said_only_before_its_update(
        native: dict[str, list[PolyglotSession]]) -> None:
    for s in native["ja"]:
        order = {m.id: k for k, m in enumerate(s.messages)}
        for item in (i for i in s.items if i.updated):
            update = order[item.message_ids[-1]]
            assert item.latest is not None and item.latest in item.said[-1]
            for said, mid in zip(item.said, item.message_ids, strict=True):
                assert (item.replaced[0] in said) == (order[mid] < update)


def test_the_outside_family_lays_items_out_in_lists_caps_pastes_and_paragraphs(
        outside: dict[str, list[PolyglotSession]]) -> None:
    more = [s for code in OUTSIDE_CODES
            for s in generate_polyglot_sessions(6, PolyglotSpec(language=code, family="outside"),
                                                first_seed=3)]
    layouts = Counter(i.layout for v in outside.values() for s in v for i in s.items)
    layouts.update(i.layout for s in more for i in s.items)
    assert set(layouts) == set(LAYOUTS)
    en = outside["en"][0]
    lists = [m.text for m in en.messages if m.role == "user"
             and re.search(r"^(?:\d\) |- |\* |• )", m.text, re.M)]
    assert lists, "no typed checklist"
    assert max(len(re.findall(r"^(?:\d\) |- |\* |• )", t, re.M)) for t in lists) >= 3
    caps = [i for s in more if s.spec.language == "en" for i in s.items if i.layout == "caps"]
    assert caps and all(re.sub(r"[^A-Za-z]", "", i.said[0].replace(i.values[0] if i.values
                                                                   else "", "")).isupper()
                        for i in caps)


# ---------------------------------------------------------------- the languages


def test_every_language_file_has_every_subject_value_kind_and_form() -> None:
    for code in LANGUAGE_CODES:
        lang = language(code)  # checks {v}, labels and value kinds
        forms = {s.form for key in SUBJECTS for s in lang.subjects[key].said}
        assert forms >= set(FORMS) - {"statement"}, code
        for t in ITEM_TYPES:
            said = [s for key in subjects_of(t) for s in lang.subjects[key].said]
            assert len({s.text for s in said}) >= 8, (code, t)
            assert len({s.form for s in said}) >= 4, (code, t)
    with pytest.raises(ValueError, match="language must be one of"):
        language("xx")


def test_each_language_is_written_in_its_own_script(
        native: dict[str, list[PolyglotSession]]) -> None:
    for code, sessions in native.items():
        lang = language(code)
        said, chat = [], []
        for s in sessions:
            values = [v for i in s.items for v in (*i.values, *i.replaced)]
            for i in s.items:
                said += [re.sub("|".join(map(re.escape, values)) or "^$", " ", t)
                         for t in i.said]
            chat += [m.text for m in s.messages if m.role in ("user", "assistant")
                     and not _LOG_ROW.search(m.text) and not any(v in m.text for v in values)]
        assert script_share(" ".join(said), lang.script) >= 0.95, code
        assert script_share(" ".join(chat), lang.script) >= 0.9, code


def test_no_two_languages_share_a_phrasing_or_a_remark() -> None:
    seen: dict[str, str] = {}
    for code in LANGUAGE_CODES:
        lang = language(code)
        texts = {s.text for t in lang.subjects.values() for s in t.said}
        texts |= set(lang.explanations) | set(lang.status) | set(lang.questions)
        for text in texts:
            assert seen.setdefault(text, code) == code, (text, seen[text], code)


def test_each_language_uses_its_own_punctuation() -> None:
    marks = {"zh": "。，？", "ja": "。、？", "ar": "،؟", "es": "¿", "fr": "«", "de": "„",
             "pl": "„", "ru": "«—"}
    for code, wanted in marks.items():
        lang = language(code)
        text = " ".join([*(s.text for t in lang.subjects.values() for s in t.said),
                         *lang.questions, *lang.email_lines, *lang.explanations])
        assert all(c in text for c in wanted), (code, [c for c in wanted if c not in text])
        if not lang.spaced:
            assert "." not in text.replace("...", "")


def test_chinese_and_japanese_messages_put_no_space_between_sentences(
        native: dict[str, list[PolyglotSession]]) -> None:
    for code in ("zh", "ja"):
        for s in native[code]:
            for m in s.messages:
                if m.role in ("user", "assistant"):
                    assert not re.search(r"[。！？] ", m.text), (code, m.text)


def test_cjk_and_arabic_amounts_are_written_the_local_way() -> None:
    rng = random.Random(3)
    money = {code: [language(code).values["money"](rng) for _ in range(200)]
             for code in ("zh", "ja", "ko", "ar")}
    assert all(re.search(r"元|块|^￥", v) for v in money["zh"])
    assert any("万元" in v for v in money["zh"])
    assert any(re.search("[０-９]", v) for v in money["zh"])
    assert all(re.search(r"円|^¥", v) for v in money["ja"]) and any("万円" in v
                                                                    for v in money["ja"])
    assert all(re.search(r"원|^₩", v) for v in money["ko"]) and any("만 원" in v
                                                                    for v in money["ko"])
    assert any(re.search("[٠-٩]", v) for v in money["ar"])
    percents = [language("tr").values["percent"](rng) for _ in range(50)]
    assert any(v.startswith("%") for v in percents)


# ---------------------------------------------------------------- scoring


def test_an_item_without_a_value_is_kept_by_the_sentence_that_said_it() -> None:
    item = _item(("Don't put emojis in anything you write for me.",))
    assert is_kept(item, normalize("Notes:\n- Don't put emojis in anything you write for me."))
    assert not is_kept(item, normalize("- emojis in anything you write for me."))
    assert not is_kept(item, normalize("Don't put emojis in anything"))


def test_sentences_are_compared_after_nfkc_and_collapsed_whitespace() -> None:
    item = _item(("请一次不要导入超过５０００条。",))
    assert is_kept(item, normalize("请一次不要导入超过5000条。"))
    spaced = _item(("Never mention our competitor by name in a reply.",))
    assert is_kept(spaced, normalize("Never mention our\n  competitor by name in a reply."))
    french = _item(("Tu peux vérifier\u202f?",))
    assert is_kept(french, normalize("Tu peux vérifier ?"))


def test_a_rule_said_twice_is_kept_by_either_sentence() -> None:
    item = _item(("no emojis please, they look cheap",
                  "Don't put emojis in anything you write for me."))
    assert is_kept(item, normalize("Don't put emojis in anything you write for me."))
    assert is_kept(item, normalize("no emojis please, they look cheap"))


def test_an_item_with_a_value_needs_its_latest_value_to_have_the_last_word() -> None:
    item = _item(("Refunds must not go above $450 per order.",
                  "Change of plan, the refund limit per order is now $650."),
                 values=("$650",), replaced=("$450",))
    assert is_kept(item, normalize("cap $450 ... later: cap $650"))
    assert is_stale(item, normalize("cap $450 ... later: cap $650"))
    assert not is_kept(item, normalize("cap $650 ... and then $450"))
    assert not is_kept(item, normalize("nothing here"))
    assert not said_verbatim(item, normalize("cap $650"))
    assert said_verbatim(item, normalize("Change of plan, the refund limit per order is now "
                                         "$650."))
    wide = _item(("每笔订单的退款不能超过５０００元。",), values=("５０００元",))
    assert is_kept(wide, normalize("退款上限5000元"))


def test_score_items_reads_what_the_model_reads() -> None:
    kept = _item(("Never delete the backups, whatever the disk usage looks like.",))
    prompt = [text_message("user", "Never delete the backups, whatever the disk usage "
                                   "looks like.")]
    assert [s.kept for s in score_items([kept], prompt)] == [True]
    assert [s.kept for s in score_items([kept], [text_message("user", "hi")])] == [False]


# ---------------------------------------------------------------- the protocol


def test_the_ceiling_keeps_everything_when_there_is_room(
        native: dict[str, list[PolyglotSession]],
        outside: dict[str, list[PolyglotSession]]) -> None:
    for s in [*(v[0] for v in native.values()), *(v[0] for v in outside.values())]:
        (run,) = run_polyglot(s, shares=[0.6], compressor=ceiling_compressor(s),
                              name="ceiling")
        assert all(score.kept for score in run.rounds[0].scores), s.id
        assert run.rounds[0].tokens <= run.window


def test_each_round_compresses_the_previous_rounds_prompt_at_each_share() -> None:
    s = generate_polyglot_session(0, PolyglotSpec(language="ko"))
    ceiling = ceiling_compressor(s)
    seen: list[tuple[list[str], int]] = []

    def recording(messages: Sequence[Message], window: int) -> Compressed:
        seen.append(([m.text for m in messages], window))
        return ceiling(messages, window)

    runs = run_polyglot(s, shares=[0.5, 0.3], rounds=2, mode="wire", compressor=recording,
                        name="ceiling")
    assert [r.share for r in runs] == [0.5, 0.3]
    assert [len(r.rounds) for r in runs] == [2, 2]
    assert seen[0][0] == [m.text for m in s.messages]
    assert seen[1][0] == [m.text for m in runs[0].rounds[0].prompt]
    assert [w for _, w in seen] == [runs[0].window] * 2 + [runs[1].window] * 2
    with pytest.raises(ValueError, match="share must be in"):
        run_polyglot(s, shares=[1.5])


def test_the_targets_compare_each_language_with_english_on_the_worst_round() -> None:
    def survival(lang: str, share: float, rnd: int, kept: int) -> Survival:
        s = Survival(compressor="ctxmgr", family="native", language=lang, kind="chat",
                     share=share, round=rnd, items=Tally(kept, 100),
                     by_type={t: Tally() for t in ITEM_TYPES}, valueless=Tally(19, 20),
                     latest=Tally(10, 10))
        return s
    rows = [survival("en", 0.5, 1, 100), survival("de", 0.5, 1, 96),
            survival("de", 0.5, 2, 90)]
    checks = {c.what: c for c in target_checks(rows, []) if c.share == 0.5}
    assert checks["de / English"].figure == pytest.approx(0.90)
    assert not checks["de / English"].passed
    assert checks["de without a value"].passed
    assert "en / English" not in checks


def test_a_spec_names_the_language_and_family_it_can_write() -> None:
    with pytest.raises(ValueError, match="language must be one of"):
        PolyglotSpec(language="cs")
    with pytest.raises(ValueError, match="outside family is written in"):
        PolyglotSpec(language="fr", family="outside")
    with pytest.raises(ValueError, match="user_turns"):
        PolyglotSpec(user_turns=12)


# ---------------------------------------------------------------- the benchmark


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_languages", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_languages"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("argv, message", [
    (["--sessions", "0"], "--sessions must be at least 1, got 0"),
    (["--languages", "en", "xx"], "unknown language 'xx'"),
    (["--outside-languages", "fr"], "unknown outside language 'fr'"),
    (["--shares", "0"], "shares must be in (0, 1], got 0.0"),
    (["--mode", "carrier-pigeon"], "unknown mode 'carrier-pigeon'"),
    (["--sessions", "x"], "invalid int value"),
])
def test_bad_input_is_one_line_and_exit_2(bench: ModuleType, capsys: pytest.CaptureFixture[str],
                                          argv: list[str], message: str) -> None:
    try:
        code = bench.main(argv)
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1 and err.startswith("bench_languages: ")


def test_a_small_run_prints_writes_json_and_its_section(
        bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Results\n\n<!-- other -->\nkept\n<!-- /other -->\n", encoding="utf-8")
    out = tmp_path / "languages.json"
    code = bench.main(["--sessions", "1", "--languages", "en", "zh", "--shares", "0.5",
                       "--outside-sessions", "1", "--outside-languages", "en",
                       "--outside-shares", "0.3", "--json", str(out),
                       "--markdown", str(results)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "| zh |" in printed and "safety rules" in printed and "without a value" in printed
    data = json.loads(out.read_text(encoding="utf-8"))
    assert {(s["language"], s["compressor"]) for s in data["summaries"]} >= {
        ("en", "ctxmgr"), ("zh", "ctxmgr"), ("en", "ceiling"), ("zh", "ceiling")}
    assert {t["what"] for t in data["targets"]} >= {"zh / English", "outside overall"}
    text = results.read_text(encoding="utf-8")
    assert "<!-- other -->\nkept\n<!-- /other -->" in text
    assert "<!-- bench_languages -->" in text and "### Targets" in text
