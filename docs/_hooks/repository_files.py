"""mkdocs hook: the site shows files of the repository that live outside ``docs/``.

* ``benchmarks/RESULTS.md`` (with the plot it shows, ``frontier.png``) and
  ``benchmarks/README.md`` are pages of the site (the latter as ``benchmarks/scripts.md``:
  a README would be the folder's index), so the results are published as
  ``bash scripts/bench.sh`` writes them, never copied by hand.
* A page's link to a file of the repository outside ``docs/`` (``../tests/...``, as the
  guarantees link each promise to the test that proves it) is served as that file, and
  the link is pointed at it; a link to a path that does not exist is left for
  ``mkdocs build --strict`` to report.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = {"benchmarks/RESULTS.md": "benchmarks/RESULTS.md",
             "benchmarks/frontier.png": "benchmarks/frontier.png",
             "benchmarks/scripts.md": "benchmarks/README.md"}
"""Site path -> repository path of the files always published."""
_LINK = re.compile(r"\]\((\.\./[^)#\s]+)([^)]*)\)")


def _outside(page_uri: str, target: str) -> str | None:
    """The repository path a relative link from ``docs/<page_uri>`` names, when it lies
    outside ``docs/`` and exists."""
    path = posixpath.normpath(posixpath.join("docs", posixpath.dirname(page_uri), target))
    if path.startswith(("docs/", "../")) or not (ROOT / path).is_file():
        return None
    return path


def on_files(files: Files, config: Any) -> Files:
    wanted = dict(PUBLISHED)
    for page in [f for f in files if f.src_uri.endswith(".md") and f.abs_src_path]:
        text = Path(page.abs_src_path).read_text(encoding="utf-8")
        for target, _ in _LINK.findall(text):
            path = _outside(page.src_uri, target)
            if path is not None:
                wanted.setdefault(path, path)
    for site_path, path in sorted(wanted.items()):
        if files.get_file_from_path(site_path) is None:
            files.append(File.generated(config, site_path, abs_src_path=str(ROOT / path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    def point(match: re.Match[str]) -> str:
        path = _outside(page.file.src_uri, match[1])
        if path is None:
            return match[0]
        return f"]({posixpath.relpath(path, posixpath.dirname(page.file.src_uri) or '.')}" \
               f"{match[2]})"

    return _LINK.sub(point, markdown)
