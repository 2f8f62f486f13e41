"""One conformance suite over every Store, then FileStore's on-disk promises."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import repeats
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




def test_project_dir_name_defaults_to_the_working_directory() -> None:
    assert project_dir_name() == project_dir_name(Path.cwd())
    assert re.fullmatch(r".*-work-[0-9a-f]{12}", project_dir_name())


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


def test_lock_is_reentrant_within_a_thread(store: Store) -> None:
    with store.lock(NS), store.lock(NS):
        store.put(NS, "k", b"v")
    assert store.get(NS, "k") == b"v"


def test_lock_makes_read_modify_write_from_threads_lose_no_update(store: Store) -> None:
    store.put(NS, "counter", b"0")

    def bump() -> None:
        for _ in range(50):
            with store.lock(NS):
                value = int(store.get(NS, "counter") or b"0")
                store.put(NS, "counter", str(value + 1).encode())

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.get(NS, "counter") == b"200"


def test_file_store_lock_held_elsewhere_times_out_with_a_store_error(tmp_path: Path) -> None:
    holder, waiter = FileStore(tmp_path), FileStore(tmp_path, lock_timeout_s=0.2)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with holder.lock(NS):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(10)
    try:
        with pytest.raises(StoreError, match=r"cannot lock .*\.~s1\.lock: another writer has held "
                                             r"it for over 0.2 s"), waiter.lock(NS):
            pass
    finally:
        release.set()
        thread.join()
    with waiter.lock(NS):  # free again once the holder lets go
        pass


@pytest.mark.parametrize("timeout", [0, -1, "5", True, float("nan")])
def test_file_store_refuses_a_lock_timeout_that_is_not_a_positive_number(timeout: object) -> None:
    with pytest.raises(ConfigError, match="lock_timeout_s"):
        FileStore(lock_timeout_s=timeout)  # type: ignore[arg-type]


_STALLED_WRITER = """
import os, sys, time
from ctxmgr.store import FileStore, Namespace
os.fsync = lambda fd: time.sleep(3600)
FileStore(sys.argv[1]).put(Namespace("-work-main", "s1", "offload"), "k", b"x" * 1000)
"""

def _temp_files(folder: Path) -> set[str]:
    return {p.name for p in folder.glob(".~*.tmp")} if folder.is_dir() else set()


def _start_stalled_writer(root: Path) -> subprocess.Popen[bytes]:
    """A writer process that is inside put(), its temp file written, when this returns."""
    folder = FileStore(root).folder(NS)
    before = _temp_files(folder)
    proc = subprocess.Popen([sys.executable, "-c", _STALLED_WRITER, str(root)])
    deadline = time.monotonic() + 60
    while _temp_files(folder) <= before:
        assert proc.poll() is None and time.monotonic() < deadline, "writer never stalled"
        time.sleep(0.01)
    return proc


@pytest.mark.skipif(os.name != "posix", reason="kills writer processes with SIGKILL")
def test_temp_files_of_killed_writers_are_removed_by_the_next_write(tmp_path: Path) -> None:
    root = tmp_path / "root"
    kills = repeats(5, long=25)
    for _ in range(kills):
        proc = _start_stalled_writer(root)
        proc.kill()
        proc.wait()
    folder = FileStore(root).folder(NS)
    assert len(_temp_files(folder)) == 1  # each writer removed the one killed before it

    store = FileStore(root)
    store.put(NS, "other", b"y")

    assert _temp_files(folder) == set()
    assert store.keys(NS) == ["other"] and store.get(NS, "other") == b"y"


@pytest.mark.skipif(os.name != "posix", reason="needs a second live writer process")
def test_the_temp_file_of_a_writer_still_running_is_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "root"
    proc = _start_stalled_writer(root)
    try:
        FileStore(root).put(NS, "other", b"y")
        assert len(_temp_files(FileStore(root).folder(NS))) == 1
    finally:
        proc.kill()
        proc.wait()


def test_an_hour_old_temp_file_of_unknown_origin_is_removed_by_the_next_write(
    tmp_path: Path,
) -> None:
    store = FileStore(tmp_path / "root")
    store.put(NS, "k", b"v")
    old, fresh = store.folder(NS) / ".~k.abc123.tmp", store.folder(NS) / ".~k.def456.tmp"
    for leftover in (old, fresh):
        leftover.write_bytes(b"half")
    os.utime(old, (time.time() - 7200, time.time() - 7200))

    FileStore(tmp_path / "root").put(NS, "k", b"w")

    assert _temp_files(store.folder(NS)) == {fresh.name}


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    return outside


def test_a_file_link_planted_in_a_session_folder_is_neither_listed_nor_read(
    tmp_path: Path,
) -> None:
    outside = _outside(tmp_path)
    store = FileStore(tmp_path / "root")
    store.put(NS, "real", b"x")
    (store.folder(NS) / "leak.md").symlink_to(outside / "secret.txt")

    assert store.keys(NS) == ["real"]
    with pytest.raises(StoreError, match="symbolic link"):
        store.get(NS, "leak.md")


@pytest.mark.parametrize("linked", ["session", "kind", "project"])
def test_a_linked_folder_never_sends_reads_or_writes_outside_the_root(
    tmp_path: Path, linked: str
) -> None:
    outside = _outside(tmp_path)
    store = FileStore(tmp_path / "root")
    folder = {"session": store.folder(NS), "kind": store.folder(NS).parent,
              "project": store.folder(NS).parent.parent}[linked]
    folder.parent.mkdir(parents=True)
    folder.symlink_to(outside, target_is_directory=True)
    planted = outside / "s1" if linked == "kind" else outside
    if linked == "project":
        planted = outside / "offload" / "s1"
    planted.mkdir(parents=True, exist_ok=True)
    (planted / "blob").write_text("outside")
    before = sorted(str(p) for p in outside.rglob("*"))

    for operation in (lambda: store.put(NS, "k", b"x"), lambda: store.get(NS, "blob"),
                      lambda: store.keys(NS), lambda: store.delete(NS, "blob")):
        with pytest.raises(StoreError, match="symbolic link"):
            operation()
    with pytest.raises(StoreError, match="symbolic link"), store.lock(NS):
        pass
    assert sorted(str(p) for p in outside.rglob("*")) == before
    assert (planted / "blob").read_text() == "outside"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_a_session_folder_is_not_listed_and_not_opened(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "root")
    store.put(NS, "real", b"x")
    os.mkfifo(store.folder(NS) / "pipe")

    assert store.keys(NS) == ["real"]
    with pytest.raises(StoreError, match="not a regular file"):
        store.get(NS, "pipe")


def test_the_root_itself_may_be_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real-root"
    real.mkdir()
    (tmp_path / "root").symlink_to(real, target_is_directory=True)
    store = FileStore(tmp_path / "root")

    store.put(NS, "k", b"v")

    assert store.get(NS, "k") == b"v" and store.keys(NS) == ["k"]
    assert (real / "projects" / NS.project / NS.kind / NS.session / "k").read_bytes() == b"v"


@pytest.mark.parametrize(
    ("path", "readable"),
    [
        ("/work/main", "-work-main"),
        ("/", "-"),
        ("/home/me/my project/v1.2_x-y", "-home-me-my-project-v1.2_x-y"),
        ("/home/me/café+ü", "-home-me-caf---"),
        ("/work/main/../other/", "-work-other"),
    ],
)
def test_project_dir_name_is_the_path_made_safe_plus_a_short_hash(path: str, readable: str) -> None:
    name = project_dir_name(path)
    assert re.fullmatch(re.escape(readable) + r"-[0-9a-f]{12}", name)
    assert project_dir_name(Path(path)) == name


def test_paths_that_read_alike_get_different_project_folders() -> None:
    paths = ["/x/pa/b", "/x/pa-b", "/x/pa b", "/x/paéb", "/x/pa_b"]
    names = [project_dir_name(p) for p in paths]
    assert len(set(names)) == len(paths)
    assert all(n.startswith("-x-pa") for n in names)


@given(st.lists(st.text(max_size=30), min_size=2, max_size=2, unique=True))
def test_different_paths_never_share_a_project_folder(parts: list[str]) -> None:
    first, second = ("/p/" + part for part in parts)
    if os.path.abspath(first) != os.path.abspath(second):
        assert project_dir_name(first) != project_dir_name(second)

