"""Loading tiktoken's BPE files: from disk, else through tiktoken, else an approximate
counter with one warning. Nothing here touches the network: tiktoken's fetch
(``tiktoken.load.read_file``) is replaced by a fake that fails or serves a file."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import tiktoken.load
import tiktoken_ext.openai_public
from fake_network import FakeNetwork

from ctxmgr.autocontext import AutoContextConfig, AutoContextMemory
from ctxmgr.tokens import ApproximateCounter, TiktokenCounter, bpe, default_counter

ENCODINGS = ["cl100k_base", "o200k_base"]
BUNDLED = bpe._bundled_cache_dir()  # read before any test hides it


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_offline_encodings_match_tiktokens_own_definitions(encoding: str) -> None:
    ours = TiktokenCounter(encoding=encoding).encoding
    theirs = tiktoken_ext.openai_public.ENCODING_CONSTRUCTORS[encoding]()
    assert ours.name == theirs["name"]
    assert ours._pat_str == theirs["pat_str"]
    assert ours._special_tokens == theirs["special_tokens"]
    assert ours._mergeable_ranks == theirs["mergeable_ranks"]


def test_without_a_file_on_disk_tiktoken_fetches_it_and_caches_it_as_usual(
        no_bpe_on_disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = bpe._SPECS["cl100k_base"]
    bundled = _bundled_copy()
    network = FakeNetwork(serve=lambda url: (bundled / spec.file_name).read_bytes())
    monkeypatch.setattr(tiktoken.load, "read_file", network)
    counter = TiktokenCounter(encoding="cl100k_base")
    assert counter.count_text("hello world") == 2
    assert network.urls == [spec.url]
    assert (no_bpe_on_disk / spec.file_name).read_bytes() == (bundled / spec.file_name).read_bytes()


def test_tiktoken_counter_that_cannot_fetch_raises_file_not_found_naming_the_fix(
        offline: FakeNetwork, no_bpe_on_disk: Path) -> None:
    with pytest.raises(FileNotFoundError, match="TIKTOKEN_CACHE_DIR") as info:
        TiktokenCounter("gpt-4o")
    message = str(info.value)
    assert str(no_bpe_on_disk) in message and "o200k_base" in message
    assert "ConnectionError" in message
    assert offline.urls == [bpe._SPECS["o200k_base"].url]


def test_default_counter_falls_back_to_approximate_with_one_warning_at_the_callers_line(
        offline: FakeNetwork) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = default_counter("gpt-4o")  # the line the warning must point at
        second = default_counter("gpt-4")
        third = default_counter()
    assert all(isinstance(c, ApproximateCounter) for c in (first, second, third))
    assert [w.category for w in caught] == [RuntimeWarning]
    assert "approximately" in str(caught[0].message)
    assert (caught[0].filename, caught[0].lineno) == (__file__, _line_of("first = default"))
    assert offline.urls, "tiktoken was asked to fetch the file before falling back"


def test_the_fallback_warning_points_at_user_code_not_inside_ctxmgr(
        offline: FakeNetwork) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        memory = AutoContextMemory(AutoContextConfig(max_tokens=8000))  # warns here
    assert isinstance(memory.counter, ApproximateCounter)
    assert [(w.filename, w.lineno) for w in caught] == [
        (__file__, _line_of("memory = AutoContextMemory("))]


def test_default_counter_is_exact_when_the_bpe_file_is_on_disk() -> None:
    counter = default_counter("gpt-4.1")
    assert isinstance(counter, TiktokenCounter)
    assert counter.encoding.name == "o200k_base"


def test_corrupt_bpe_file_is_skipped_and_the_bundled_copy_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = bpe._SPECS["cl100k_base"]
    corrupt = tmp_path / spec.file_name
    corrupt.write_bytes(b"not a bpe file\n")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(bpe, "_ENCODINGS", {})
    assert TiktokenCounter(encoding="cl100k_base").count_text("hello world") == 2
    assert corrupt.read_bytes() == b"not a bpe file\n"


def test_bundled_bpe_cache_is_found_without_tiktoken_env_and_without_importing_llama_index(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "empty_tiktoken_cache"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"}
    env["DATA_GYM_CACHE_DIR"] = str(empty)
    code = (
        "import sys\n"
        "from ctxmgr.tokens import TiktokenCounter\n"
        "c = TiktokenCounter('gpt-4o')\n"
        "assert c.count_text('hello world') == 2, c\n"
        "assert 'llama_index.core' not in sys.modules, 'llama_index.core was imported'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert list(empty.iterdir()) == []  # nothing copied into tiktoken's cache


def _bundled_copy() -> Path:
    assert BUNDLED is not None, "llama-index-core's bundled tiktoken cache is needed here"
    return BUNDLED


def _line_of(text: str) -> int:
    lines = Path(__file__).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line and "_line_of" not in line)
