"""Where an agent's offloads are, for ``reload`` and ``search``: store, project, session.

The adapters write a session's offloads under ``<project>/offload/<session>`` of a store:

* the store is the files under ``CTXMGR_HOME`` (``~/.ctxmgr``) unless the agent was given
  another; ``--store`` names a folder, a SQLite file or a ``postgresql://`` URI of a
  LangGraph store (the opener is found through the ``ctxmgr.store_uris`` entry points,
  by scheme, so the core names no framework);
* the project is derived from the agent's working directory (``--project`` takes that
  folder's path or the label itself; default: this working directory's, and the one
  ``ctxmgr compress`` writes to);
* the session is the thread id or LlamaIndex ``session_id`` made a label
  (:func:`~ctxmgr.session.session_label`): ``--thread`` maps it, ``--session`` takes the
  label itself; default: every session of the project.

An id may be shortened to a prefix of at least :data:`MIN_PREFIX` hex digits (the demo
prints eight) when no other offload in what the options select starts with it.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ctxmgr.autocontext.reload import OFFLOAD_ID_CHARS
from ctxmgr.cli._common import CLI_PROJECT, UsageError, plural
from ctxmgr.store.base import Namespace, Store

__all__ = ["MIN_PREFIX", "STORE_URI_GROUP", "Found", "Location", "add_location_arguments",
           "open_location", "parse_offload_id", "project_label", "resolve_offload"]

STORE_URI_GROUP = "ctxmgr.store_uris"
"""Entry points by URI scheme: ``open(uri, *, prefix=...) -> context manager of a ctxmgr
Store`` (``prefix``: the namespace labels of ``--prefix``, passed only when given)."""
MIN_PREFIX = 4
"""Fewest hex digits an id may be shortened to."""
OFFLOAD_KIND = "offload"

_CONNINFO = re.compile(r"\s*(?:[a-z_]+\s*=\s*(?:'[^']*'|\S+)\s*)+")
_HEX = re.compile(r"[0-9a-f]+")
_TAGGED = re.compile(r"(?:.*uuid=)?([0-9A-Fa-f]+)(?:\s*-->.*)?", re.DOTALL)


@runtime_checkable
class _Listing(Protocol):
    """A store that can list its namespaces (``FileStore``, ``LangGraphStore``)."""

    def namespaces(self, *, project: str | None = None) -> list[Namespace]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Location:
    """What the options select: a store, its projects and (optionally) one session."""

    store: Store
    described: str
    """The store, for messages: ``files under /home/me/.ctxmgr``, ``postgresql://…``."""
    projects: tuple[str, ...]
    session: str | None
    """The session label, or ``None``: every session of each project."""

    def sessions(self, project: str, kind: str = OFFLOAD_KIND) -> list[str]:
        """The sessions of ``project`` to look in (those holding ``kind``, or the one named)."""
        if self.session is not None:
            return [self.session]
        if not isinstance(self.store, _Listing):
            raise UsageError(f"{self.described} cannot list its sessions; pass --session or "
                             "--thread")
        return [n.session for n in self.store.namespaces(project=project) if n.kind == kind]

    def where(self) -> str:
        """Where it looked, for an error saying nothing was found there: projects,
        session and store."""
        projects = " or ".join(self.projects)
        session = (f"session {self.session}" if self.session is not None
                   else "any session")
        return f"{session} of project {projects} in {self.described}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Found:
    """An offload id resolved: the full id and the session holding it."""

    offload_id: str
    project: str
    session: str


def add_location_arguments(p: argparse.ArgumentParser) -> None:
    """``--store``/``--home``, ``--project``, and ``--session``/``--thread``."""
    where = p.add_mutually_exclusive_group()
    where.add_argument("--store", metavar="DIR|FILE|URI",
                       help="where the agent's store is: a ctxmgr home folder, a SQLite file "
                            "of a LangGraph SqliteStore (or sqlite:///PATH), or a "
                            "postgresql:// URI (or libpq key=value string) of a PostgresStore "
                            "(default: $CTXMGR_HOME, .env, ~/.ctxmgr)")
    where.add_argument("--home", metavar="DIR", help="the ctxmgr home folder (as CTXMGR_HOME)")
    p.add_argument("--prefix", metavar="LABELS",
                   help="the namespace prefix the agent's LangGraph store was given "
                        "(LangGraphStore(prefix=...)), its labels joined by '.': "
                        "myapp.ctxmgr (default: ctxmgr)")
    p.add_argument("--project", metavar="NAME|PATH",
                   help="the agent's project: its working directory's path, or the project "
                        "label the store shows (default: this working directory's, and "
                        "ctxmgr compress's)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--thread", metavar="ID",
                     help="the LangGraph thread_id (or LlamaIndex session_id) of the run")
    who.add_argument("--session", metavar="LABEL",
                     help="the session label as the store shows it (default: every session "
                          "of the project)")


@contextmanager
def open_location(args: argparse.Namespace) -> Iterator[Location]:
    """The location the options select, with its store open while in use.

    Raises:
        UsageError: a folder or file that does not exist, an unknown URI scheme, an
            invalid project or session, or a missing extra (one line each).
    """
    from ctxmgr.errors import ConfigError
    from ctxmgr.session.labels import session_label
    from ctxmgr.store.files import project_dir_name

    projects = _projects(args.project, project_dir_name)
    session = None
    if args.thread is not None:
        session = session_label(args.thread)
    elif args.session is not None:
        session = args.session
    try:
        for project in projects:
            Namespace(project, session or "-", OFFLOAD_KIND)
    except ConfigError as exc:
        flag = "--session" if session is not None and args.session is not None else "--project"
        raise UsageError(f"{flag}: {exc}" + ("; pass the run's thread id with --thread"
                                             if flag == "--session" else "")) from None
    with _open_store(args) as (store, described):
        yield Location(store=store, described=described, projects=projects, session=session)


def _projects(given: str | None, dir_name: Any) -> tuple[str, ...]:
    if given is None:
        return tuple(dict.fromkeys((dir_name(), CLI_PROJECT)))
    return (project_label(given),)


def project_label(given: str) -> str:
    """The project ``--project`` names: a folder's path (an agent's working directory:
    anything with a path separator, ``.``, ``..`` or ``~...``) becomes its label as the
    adapters derive it; anything else is the label itself (even when a folder of that
    name is here: ``--project ./NAME`` means the folder).

    Raises:
        UsageError: an empty value.
    """
    from ctxmgr.store.files import project_dir_name

    if not given:
        raise UsageError("--project: give a project label or a folder path, got ''")
    if (os.sep in given or (os.altsep and os.altsep in given) or given in (".", "..")
            or given.startswith("~")):
        return project_dir_name(os.path.expanduser(given))
    return given


@contextmanager
def _open_store(args: argparse.Namespace) -> Iterator[tuple[Store, str]]:
    from ctxmgr.settings import home
    from ctxmgr.store.files import FileStore

    target = args.store or None
    prefix = getattr(args, "prefix", None)
    if prefix is not None and (target is None or _scheme(target) is None):
        raise UsageError("--prefix: only a LangGraph store (a SQLite file or a postgresql:// "
                         "URI given with --store) has a namespace prefix")
    if target is None or args.home:
        folder = home(args.home)
        if args.home and not folder.is_dir():
            raise UsageError(f"--home {args.home}: no such folder")
        yield FileStore(folder), f"files under {folder}"
        return
    scheme = _scheme(target)
    if scheme is None:
        if not os.path.isdir(target):
            raise UsageError(f"--store {target}: no such folder, SQLite file or URI")
        yield FileStore(target), f"files under {os.path.abspath(target)}"
        return
    opener = _opener(scheme, target)
    options = {} if prefix is None else {"prefix": tuple(prefix.split("."))}
    with _store_context(opener, target, options) as store:
        yield store, _redacted(target)


def _scheme(target: str) -> str | None:
    """The entry-point name that opens ``target`` (``None``: a ctxmgr home folder)."""
    match = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", target)
    if match and (len(match[1]) > 1 or "://" in target):  # not a Windows drive letter
        return match[1].lower()
    if os.path.isfile(target):
        return "sqlite"
    if _CONNINFO.fullmatch(target) and not os.path.exists(target):
        return "postgresql"  # libpq's key=value form: "host=... dbname=..."
    return None


def _opener(scheme: str, target: str) -> Any:
    points = {ep.name: ep for ep in importlib.metadata.entry_points(group=STORE_URI_GROUP)}
    if scheme not in points:
        known = ", ".join(sorted(points)) or "none installed"
        raise UsageError(f"--store {_redacted(target)}: no store opens {scheme}: URIs (known "
                         f"schemes: {known}; a folder is a ctxmgr home)")
    try:
        return points[scheme].load()
    except ImportError as exc:
        raise UsageError(f"--store {_redacted(target)}: a LangGraph store needs the langgraph "
                         f'extra: pip install ".[langgraph]" ({exc})') from None


@contextmanager
def _store_context(opener: Any, target: str, options: dict[str, Any]) -> Iterator[Store]:
    from ctxmgr.errors import ConfigError

    with ExitStack() as stack:
        try:
            store: Store = stack.enter_context(opener(target, **options))
        except ConfigError as exc:
            flag = "--prefix" if options and str(exc).startswith("prefix") else "--store"
            raise UsageError(f"{flag}: {exc}") from None
        except Exception as exc:  # the backend's own error (psycopg, sqlite3): one line
            text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise UsageError(f"--store {_redacted(target)}: cannot open it: {text}") from None
        yield store


def _redacted(target: str) -> str:
    """A URI with its password hidden (``postgresql://user:***@host/db``)."""
    return re.sub(r"(://[^:/@]+:)[^@/]*@", r"\1***@", target)


def parse_offload_id(text: str) -> str:
    """The hex id (full or a prefix) in what the user typed: the id, ``uuid=ID`` or a whole
    ``<!-- CONTEXT_OFFLOAD: uuid=ID -->`` tag.

    Raises:
        UsageError: not hex, or shorter than :data:`MIN_PREFIX` digits.
    """
    match = _TAGGED.fullmatch(text.strip())
    value = match[1].lower() if match else ""
    if not value or len(value) > OFFLOAD_ID_CHARS or not _HEX.fullmatch(value):
        raise UsageError(f"not an offload id: {text!r:.80} (expected the hex digits of a "
                         f"CONTEXT_OFFLOAD tag's uuid, or at least its first {MIN_PREFIX})")
    if len(value) < MIN_PREFIX:
        raise UsageError(f"offload id {text!r} is too short: give at least {MIN_PREFIX} of its "
                         "hex digits")
    return value


def resolve_offload(location: Location, text: str) -> Found:
    """The one offload ``text`` (an id or a unique prefix) names in ``location``.

    Raises:
        UsageError: not an id; no offload starts with it (the message says where it
            looked); or several do (the message lists them).
    """
    from ctxmgr.autocontext.offload import OffloadStore

    wanted = parse_offload_id(text)
    matches: dict[str, list[tuple[str, str]]] = {}
    looked = 0
    for project in location.projects:
        for session in location.sessions(project):
            looked += 1
            offload = OffloadStore(location.store, project=project, session=session)
            if len(wanted) == 32:
                ids = [wanted] if offload.exists(wanted) else []
            else:
                ids = [i for i in offload.ids() if i.startswith(wanted)]
            for i in ids:
                matches.setdefault(i, []).append((project, session))
    if not matches:
        searched = (f" ({plural(looked, 'session')} searched)" if location.session is None
                    else "")
        raise UsageError(f"no offload {text.strip()!r:.80} in {location.where()}{searched}; "
                         "name the agent's project, thread or store with --project, --thread "
                         "or --store")
    if len(matches) > 1:
        listed = ", ".join(f"{i} ({p}/{s})" for i, [(p, s), *_] in
                           sorted(matches.items())[:5])
        more = f" and {len(matches) - 5} more" if len(matches) > 5 else ""
        raise UsageError(f"offload id {text.strip()!r} is ambiguous: {len(matches)} offloads "
                         f"start with it: {listed}{more}; give more of its digits")
    [(offload_id, places)] = matches.items()
    project, session = places[0]  # a range saved twice (same content, same id) is one range
    return Found(offload_id=offload_id, project=project, session=session)
