"""A stand-in for tiktoken's download, so tests can make it fail or serve a file offline."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["FakeNetwork"]


class FakeNetwork:
    """Stands in for tiktoken's download: records each URL, then fails or serves bytes."""

    def __init__(self, serve: Callable[[str], bytes] | None = None) -> None:
        self.urls: list[str] = []
        self.serve = serve

    def __call__(self, blobpath: str) -> bytes:
        self.urls.append(blobpath)
        if self.serve is None:
            raise ConnectionError(f"Failed to resolve host for {blobpath}")
        return self.serve(blobpath)
