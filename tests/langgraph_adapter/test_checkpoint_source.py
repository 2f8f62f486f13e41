"""Replay reads a LangGraph checkpointer through the saver's own API, one run per thread.

The checkpoints are written by a real ``create_agent`` run (only the model is scripted)
on a real ``SqliteSaver`` / ``PostgresSaver``, with no management, with
``ContextMiddleware`` compressing and with LangChain's ``SummarizationMiddleware``; the
history read back must replay into the same prompt tokens as the conversation's own
message file.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from psycopg.conninfo import conninfo_to_dict
from recorded_conversation import conversation, prompt_tokens, within_one_percent

from ctxmgr import AutoContextConfig, CompressionEvent
from ctxmgr.cli import main
from ctxmgr.replay import load_trajectories
from ctxmgr_langgraph import ContextMiddleware
from ctxmgr_langgraph.testing import RecordedRun

WINDOW = 3000
"""Small enough that ContextMiddleware compresses the conversation twice."""


def run_agent(saver: object, tmp_path: Path, *, managed: str | None, thread: str = "t1"
              ) -> tuple[RecordedRun, list[CompressionEvent]]:
    """The conversation through ``create_agent`` (``managed``: with ``ContextMiddleware``
    or LangChain's ``SummarizationMiddleware``), one invoke per user turn."""
    run = RecordedRun.from_messages(conversation(tmp_path).messages)
    events: list[CompressionEvent] = []
    middleware: list[Any] = []
    if managed == "ctxmgr":
        middleware = [ContextMiddleware(AutoContextConfig(max_tokens=WINDOW),
                                        on_event=events.append)]
    elif managed == "summarization":
        summarizer = FakeListChatModel(responses=["The conversation so far, in brief."])
        middleware = [SummarizationMiddleware(summarizer, trigger=("tokens", 500),
                                              keep=("messages", 4))]
    agent = create_agent(run.model(), run.tools(), system_prompt=run.system_prompt,
                         middleware=middleware, checkpointer=saver)
    for turn in range(len(run.turns)):
        agent.invoke({"messages": run.inputs(turn)}, {"configurable": {"thread_id": thread}})
    return run, events


@pytest.mark.parametrize("managed", [None, "ctxmgr", "summarization"],
                         ids=["plain", "ContextMiddleware", "SummarizationMiddleware"])
def test_a_sqlite_checkpoint_replays_into_the_prompt_tokens_of_the_message_file(
        tmp_path: Path, managed: str | None) -> None:
    db = tmp_path / "checkpoints.sqlite"
    with SqliteSaver.from_conn_string(str(db)) as saver:
        run, events = run_agent(saver, tmp_path, managed=managed)
        last = saver.get_tuple({"configurable": {"thread_id": "t1"}})
    assert last is not None
    state = last.checkpoint["channel_values"]["messages"]
    if managed == "ctxmgr":  # the state holds stand-ins: the reader must find the originals
        assert [e for e in events if e.status == "applied"]
        assert any("CONTEXT_OFFLOAD" in str(m.content) for m in state)
    if managed == "summarization":  # a summary replaced the start of the state
        assert state[0].additional_kwargs.get("lc_source") == "summarization"

    [read] = load_trajectories([db], system_prompt=run.system_prompt)

    original = conversation(tmp_path)
    [(calls, tokens), (expected_calls, expected)] = prompt_tokens([read, original])
    assert read.id == "t1"
    assert [m.role for m in read.messages] == [m.role for m in original.messages]
    assert calls == expected_calls == len(run.answers)
    assert within_one_percent(tokens, expected), (tokens, expected)


def test_the_cli_reads_a_checkpoint_picks_threads_and_takes_the_system_prompt(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "checkpoints.sqlite"
    with SqliteSaver.from_conn_string(str(db)) as saver:
        run, _ = run_agent(saver, tmp_path, managed=None, thread="support")
        other = create_agent(GenericFakeChatModel(messages=iter([AIMessage("hello")])), [],
                             checkpointer=saver)
        other.invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": "x"}})
    prompt = tmp_path / "system.txt"
    prompt.write_text(run.system_prompt or "", encoding="utf-8")
    out = tmp_path / "report.json"

    assert main(["replay", str(db), "--policy", "none", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["policies"]["none"]["trajectories"]
    assert sorted(r["id"] for r in rows) == ["support", "x"]

    assert main(["replay", str(db), "--format", "langgraph", "--thread", "support",
                 "--system-prompt", str(prompt), "--policy", "none", "--json", str(out)]) == 0
    [row] = json.loads(out.read_text())["policies"]["none"]["trajectories"]
    [(_, expected)] = prompt_tokens([conversation(tmp_path)])
    assert row["id"] == "support" and within_one_percent(row["prompt_tokens"], expected)
    capsys.readouterr()


def test_a_sqlite_file_that_is_not_a_checkpointer_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    db = tmp_path / "other.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE notes (x)")
    assert main(["replay", str(db), "--policy", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no checkpoints table" in err
    with sqlite3.connect(db) as conn:  # and it was left as it was
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert tables == {"notes"}


def test_a_postgres_checkpointer_is_read_by_its_uri(tmp_path: Path, postgres_uri: str) -> None:
    with PostgresSaver.from_conn_string(postgres_uri) as saver:
        saver.setup()
        thread = f"pg-{tmp_path.name}"
        run, _ = run_agent(saver, tmp_path, managed="ctxmgr", thread=thread)
    info = conninfo_to_dict(postgres_uri)  # the fixture's conninfo, as the URI users give
    uri = (f"postgresql://{info.get('user', 'postgres')}@{info['host']}:{info['port']}/"
           f"{info['dbname']}?sslmode=disable")
    [read] = load_trajectories([uri], threads=[thread],
                               system_prompt=run.system_prompt)
    [(_, tokens), (_, expected)] = prompt_tokens([read, conversation(tmp_path)])
    assert read.id == thread and within_one_percent(tokens, expected)


@pytest.mark.parametrize("keep", [0.5, 0.9], ids=["half", "most"])
def test_a_truncated_checkpoint_file_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], keep: float) -> None:
    db = tmp_path / "checkpoints.sqlite"
    with SqliteSaver.from_conn_string(str(db)) as saver:
        run_agent(saver, tmp_path, managed=None)
    data = db.read_bytes()
    db.write_bytes(data[:int(len(data) * keep)])  # a copy cut short, a disk that filled

    assert main(["replay", str(db), "--policy", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert str(db) in err and "damaged" in err


def test_only_ctxmgrs_own_stand_ins_are_counted_as_stand_ins(tmp_path: Path) -> None:
    """A run saved only at exit keeps ctxmgr's stand-ins, not their originals, and the
    reader says how many; a user who pastes an offload tag wrote no stand-in."""
    pasted = tmp_path / "pasted.sqlite"
    with SqliteSaver.from_conn_string(str(pasted)) as saver:
        agent = create_agent(GenericFakeChatModel(messages=iter([AIMessage("a tag, yes")])),
                             [], checkpointer=saver)
        agent.invoke({"messages": [HumanMessage(
            "what is <!-- CONTEXT_OFFLOAD: uuid=deadbeefdeadbeef --> in my log?")]},
            {"configurable": {"thread_id": "t1"}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        [read] = load_trajectories([pasted])
    assert "uuid=deadbeefdeadbeef" in read.messages[0].text

    at_exit = tmp_path / "exit.sqlite"
    with SqliteSaver.from_conn_string(str(at_exit)) as saver:
        run = RecordedRun.from_messages(RecordedRun.bundled_messages()[:60])
        events: list[CompressionEvent] = []
        agent = create_agent(run.model(), run.tools(), system_prompt=run.system_prompt,
                             middleware=[ContextMiddleware(max_tokens=8_000,
                                                           on_event=events.append)],
                             checkpointer=saver)
        agent.invoke({"messages": run.inputs()}, {"configurable": {"thread_id": "t1"}},
                     durability="exit")  # one run, saved once: at its end
    assert [e for e in events if e.status == "applied"]
    with pytest.warns(UserWarning, match=r"thread t1: \d+ message\(s\) are ctxmgr stand-ins"):
        load_trajectories([at_exit])
