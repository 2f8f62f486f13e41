"""Settings: constructor arguments > environment > .env file > defaults, resolved once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxmgr.errors import ConfigError
from ctxmgr.settings import (
    Settings,
    config_env_names,
    config_env_vars,
    config_from_env,
    parse_bool,
)


def test_both_tools_are_off_by_default(_isolated_home: Path) -> None:
    settings = Settings.resolve()

    assert (settings.message_archiving, settings.memo) == (False, False)
    assert settings.home == _isolated_home


def test_home_defaults_to_dot_ctxmgr_in_the_user_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CTXMGR_HOME")

    assert Settings.resolve().home == Path.home() / ".ctxmgr"
    assert Settings().home == Path.home() / ".ctxmgr"


def test_environment_switches_the_tools_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXMGR_MESSAGE_ARCHIVING", "true")
    monkeypatch.setenv("CTXMGR_MEMO", "true")

    settings = Settings.resolve()

    assert (settings.message_archiving, settings.memo) == (True, True)


def test_a_dotenv_file_in_the_working_directory_switches_the_tools_on(tmp_path: Path) -> None:
    Path(".env").write_text("# tools\nCTXMGR_MESSAGE_ARCHIVING=true\nCTXMGR_MEMO=yes\n"
                            f"CTXMGR_HOME='{tmp_path / 'dot'}'\n")

    settings = Settings.resolve(environ={})

    assert (settings.message_archiving, settings.memo) == (True, True)
    assert settings.home == tmp_path / "dot"


def test_reading_the_dotenv_file_leaves_os_environ_alone() -> None:
    Path(".env").write_text("CTXMGR_MEMO=true\nSOME_OTHER_VAR=1\n")

    assert Settings.resolve().memo is True

    assert "CTXMGR_MEMO" not in os.environ and "SOME_OTHER_VAR" not in os.environ


def test_the_environment_beats_the_dotenv_file(monkeypatch: pytest.MonkeyPatch) -> None:
    Path(".env").write_text("CTXMGR_MEMO=true\nCTXMGR_MESSAGE_ARCHIVING=true\n")
    monkeypatch.setenv("CTXMGR_MEMO", "false")

    settings = Settings.resolve()

    assert (settings.memo, settings.message_archiving) == (False, True)


def test_constructor_arguments_beat_the_environment_and_dotenv(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    Path(".env").write_text("CTXMGR_MESSAGE_ARCHIVING=true\n")
    monkeypatch.setenv("CTXMGR_MEMO", "true")

    settings = Settings.resolve(message_archiving=False, memo=False, home=tmp_path / "h")

    assert (settings.message_archiving, settings.memo) == (False, False)
    assert settings.home == tmp_path / "h"


def test_an_empty_value_counts_as_not_set(monkeypatch: pytest.MonkeyPatch) -> None:
    Path(".env").write_text("CTXMGR_MEMO=true\n")
    monkeypatch.setenv("CTXMGR_MEMO", "")

    assert Settings.resolve().memo is True


@pytest.mark.parametrize(("text", "value"), [
    ("true", True), ("TRUE", True), (" True ", True), ("1", True), ("yes", True), ("Yes", True),
    ("false", False), ("False", False), ("0", False), ("no", False), ("NO", False),
])
def test_switches_accept_true_false_1_0_yes_no(
    text: str, value: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXMGR_MESSAGE_ARCHIVING", text)

    assert Settings.resolve().message_archiving is value
    assert parse_bool(text, name="x") is value


@pytest.mark.parametrize("text", ["on", "enabled", "2", "tru", "y"])
def test_any_other_switch_value_is_a_config_error_naming_the_variable(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXMGR_MEMO", text)

    with pytest.raises(ConfigError, match=r"CTXMGR_MEMO must be one of true, false, 1, 0, yes, "
                                          rf"no, got '{text}'"):
        Settings.resolve()


def test_a_bad_value_in_the_dotenv_file_names_the_variable_and_the_file() -> None:
    Path(".env").write_text("CTXMGR_MESSAGE_ARCHIVING=maybe\n")

    with pytest.raises(ConfigError, match=r"CTXMGR_MESSAGE_ARCHIVING \(in \.env\) must be one of"):
        Settings.resolve()


def test_a_bad_constructor_argument_names_the_argument() -> None:
    with pytest.raises(ConfigError, match="memo must be one of .* got 'sure'"):
        Settings.resolve(memo="sure")
    with pytest.raises(ConfigError, match="message_archiving must be one of .* got 3"):
        Settings(message_archiving=3)  # type: ignore[arg-type]


def test_settings_are_immutable_values() -> None:
    a, b = Settings(memo=True, home="/x"), Settings(memo="yes", home=Path("/x"))

    assert a == b and a.home == Path("/x")
    with pytest.raises(AttributeError):
        a.memo = False  # type: ignore[misc]


def test_a_dotenv_file_can_be_named_or_ignored(tmp_path: Path) -> None:
    other = tmp_path / "custom.env"
    other.write_text("CTXMGR_MEMO=1\n")
    Path(".env").write_text("CTXMGR_MESSAGE_ARCHIVING=1\n")

    named = Settings.resolve(dotenv_path=other)
    ignored = Settings.resolve(use_dotenv=False)

    assert (named.memo, named.message_archiving) == (True, False)
    assert (ignored.memo, ignored.message_archiving) == (False, False)


# ------------------------------------------------------------------ the compressor's knobs


def test_the_environment_sets_the_compressor_s_knobs_when_no_config_is_given(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxmgr import AutoContextConfig, SessionEngine

    monkeypatch.setenv("CTXMGR_MAX_TOKENS", "32000")
    monkeypatch.setenv("CTXMGR_TOKEN_RATIO", "0.8")
    monkeypatch.setenv("CTXMGR_DISABLED_STRATEGIES", "6, 7")
    monkeypatch.setenv("CTXMGR_CACHED_TOKEN_PRICE", "none")
    expected = AutoContextConfig(max_tokens=32_000, token_ratio=0.8,
                                 disabled_strategies={6, 7}, cached_token_price=None)

    assert config_from_env() == expected
    assert SessionEngine().config == expected  # what every adapter builds on
    given = AutoContextConfig(max_tokens=8000)
    assert SessionEngine(given).config == given  # a config in code is used as given


def test_a_dotenv_file_sets_knobs_and_bad_values_name_the_variable(tmp_path: Path) -> None:
    (tmp_path / "knobs.env").write_text("CTXMGR_TARGET_RATIO=0.2\nCTXMGR_LAST_KEEP=many\n")

    with pytest.raises(ConfigError, match=r"CTXMGR_LAST_KEEP \(in .*knobs.env\) must be an "
                                          "integer, got 'many'"):
        config_from_env(environ={}, dotenv_path=tmp_path / "knobs.env")
    with pytest.raises(ConfigError, match="token_ratio must be in"):
        config_from_env(environ={"CTXMGR_TOKEN_RATIO": "1.5"}, use_dotenv=False)


def test_a_config_written_as_variables_reads_back_the_same() -> None:
    from ctxmgr import AutoContextConfig

    config = AutoContextConfig(max_tokens=16_000, keep_tool_results=5, record_chars=2000,
                               never_compress_tools={"read_skill"}, cached_token_price=None)
    variables = config_env_vars(config)

    assert variables == {"CTXMGR_MAX_TOKENS": "16000", "CTXMGR_KEEP_TOOL_RESULTS": "5",
                         "CTXMGR_RECORD_CHARS": "2000", "CTXMGR_CACHED_TOKEN_PRICE": "none",
                         "CTXMGR_NEVER_COMPRESS_TOOLS": "read_skill"}
    assert config_from_env(environ=variables, use_dotenv=False) == config
    assert set(variables) <= set(config_env_names())
