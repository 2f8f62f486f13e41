"""The LangGraph server as users run it, started and stopped for the tests and benchmarks.

:func:`serve` copies an app folder (``langgraph.json`` and its graph modules) into a
fresh state folder, starts ``langgraph dev`` there as its own process group (in-memory
runtime, 127.0.0.1, a free port, no LangSmith key, no analytics, no browser, no reload)
and waits for ``/ok``; on leaving, however the block ends, it stops the server (SIGTERM,
then SIGKILL after a grace period). :meth:`LangGraphServer.kill` is ``kill -9`` of the
whole group, for crash tests; :meth:`LangGraphServer.restart` starts it again on the
same folder and port.

Traps it handles (see ``deploy-notes.md``): the default port may be taken and the server
then moves elsewhere silently (a port is always given, and a move is an error); state
persists in ``.langgraph_api/`` next to where the server runs (each server gets a new
folder); SIGTERM takes 3 to 5 seconds.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_APP = ROOT / "examples" / "langgraph_server"
"""The example app: ``langgraph.json`` and ``agent.py`` (a ``create_agent`` graph with
``ContextMiddleware`` and a scripted model)."""

_SECRETS = ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGSMITH_TRACING",
            "LANGCHAIN_TRACING_V2", "LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _package_roots() -> list[str]:
    """The folders ctxmgr's packages are imported from here (a worktree's, in tests)."""
    import ctxmgr
    import ctxmgr_langgraph

    return [str(Path(m.__file__).resolve().parents[1])  # type: ignore[arg-type]
            for m in (ctxmgr, ctxmgr_langgraph)]


@dataclass
class LangGraphServer:
    """One ``langgraph dev`` process serving an app from its own state folder."""

    folder: Path
    """The state folder: the app's files, ``.langgraph_api/``, ``server.log``."""
    port: int
    env: dict[str, str]
    jobs: int
    config: str
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def start(self, timeout_s: float = 90.0) -> None:
        """Start the server and wait until ``/ok`` answers."""
        command = [str(Path(sys.executable).with_name("langgraph")), "dev", "--no-browser",
                   "--no-reload", "--host", "127.0.0.1", "--port", str(self.port),
                   "--n-jobs-per-worker", str(self.jobs), "--config", self.config]
        start = self.log.stat().st_size if self.log.exists() else 0
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, cwd=self.folder, env=self.env,
                                            stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True,
                                            preexec_fn=_die_with_parent)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"langgraph dev exited with {self.process.returncode}:\n"
                                   f"{self.tail()}")
            if "already in use" in self.log.read_bytes()[start:].decode(errors="replace"):
                self.stop()
                raise RuntimeError(f"port {self.port} was taken; the server moved:\n"
                                   f"{self.tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"langgraph dev did not answer /ok in {timeout_s:.0f} s:\n"
                           f"{self.tail()}")

    def stop(self, grace_s: float = 15.0) -> None:
        """SIGTERM to the server's process group; SIGKILL if it is not gone in time."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        _signal_group(process, signal.SIGTERM)
        try:
            process.wait(grace_s)
        except subprocess.TimeoutExpired:
            _signal_group(process, signal.SIGKILL)
            process.wait(10)

    def kill(self) -> None:
        """``kill -9`` of the server's process group (a crash: nothing is flushed)."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            _signal_group(process, signal.SIGKILL)
            process.wait(10)

    def restart(self) -> None:
        """Start the server again on the same folder and port (after :meth:`kill`)."""
        self.stop()
        self.start()

    def pid(self) -> int:
        assert self.process is not None, "the server is not running"
        return self.process.pid

    def rss_bytes(self) -> int:
        """The server's resident memory now (Linux ``/proc``)."""
        status = Path(f"/proc/{self.pid()}/status").read_text()
        kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(kib) * 1024

    def cpu_seconds(self) -> float:
        """CPU time the server has used so far, user and system (Linux ``/proc``)."""
        fields = Path(f"/proc/{self.pid()}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def tail(self, lines: int = 40) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def _die_with_parent() -> None:
    """In the child, before exec: on Linux, SIGTERM it when the process that started it
    dies (a test run killed outright leaves no server behind)."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with suppress(ProcessLookupError):
        os.killpg(process.pid, sig)


@contextmanager
def serve(folder: Path, *, app: Path = EXAMPLE_APP, config: Mapping[str, object] | None = None,
          env: Mapping[str, str] | None = None, jobs: int = 20,
          extra_files: Sequence[Path] = ()) -> Iterator[LangGraphServer]:
    """Serve ``app`` from ``folder`` (a fresh state folder; created) until the block ends.

    Args:
        config: ``langgraph.json`` written over the app's own (e.g. more graphs, a store).
        env: environment variables for the server, over this process's (LangSmith keys
            and tracing switches removed; ``CTXMGR_HOME`` inside ``folder``).
        jobs: runs the server works on at once (``--n-jobs-per-worker``).
        extra_files: more files copied next to the app's (graphs a ``config`` names).
    """
    import json

    folder.mkdir(parents=True, exist_ok=True)
    for source in [*app.iterdir(), *extra_files]:
        if source.is_file():
            shutil.copy2(source, folder / source.name)
    name = "langgraph.json"
    if config is not None:
        name = "langgraph.served.json"
        (folder / name).write_text(json.dumps(config, indent=2))
    server_env = {k: v for k, v in os.environ.items() if k not in _SECRETS}
    roots = [*_package_roots(), server_env.get("PYTHONPATH", "")]
    server_env.update({"LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGSMITH_TRACING": "false",
                       "CTXMGR_HOME": str(folder / "ctxmgr_home"),
                       "PYTHONPATH": os.pathsep.join(r for r in roots if r)})
    server_env.update(env or {})
    server = LangGraphServer(folder=folder, port=free_port(), env=server_env, jobs=jobs,
                             config=name)
    try:
        for attempt in range(3):  # a port found free may be taken before the server binds it
            try:
                server.start()
                break
            except RuntimeError as exc:
                if "was taken" not in str(exc) or attempt == 2:
                    raise
                server.port = free_port()
        yield server
    finally:
        server.stop()
