"""Shared fixtures: recorded trajectories, offline tiktoken, temp homes."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import tiktoken.load
import tiktoken.registry
from fake_network import FakeNetwork
from hypothesis import settings
from profiles import LONG
from trajectory_dirs import FIXTURES, SHARED

from ctxmgr.replay.trajectories import Trajectory, load_trajectories
from ctxmgr.settings import config_env_names
from ctxmgr.tokens import bpe, counters

# CI explores the same examples on every run, so a red build is reproducible; local runs
# keep exploring new ones (and remember failures in .hypothesis/). The long profile, run by
# hand (CTXMGR_PROFILE=long), draws many more examples and repeats every race.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.register_profile("long", deadline=None, max_examples=1000)
settings.load_profile("long" if LONG else "ci" if os.environ.get("CI") else "dev")



def _bundled_bpe_cache() -> str | None:
    spec = importlib.util.find_spec("llama_index.core")
    if spec is None or not spec.submodule_search_locations:
        return None
    cache = Path(next(iter(spec.submodule_search_locations))) / "_static" / "tiktoken_cache"
    return str(cache) if cache.is_dir() else None


@pytest.fixture(autouse=True)
def _offline_tiktoken(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Point tiktoken at the BPE files llama-index-core ships, and fail any test that
    makes tiktoken download one: tests never touch the network."""
    cache = _bundled_bpe_cache()
    if cache:
        monkeypatch.setenv("TIKTOKEN_CACHE_DIR", cache)
    attempts: list[str] = []

    def no_download(blobpath: str) -> bytes:
        attempts.append(blobpath)
        raise ConnectionError(f"tests never download ({blobpath})")

    monkeypatch.setattr(tiktoken.load, "read_file", no_download)
    yield
    assert not attempts, f"the test made tiktoken download {attempts}"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own CTXMGR_HOME and working directory (no .env leaks in)."""
    home = tmp_path / "ctxmgr_home"
    for name in config_env_names():  # every setting (CTXMGR_MEMO, CTXMGR_TOKEN_RATIO, ...)
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CTXMGR_HOME", str(home))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return home


@pytest.fixture(scope="session")
def fixture_trajectories() -> list[Trajectory]:
    """The runs bundled in tests/fixtures (4 SWE runs, 12 tau-bench conversations)."""
    return load_trajectories([FIXTURES])


@pytest.fixture(scope="session")
def swe_trajectories(fixture_trajectories: list[Trajectory]) -> list[Trajectory]:
    return [t for t in fixture_trajectories if not t.id.startswith("tau")]


@pytest.fixture(scope="session")
def shared_trajectories() -> list[Trajectory]:
    """All 124 shared runs (benchmarks/data): 24 SWE-bench coding runs, 100 tau-bench ones."""
    runs = load_trajectories([SHARED])
    assert len(runs) == 124, f"{SHARED} should hold the 124 recorded runs, found {len(runs)}"
    return runs


# ------------------------------------------------------------------ tiktoken without its file


@pytest.fixture
def no_bpe_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty TIKTOKEN_CACHE_DIR, the bundled cache hidden, nothing loaded yet
    (neither by ctxmgr nor by tiktoken's own registry)."""
    empty = tmp_path / "empty_tiktoken_cache"
    empty.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(empty))
    monkeypatch.setattr(bpe, "_bundled_cache_dir", lambda: None)
    monkeypatch.setattr(bpe, "_ENCODINGS", {})
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setattr(counters, "_fallback_warned", False)
    return empty


@pytest.fixture
def offline(no_bpe_on_disk: Path, monkeypatch: pytest.MonkeyPatch) -> FakeNetwork:
    network = FakeNetwork()
    monkeypatch.setattr(tiktoken.load, "read_file", network)
    return network
