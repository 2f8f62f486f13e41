"""One conformance suite over every Store, then FileStore's on-disk promises."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_conformance import INVALID_NAMES, NS, StoreConformance

from ctxmgr.errors import ConfigError, StoreError
from ctxmgr.store import FileStore, InMemoryStore, Namespace, Store, project_dir_name

StoreFactory = Callable[[Path], Store]


def _memory(tmp_path: Path) -> Store:
    return InMemoryStore()


def _files(tmp_path: Path) -> Store:
    return FileStore(tmp_path / "store-root")


# Every core backend runs the whole suite (tests/store_conformance.py); to add one,
# append pytest.param(factory, id="name"). The LangGraph-backed store runs it in
# tests/langgraph_adapter/test_langgraph_store.py.
STORES: list[object] = [
    pytest.param(_memory, id="memory"),
    pytest.param(_files, id="files"),
]


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    factory: StoreFactory = request.param
    return factory(tmp_path)


# --- conformance: every Store -------------------------------------------------


class TestStoreConformance(StoreConformance):
    """The shared suite (tests/store_conformance.py) over InMemoryStore and FileStore."""


@pytest.mark.parametrize("label", INVALID_NAMES)
@pytest.mark.parametrize("field", ["project", "session", "kind"])
def test_invalid_namespace_label_raises_config_error(field: str, label: str) -> None:
    labels = {"project": "p", "session": "s", "kind": "k", field: label}
    with pytest.raises(ConfigError, match=f"namespace {field} must be"):
        Namespace(**labels)


# --- FileStore: layout, defaults, durability -----------------------------------


def test_file_store_lays_blobs_out_as_projects_project_kind_session_key(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "home")
    notes = Namespace(project="-work-main", session="sess-1", kind="notes")
    store.put(notes, "plan.md", b"# plan")
    store.put(notes, "index.json", b"[]")
    folder = tmp_path / "home" / "projects" / "-work-main" / "notes" / "sess-1"
    assert sorted(p.name for p in folder.iterdir()) == ["index.json", "plan.md"]
    assert (folder / "plan.md").read_bytes() == b"# plan"
    assert store.path(notes, "plan.md") == folder / "plan.md"
    assert store.folder(notes) == folder


def test_file_store_root_defaults_to_ctxmgr_home(_isolated_home: Path) -> None:
    assert FileStore().root == _isolated_home
    FileStore().put(NS, "k", b"x")
    assert (_isolated_home / "projects" / NS.project / NS.kind / NS.session / "k").is_file()


def test_file_store_root_defaults_to_dot_ctxmgr_in_home_without_ctxmgr_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CTXMGR_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert FileStore().root == tmp_path / "user" / ".ctxmgr"


def test_file_store_reads_its_root_once_at_construction(
    tmp_path: Path, _isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FileStore()
    relative = FileStore("rel")
    monkeypatch.setenv("CTXMGR_HOME", str(tmp_path / "elsewhere"))
    monkeypatch.chdir(tmp_path)
    assert store.root == _isolated_home
    assert relative.root == tmp_path / "work" / "rel"


def test_file_store_expands_user_in_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert FileStore("~/blobs").root == tmp_path / "user" / "blobs"


def test_file_store_creates_missing_folders_on_put(tmp_path: Path) -> None:
    root = tmp_path / "not" / "yet" / "there"
    FileStore(root).put(NS, "k", b"x")
    assert FileStore(root).get(NS, "k") == b"x"


def test_file_store_survives_a_process_restart(tmp_path: Path) -> None:
    root = tmp_path / "home"
    FileStore(root).put(NS, "from-parent", b"\x00written by the first process\xff")
    script = (
        "import sys\n"
        "from ctxmgr.store import FileStore, Namespace\n"
        "ns = Namespace(project=sys.argv[2], session=sys.argv[3], kind=sys.argv[4])\n"
        "store = FileStore(sys.argv[1])\n"
        "sys.stdout.write(store.get(ns, 'from-parent').hex())\n"
        "store.put(ns, 'from-child', b'written by the second process')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(root), NS.project, NS.session, NS.kind],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert bytes.fromhex(result.stdout) == b"\x00written by the first process\xff"
    assert FileStore(root).get(NS, "from-child") == b"written by the second process"
    assert FileStore(root).keys(NS) == ["from-child", "from-parent"]


def test_interrupted_write_keeps_old_content_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FileStore(tmp_path / "home")
    store.put(NS, "k", b"old")

    def fail_replace(src: object, dst: object) -> None:
        raise OSError(errno.EIO, "simulated crash before rename")

    monkeypatch.setattr(os, "replace", fail_replace)
    with pytest.raises(StoreError):
        store.put(NS, "k", b"new")
    assert store.get(NS, "k") == b"old"
    assert store.keys(NS) == ["k"]
    assert [p.name for p in store.folder(NS).iterdir()] == ["k"]


def test_temp_file_left_by_a_crash_is_not_listed_as_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FileStore(tmp_path / "home")
    store.put(NS, "k", b"old")

    def crash(src: object, dst: object) -> None:
        raise KeyboardInterrupt  # the process dies between write and rename

    monkeypatch.setattr(os, "replace", crash)
    monkeypatch.setattr(os, "unlink", lambda path: None)  # so no cleanup runs
    with pytest.raises(KeyboardInterrupt):
        store.put(NS, "k", b"new")
    monkeypatch.undo()
    leftovers = sorted(p.name for p in store.folder(NS).iterdir())
    assert len(leftovers) == 2 and leftovers[0].startswith(".~k.")
    assert store.keys(NS) == ["k"]
    assert store.get(NS, "k") == b"old"


def test_keys_skip_subfolders_and_foreign_file_names(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "home")
    store.put(NS, "k", b"x")
    folder = store.folder(NS)
    (folder / "sub").mkdir()
    (folder / "has space.txt").write_bytes(b"")
    assert store.keys(NS) == ["k"]


def test_os_error_on_write_becomes_store_error_naming_the_path(tmp_path: Path) -> None:
    root = tmp_path / "a-file-not-a-folder"
    root.write_bytes(b"")
    store = FileStore(root)
    with pytest.raises(StoreError) as info:
        store.put(NS, "k", b"x")
    assert str(info.value) == (
        f"[Errno {errno.ENOTDIR}] cannot write {store.path(NS, 'k')}: Not a directory"
    )
    assert info.value.errno == errno.ENOTDIR
    assert isinstance(info.value, OSError)
    assert isinstance(info.value.__cause__, OSError)


def test_os_errors_on_read_list_and_delete_become_store_errors(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "home")
    store.folder(NS).mkdir(parents=True)
    (store.folder(NS) / "dir-not-blob").mkdir()
    with pytest.raises(StoreError, match=r"cannot read .*dir-not-blob"):
        store.get(NS, "dir-not-blob")
    with pytest.raises(StoreError, match=r"cannot delete .*dir-not-blob"):
        store.delete(NS, "dir-not-blob")
    session_as_file = Namespace(project=NS.project, session="file", kind=NS.kind)
    store.folder(session_as_file).write_bytes(b"")
    with pytest.raises(StoreError, match=r"cannot list .*file"):
        store.keys(session_as_file)


def test_file_store_repr_shows_root(tmp_path: Path) -> None:
    assert repr(FileStore(tmp_path)) == f"FileStore(root={str(tmp_path)!r})"


_ADVERSARIAL = st.one_of(
    st.text(alphabet="./\\~-_ aZ9é\x00\n:", max_size=12),
    st.text(max_size=20),
    st.sampled_from(INVALID_NAMES),
    st.text(alphabet="ab./", min_size=198, max_size=203),
)
# Valid, but as close to a path trick as the rule allows: dots and dashes.
_TRICKY_VALID = st.one_of(
    st.text(alphabet="._-a", min_size=1, max_size=6).filter(lambda n: n not in (".", "..")),
    st.text(alphabet=".a", min_size=200, max_size=200),
)


@pytest.mark.parametrize("field", ["project", "session", "kind", "key"])
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150)
@given(adversarial=_ADVERSARIAL, others=st.lists(_TRICKY_VALID, min_size=4, max_size=4))
def test_no_accepted_label_or_key_resolves_outside_its_folder(
    tmp_path: Path, field: str, adversarial: str, others: list[str]
) -> None:
    names = dict(zip(["project", "session", "kind", "key"], others, strict=True))
    names[field] = adversarial
    store = FileStore(tmp_path / "root")
    try:
        key = names.pop("key")
        path = store.path(Namespace(**names), key)
    except ConfigError:
        return
    relative = path.resolve().relative_to(store.root.resolve())
    assert relative.parts == ("projects", names["project"], names["kind"], names["session"], key)


# --- project_dir_name ---------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/work/main", "-work-main"),
        ("/", "-"),
        ("/home/me/my project/v1.2_x-y", "-home-me-my-project-v1.2_x-y"),
        ("/home/me/café+ü", "-home-me-caf---"),
        ("/work/main/../other/", "-work-other"),
    ],
)
def test_project_dir_name_replaces_unsafe_characters_with_dashes(path: str, expected: str) -> None:
    assert project_dir_name(path) == expected
    assert project_dir_name(Path(path)) == expected


def test_project_dir_name_defaults_to_the_working_directory() -> None:
    assert project_dir_name() == project_dir_name(Path.cwd())
    assert project_dir_name().endswith("-work")


def test_project_dir_name_makes_relative_paths_absolute() -> None:
    assert project_dir_name("sub") == project_dir_name(Path.cwd() / "sub")


def test_project_dir_name_of_long_path_is_200_chars_unique_and_stable() -> None:
    base = "/" + "d" * 300
    first, second = project_dir_name(base + "/a"), project_dir_name(base + "/b")
    assert len(first) == len(second) == 200
    assert first != second
    assert first == project_dir_name(base + "/a")
    assert first.startswith("-" + "d" * 150)
    Namespace(project=first, session="s", kind="notes")


@given(st.text(max_size=400))
def test_project_dir_name_is_always_a_valid_namespace_label(path: str) -> None:
    name = project_dir_name("/" + path)
    assert Namespace(project=name, session="s", kind="notes").project == name
