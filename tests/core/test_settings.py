"""One rule for every setting, wherever a config is built: code > environment > .env >
default; and a config written back as variables reads back the same."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxmgr import AutoContextConfig, Tuning
from ctxmgr.errors import ConfigError
from ctxmgr.session import SessionEngine
from ctxmgr.settings import config_env_names, config_env_vars, config_from_env, home, parse_bool


def test_both_tools_are_off_by_default_and_home_is_the_isolated_one(
        _isolated_home: Path) -> None:
    config = AutoContextConfig()

    assert (config.message_archiving, config.memo) == (False, False)
    assert config.home == _isolated_home == home()


def test_home_defaults_to_dot_ctxmgr_in_the_user_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CTXMGR_HOME")

    assert AutoContextConfig().home == Path.home() / ".ctxmgr" == home()


def test_the_environment_sets_any_setting_the_code_leaves_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXMGR_MESSAGE_ARCHIVING", "true")
    monkeypatch.setenv("CTXMGR_MEMO", "true")
    monkeypatch.setenv("CTXMGR_LAST_KEEP", "7")  # a setting of the tuning group too

    config = AutoContextConfig(max_tokens=8000)

    assert (config.message_archiving, config.memo, config.tuning.last_keep) == (True, True, 7)


def test_a_dotenv_file_in_the_working_directory_sets_them_too(tmp_path: Path) -> None:
    Path(".env").write_text("# tools\nCTXMGR_MESSAGE_ARCHIVING=true\nCTXMGR_MEMO=yes\n"
                            f"CTXMGR_HOME='{tmp_path / 'dot'}'\n")

    config = AutoContextConfig.from_env(environ={})

    assert (config.message_archiving, config.memo) == (True, True)
    assert config.home == tmp_path / "dot"


def test_reading_the_dotenv_file_leaves_os_environ_alone() -> None:
    Path(".env").write_text("CTXMGR_MEMO=true\nSOME_OTHER_VAR=1\n")

    assert AutoContextConfig().memo is True

    assert "CTXMGR_MEMO" not in os.environ and "SOME_OTHER_VAR" not in os.environ


def test_the_environment_beats_the_dotenv_file(monkeypatch: pytest.MonkeyPatch) -> None:
    Path(".env").write_text("CTXMGR_MEMO=true\nCTXMGR_MESSAGE_ARCHIVING=true\n")
    monkeypatch.setenv("CTXMGR_MEMO", "false")

    config = AutoContextConfig()

    assert (config.memo, config.message_archiving) == (False, True)


def test_code_beats_the_environment_and_dotenv(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    Path(".env").write_text("CTXMGR_MESSAGE_ARCHIVING=true\n")
    monkeypatch.setenv("CTXMGR_MEMO", "true")

    config = AutoContextConfig(message_archiving=False, memo=False, home=tmp_path / "h")

    assert (config.message_archiving, config.memo) == (False, False)
    assert config.home == tmp_path / "h"


def test_an_empty_value_counts_as_not_set(monkeypatch: pytest.MonkeyPatch) -> None:
    Path(".env").write_text("CTXMGR_MEMO=true\n")
    monkeypatch.setenv("CTXMGR_MEMO", "")

    assert AutoContextConfig().memo is True


@pytest.mark.parametrize(("text", "value"), [
    ("true", True), ("TRUE", True), (" True ", True), ("1", True), ("yes", True), ("Yes", True),
    ("false", False), ("False", False), ("0", False), ("no", False), ("NO", False),
])
def test_switches_accept_true_false_1_0_yes_no(
        text: str, value: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXMGR_MESSAGE_ARCHIVING", text)

    assert AutoContextConfig().message_archiving is value
    assert parse_bool(text, name="x") is value


@pytest.mark.parametrize("text", ["on", "enabled", "2", "tru", "y"])
def test_any_other_switch_value_is_a_config_error_naming_the_variable(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXMGR_MEMO", text)

    with pytest.raises(ConfigError, match=r"CTXMGR_MEMO must be one of true, false, 1, 0, yes, "
                                          rf"no, got '{text}'"):
        AutoContextConfig()


def test_a_bad_value_in_the_dotenv_file_names_the_variable_and_the_file() -> None:
    Path(".env").write_text("CTXMGR_MESSAGE_ARCHIVING=maybe\n")

    with pytest.raises(ConfigError, match=r"CTXMGR_MESSAGE_ARCHIVING \(in \.env\) must be one of"):
        AutoContextConfig()


def test_a_switch_in_code_must_be_a_bool() -> None:
    with pytest.raises(ConfigError, match="memo must be True or False, got 'sure'"):
        AutoContextConfig(memo="sure")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="message_archiving must be True or False, got 1"):
        AutoContextConfig(message_archiving=1)  # type: ignore[arg-type]


def test_a_dotenv_file_can_be_named_or_ignored(tmp_path: Path) -> None:
    other = tmp_path / "custom.env"
    other.write_text("CTXMGR_MEMO=1\n")
    Path(".env").write_text("CTXMGR_MESSAGE_ARCHIVING=1\n")

    named = AutoContextConfig.from_env(dotenv_path=other)
    ignored = AutoContextConfig.from_env(use_dotenv=False)

    assert (named.memo, named.message_archiving) == (True, False)
    assert (ignored.memo, ignored.message_archiving) == (False, False)


def test_every_front_door_reads_the_same_rule(monkeypatch: pytest.MonkeyPatch,
                                             _isolated_home: Path) -> None:
    """Regression: the session engine read the environment and ContextProcessor did not."""
    from ctxmgr import AutoContextMemory
    from ctxmgr.autocontext import ContextProcessor

    monkeypatch.setenv("CTXMGR_MAX_TOKENS", "32000")
    monkeypatch.setenv("CTXMGR_TOKEN_RATIO", "0.7")
    monkeypatch.setenv("CTXMGR_DISABLED_STRATEGIES", "6, 7")
    monkeypatch.setenv("CTXMGR_CACHED_TOKEN_PRICE", "none")
    expected = AutoContextConfig.from_env(
        environ={"CTXMGR_HOME": str(_isolated_home)}, use_dotenv=False, max_tokens=32_000,
        token_ratio=0.7,
        disabled_strategies={6, 7}, tuning=Tuning(cached_token_price=None))

    assert AutoContextConfig() == config_from_env() == expected
    assert SessionEngine().config == expected
    assert AutoContextMemory().config == expected
    assert ContextProcessor().config == expected
    given = AutoContextConfig(max_tokens=8000, token_ratio=0.9)
    assert SessionEngine(given).config.token_ratio == 0.9  # code wins, field by field


def test_a_dotenv_file_sets_settings_and_bad_values_name_the_variable(tmp_path: Path) -> None:
    (tmp_path / "knobs.env").write_text("CTXMGR_TARGET_RATIO=0.2\nCTXMGR_LAST_KEEP=many\n")

    with pytest.raises(ConfigError, match=r"CTXMGR_LAST_KEEP \(in .*knobs.env\) must be an "
                                          "integer, got 'many'"):
        config_from_env(environ={}, dotenv_path=tmp_path / "knobs.env")
    with pytest.raises(ConfigError, match=r"token_ratio must be in \(0, 1\], got 1.5 "
                                          r"\(read from CTXMGR_TOKEN_RATIO\)"):
        config_from_env(environ={"CTXMGR_TOKEN_RATIO": "1.5"}, use_dotenv=False)


def test_a_config_written_as_variables_reads_back_the_same() -> None:
    config = AutoContextConfig(max_tokens=16_000, never_compress_tools={"read_skill"}, memo=True,
                               tuning=Tuning(keep_tool_results=5, record_chars=2000,
                                             cached_token_price=None))
    variables = config_env_vars(config)

    assert variables == {"CTXMGR_MAX_TOKENS": "16000", "CTXMGR_KEEP_TOOL_RESULTS": "5",
                         "CTXMGR_RECORD_CHARS": "2000", "CTXMGR_CACHED_TOKEN_PRICE": "none",
                         "CTXMGR_NEVER_COMPRESS_TOOLS": "read_skill", "CTXMGR_MEMO": "true"}
    assert config_from_env(environ={**variables, "CTXMGR_HOME": str(config.home)},
                           use_dotenv=False) == config
    assert set(variables) <= set(config_env_names())


def test_a_config_as_json_reads_back_equal() -> None:
    config = AutoContextConfig(max_tokens=16_000, memo=True, pinned_ids={"a", "b"},
                               tuning=Tuning(last_keep=3))

    assert config.to_json() == {"max_tokens": 16_000, "memo": True, "pinned_ids": ["a", "b"],
                                "tuning": {"last_keep": 3}}
    assert AutoContextConfig.from_json(config.to_json()) == config
    with pytest.raises(ConfigError, match="'last_kept' is not a setting"):
        AutoContextConfig.from_json({"last_kept": 3})
