"""`ctxmgr replay`: JSON layout, input formats, plot, and one-line errors with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxmgr.cli import main
from ctxmgr.replay import METRIC_KEYS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trajectories"
TAU = FIXTURES / "tau_airline_gpt4o_first12.jsonl"


def _one_swe() -> Path:
    return min(FIXTURES.glob("swe__*.json"), key=lambda p: p.stat().st_size)


def test_json_report_has_the_spec_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    out = tmp_path / "report.json"
    rc = main(["replay", str(TAU), "--max-tokens", "4000", "--policy", "none",
               "langchain_context_editing", "--json", str(out)])
    assert rc == 0
    data = json.loads(out.read_text())
    assert set(data) == {"budget", "pricing", "policies"}
    assert data["pricing"] == {"cache_read": 0.1, "cache_write": 1.0}
    assert data["budget"] == 4000
    assert list(data["policies"]) == ["none", "langchain_context_editing"]
    for body in data["policies"].values():
        assert set(body) == {"aggregate", "trajectories"}
        assert set(METRIC_KEYS) <= set(body["aggregate"])
        assert len(body["trajectories"]) == 12
        for row in body["trajectories"]:
            assert row["id"].startswith("tau-airline-")
            assert set(METRIC_KEYS) <= set(row)
            assert {"user_verbatim", "earlier_user_messages", "earlier_tool_calls"} <= set(row)
    none = data["policies"]["none"]["aggregate"]
    assert none["user_retention"] == none["user_verbatim"] == none["actions_retained"] == 1.0
    assert none["earlier_user_messages"] > 0 and none["earlier_tool_calls"] > 0
    table = capsys.readouterr().out
    assert "langchain_context_editing" in table and "savings" in table
    assert "actions" in table  # the actions_retained column


def test_plain_openai_messages_file_and_plot(tmp_path: Path) -> None:
    record = json.loads(_one_swe().read_text())
    plain = tmp_path / "messages.json"
    plain.write_text(json.dumps(record["messages"]))
    png, out = tmp_path / "curve.png", tmp_path / "r.json"
    rc = main(["replay", str(plain), "--policy", "none", "--max-tokens", "8000",
               "--json", str(out), "--plot", str(png)])
    assert rc == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = json.loads(out.read_text())["policies"]["none"]["trajectories"]
    assert rows[0]["id"] == "messages" and rows[0]["model_calls"] > 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"messages": [{"role": "robot", "content": "hi"}]}', "unknown role"),
        ('[{"role": "tool", "content": "x", "tool_call_id": "nope"}]', "broken tool pairing"),
        ('{"no": "messages"}', "expected a list of messages"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          content: str, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert main(["replay", str(bad), "--policy", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert "Traceback" not in err


def test_missing_file_and_bad_options_exit_2(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nope.json")]) == 2
    assert main(["replay", str(TAU), "--policy", "nope"]) == 2
    assert main(["replay", str(TAU), "--max-tokens", "0"]) == 2
    assert main(["replay", str(TAU), "--summarizer", "nosuchprovider:model"]) == 2
    assert main(["replay", str(tmp_path)]) == 2  # an empty directory
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 5
    assert "nope.json" in lines[0]
    assert "unknown policy 'nope'" in lines[1]
    assert "cannot create summarizer 'nosuchprovider:model'" in lines[3]
    assert "no trajectories found" in lines[4]


def test_cache_rates_price_every_policy_alike_and_the_table_shows_the_cache(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    rc = main(["replay", str(TAU), "--max-tokens", "4000", "--policy", "none", "ctxmgr",
               "--cache-read", "0.1", "--cache-write", "1.25", "--json", str(out)])
    assert rc == 0
    data = json.loads(out.read_text())
    assert data["pricing"] == {"cache_read": 0.1, "cache_write": 1.25}
    for body in data["policies"].values():
        a = body["aggregate"]
        expected = 0.1 * a["cached_tokens"] + 1.25 * a["uncached_tokens"] + a[
            "summarizer_tokens"]
        assert a["effective_cost"] == round(expected, 1)
        assert a["uncached_tokens"] == a["prompt_tokens"] - a["cached_tokens"]
        for row in body["trajectories"]:
            assert {"compressions_per_100_calls", "prefix_changed_share",
                    "cost_share_uncached", "cost_share_cached",
                    "cost_share_summarizer"} <= set(row)
    ctxmgr = data["policies"]["ctxmgr"]["aggregate"]
    assert ctxmgr["compressions"] == sum(ctxmgr["events"].values())
    assert 0 < ctxmgr["prefix_changed_calls"] <= ctxmgr["model_calls"]
    table = capsys.readouterr().out
    assert "cache reads 0.1, writes 1.25" in table
    assert "prompt cache" in table and "prefix changed" in table and "compr./100" in table


@pytest.mark.parametrize(("options", "message"), [
    (["--cache-read", "-1"], "--cache-read must be a number >= 0"),
    (["--cache-write", "nan"], "--cache-write must be a number >= 0"),
    (["--cache-read", "1.25", "--cache-write", "0.1"],
     "--cache-read 1.25 is above --cache-write 0.1"),
    (["--cache-write", "cheap"], "invalid float value: 'cheap'"),
])
def test_bad_cache_rates_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str],
                                                 options: list[str], message: str) -> None:
    assert main(["replay", str(TAU), "--policy", "none", *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_markdown_sections_are_replaced_in_place(tmp_path: Path) -> None:
    from ctxmgr.replay.report import replace_markdown_section

    path = tmp_path / "RESULTS.md"
    replace_markdown_section(path, "a", "table A v1")
    replace_markdown_section(path, "b", "table B")
    path.write_text(path.read_text() + "\nhand-written notes\n")
    replace_markdown_section(path, "a", "table A v2")
    text = path.read_text()
    assert "table A v1" not in text
    assert text.index("table A v2") < text.index("table B") < text.index("hand-written notes")
    assert text.count("<!-- a -->") == 1
