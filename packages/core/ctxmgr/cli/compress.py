"""``ctxmgr compress IN.json``: compress an OpenAI-format history; originals go to the store.

The output is ``{"messages": [...], "events": [...]}``. A compress that fails
(the history does not fit, the output cannot be written) leaves nothing behind:
no output file and none of the offloads it wrote.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ctxmgr.cli._common import (
    CLI_PROJECT,
    CLI_SESSION,
    EXIT_OK,
    UsageError,
    check_max_tokens,
    file_store,
    plural,
)
from ctxmgr.cli._io import check_output, read_messages, write_output
from ctxmgr.store.base import Namespace, Store

__all__ = ["HELP", "add_arguments", "run"]

HELP = "Compress an OpenAI-format history; originals go to the offload store."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="IN.json", help="OpenAI-format messages (list or "
                                                    '{"messages": [...]})')
    p.add_argument("-o", "--output", metavar="OUT.json",
                   help="write here (default: stdout); numbers JSON cannot hold (NaN, "
                        "Infinity) are written as null")
    p.add_argument("--max-tokens", type=int, default=128_000, help="context window (default "
                                                                   "128000)")
    p.add_argument("--summarizer", default="extractive",
                   help="extractive (default, no LLM), none (no LLM strategies) or "
                        "provider:model (a LangChain chat model)")
    p.add_argument("--store", metavar="DIR", help="offload store (default: $CTXMGR_HOME or "
                                                  "~/.ctxmgr)")


def run(args: argparse.Namespace) -> int:
    from ctxmgr.autocontext import AutoContextConfig, AutoContextMemory
    from ctxmgr.convert import to_openai

    check_output(args.output, "-o")
    if args.max_tokens > 0:
        check_max_tokens(args.max_tokens)
    messages = read_messages(args.input)
    try:
        config = AutoContextConfig(max_tokens=args.max_tokens)
    except ValueError as exc:
        raise UsageError(f"--max-tokens: {exc}") from None
    config = config.evolve(project=CLI_PROJECT, reload_hint=False)
    summarizer = _summarizer(args.summarizer)
    store = _UndoableStore(file_store(args.store))
    memory = AutoContextMemory(config, summarizer=summarizer, store=store, session=CLI_SESSION)
    memory.add(messages)
    try:
        events = memory.compress_if_needed()
        write_output({"messages": to_openai(memory.messages),
                      "events": [e.to_dict() for e in events]}, args.output, command="compress")
    except BaseException:
        store.undo()
        raise
    applied = [e for e in events if e.status == "applied"]
    print(f"ctxmgr compress: {len(messages):,} -> {plural(len(memory.messages), 'message')}, "
          f"{plural(memory.tokens, 'token')}, {plural(len(applied), 'compression')}",
          file=sys.stderr)
    return EXIT_OK


def _summarizer(spec: str) -> Any:
    from ctxmgr.autocontext.summarizers import ExtractiveSummarizer

    if spec == "extractive":
        return ExtractiveSummarizer()
    if spec == "none":
        return None
    if ":" not in spec:
        raise UsageError(f"--summarizer must be extractive, none or provider:model, got {spec!r}")
    from ctxmgr.cli._summarizers import model_summarizer

    return model_summarizer(spec)


class _UndoableStore(Store):
    """A store that remembers the blobs it created, so a failed compress can remove them."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.created: list[tuple[Namespace, str]] = []

    def get(self, namespace: Namespace, key: str) -> bytes | None:
        return self.inner.get(namespace, key)

    def put(self, namespace: Namespace, key: str, data: bytes) -> None:
        new = self.inner.get(namespace, key) is None
        self.inner.put(namespace, key, data)
        if new:
            self.created.append((namespace, key))

    def delete(self, namespace: Namespace, key: str) -> bool:
        return self.inner.delete(namespace, key)

    def keys(self, namespace: Namespace) -> list[str]:
        return self.inner.keys(namespace)

    def undo(self) -> None:
        """Delete every blob this store created (best effort: one that cannot be deleted stays)."""
        for namespace, key in reversed(self.created):
            try:
                self.inner.delete(namespace, key)
            except OSError:
                continue
        self.created.clear()
