"""mkdocs hook: the site shows files of the repository that live outside ``docs/``.

* ``benchmarks/RESULTS.md`` (with the plots it shows, ``frontier.png`` and
  ``frontier_cache_write.png``) and
  ``benchmarks/README.md`` are pages of the site (the latter as ``benchmarks/scripts.md``:
  a README would be the folder's index), so the results are published as
  ``bash scripts/bench.sh`` writes them, never copied by hand.
* A link to a file of the repository outside ``docs/`` (``../tests/...``, as the
  guarantees link each promise to the test that proves it) is served as that file, and
  the link is pointed at it. Links are read as the repository lays the files out (as a
  reader of the Markdown on disk follows them) and pointed at where the site puts them;
  a link to a path that does not exist is left for ``mkdocs build --strict`` to report.
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
             "benchmarks/frontier_cache_write.png": "benchmarks/frontier_cache_write.png",
             "benchmarks/scripts.md": "benchmarks/README.md"}
"""Site path -> repository path of the files always published."""
_SITE_OF = {repo: site for site, repo in PUBLISHED.items()}
_LINK = re.compile(r"\]\(([^)#\s:]+)([^)]*)\)")


def _repo_path(site_path: str) -> str:
    return PUBLISHED.get(site_path, f"docs/{site_path}")


def _site_path(page_site_path: str, link: str) -> str | None:
    """Where the site serves the file a relative link of a page names (``None``: not a
    file of the repository)."""
    page = _repo_path(page_site_path)
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), link))
    if target.startswith("../") or not (ROOT / target).is_file():
        return None
    if target in _SITE_OF:
        return _SITE_OF[target]
    return target.removeprefix("docs/") if target.startswith("docs/") else target


def on_files(files: Files, config: Any) -> Files:
    wanted = dict(PUBLISHED)
    pages = [f for f in files if f.src_uri.endswith(".md")]
    pages += [File.generated(config, s, abs_src_path=str(ROOT / r))
              for s, r in PUBLISHED.items() if s.endswith(".md")]
    for page in pages:
        text = Path(page.abs_src_path or "").read_text(encoding="utf-8")
        for link, _ in _LINK.findall(text):
            site = _site_path(page.src_uri, link)
            if site is not None and not site.startswith(("docs/",)) and \
                    not (ROOT / "docs" / site).is_file():
                wanted.setdefault(site, site)
    for site_path, repo_path in sorted(wanted.items()):
        if files.get_file_from_path(site_path) is None:
            files.append(File.generated(config, site_path, abs_src_path=str(ROOT / repo_path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    here = posixpath.dirname(page.file.src_uri) or "."

    def point(match: re.Match[str]) -> str:
        site = _site_path(page.file.src_uri, match[1])
        if site is None:
            return match[0]
        return f"]({posixpath.relpath(site, here)}{match[2]})"

    return _LINK.sub(point, markdown)
