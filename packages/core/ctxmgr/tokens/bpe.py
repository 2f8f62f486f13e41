"""tiktoken's BPE files: which encoding a model uses, and loading it once per process.

Loading tries, in order:

1. a verified copy already on disk: tiktoken's own cache (``TIKTOKEN_CACHE_DIR``,
   else ``DATA_GYM_CACHE_DIR``, else ``<temp dir>/data-gym-cache``), then the copy
   that llama-index-core ships; a file whose hash is not the published one is
   skipped, never deleted;
2. ``tiktoken.get_encoding``, which downloads the file and caches it as it always
   does (on a connected machine the first run fetches it once).

If both fail, :func:`load_encoding` raises :class:`FileNotFoundError` naming the
folders it looked in and why tiktoken could not fetch the file.

Running offline: copy the two files into a folder and point ``TIKTOKEN_CACHE_DIR``
at it (on a connected machine, ``TIKTOKEN_CACHE_DIR=DIR python -c "import tiktoken;
[tiktoken.get_encoding(e) for e in ('cl100k_base', 'o200k_base')]"`` fills ``DIR``),
or install llama-index-core, which bundles both. Without either,
:func:`ctxmgr.tokens.default_counter` counts approximately and warns once.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import logging
import os
import re
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ctxmgr.errors import ConfigError

if TYPE_CHECKING:
    import tiktoken

__all__ = ["ENCODING_NAMES", "encoding_name_for_model", "load_encoding",
           "splits_at_line_starts"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class _EncodingSpec:
    """What tiktoken_ext.openai_public builds, minus its download (kept in step by a test)."""

    url: str
    sha256: str
    pat_str: str
    special_tokens: Mapping[str, int]

    @property
    def file_name(self) -> str:
        # tiktoken names cache files by the sha1 of the download URL.
        return hashlib.sha1(self.url.encode()).hexdigest()


_ENDOFTEXT = "<|endoftext|>"
_ENDOFPROMPT = "<|endofprompt|>"
_SPECS: dict[str, _EncodingSpec] = {
    "cl100k_base": _EncodingSpec(
        url="https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        pat_str=(
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
            r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
        ),
        special_tokens={
            _ENDOFTEXT: 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            _ENDOFPROMPT: 100276,
        },
    ),
    "o200k_base": _EncodingSpec(
        url="https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        pat_str="|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",  # noqa: E501
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",  # noqa: E501
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        special_tokens={_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
    ),
}

ENCODING_NAMES: tuple[str, ...] = tuple(_SPECS)
"""The encodings ctxmgr counts with."""

_O200K_MODEL = re.compile(
    r"(?:^|[/:.])(?:chatgpt-4o|gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4)(?![a-z0-9])"
)


def splits_at_line_starts(encoding: tiktoken.Encoding) -> bool:
    """Whether ``encoding`` pre-tokenizes as ``cl100k_base`` or ``o200k_base`` do: then
    counts of a text cut at :data:`ctxmgr.tokens.counters.LINE_START` add up (checked on
    generated text in the tests)."""
    spec = _SPECS.get(encoding.name)
    return spec is not None and getattr(encoding, "_pat_str", None) == spec.pat_str


def encoding_name_for_model(model: str | None) -> str:
    """The tiktoken encoding a model name implies; ``cl100k_base`` when unknown or ``None``.

    Provider prefixes (``openai:gpt-4o``, ``azure/gpt-4.1``, ``ft:gpt-4o:org::id``)
    and letter case are ignored.
    """
    if model and _O200K_MODEL.search(model.strip().lower()):
        return "o200k_base"
    return "cl100k_base"


def _bundled_cache_dir() -> Path | None:
    """llama-index-core's bundled tiktoken cache, found without importing llama_index."""
    try:
        spec = importlib.util.find_spec("llama_index")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        cache = Path(location) / "core" / "_static" / "tiktoken_cache"
        if cache.is_dir():
            return cache
    return None


def _candidate_dirs() -> list[Path]:
    """Where a BPE file may sit, in order: tiktoken's own cache, then the bundled one."""
    dirs: list[Path] = []
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):  # tiktoken's precedence
        if var in os.environ:
            if os.environ[var]:  # "" disables tiktoken's cache
                dirs.append(Path(os.environ[var]))
            break
    else:
        dirs.append(Path(tempfile.gettempdir()) / "data-gym-cache")
    bundled = _bundled_cache_dir()
    if bundled is not None:
        dirs.append(bundled)
    return dirs


_ENCODINGS: dict[str, tiktoken.Encoding] = {}
_ENCODINGS_LOCK = threading.Lock()


def load_encoding(name: str) -> tiktoken.Encoding:
    """The named encoding: from a verified BPE file on disk, else through tiktoken
    (which downloads and caches it); loaded once per process.

    Raises:
        ConfigError: ``name`` is not one of :data:`ENCODING_NAMES`.
        FileNotFoundError: no file on disk and tiktoken could not fetch one; the
            message names the folders looked in, tiktoken's error and the fix.
    """
    spec = _SPECS.get(name)
    if spec is None:
        raise ConfigError(f"encoding must be one of {sorted(_SPECS)}, got {name!r}")
    with _ENCODINGS_LOCK:
        enc = _ENCODINGS.get(name)
        if enc is None:
            enc = _from_disk(name, spec) or _from_tiktoken(name, spec)
            _ENCODINGS[name] = enc
    return enc


def _from_disk(name: str, spec: _EncodingSpec) -> tiktoken.Encoding | None:
    for d in _candidate_dirs():
        path = d / spec.file_name
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() != spec.sha256:
            logger.debug("ignoring %s: not the published %s BPE file (hash differs)", path, name)
            continue
        logger.debug("loading tiktoken %s from %s", name, path)
        import tiktoken  # with the first encoding, not at ``import ctxmgr``

        ranks: dict[bytes, int] = {}
        for line in data.splitlines():
            if line:
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
        return tiktoken.Encoding(name, pat_str=spec.pat_str, mergeable_ranks=ranks,
                                 special_tokens=dict(spec.special_tokens))
    return None


def _from_tiktoken(name: str, spec: _EncodingSpec) -> tiktoken.Encoding:
    logger.debug("tiktoken %s is not on disk; asking tiktoken to fetch it", name)
    import tiktoken  # with the first encoding, not at ``import ctxmgr``

    try:
        return tiktoken.get_encoding(name)
    except Exception as exc:  # network, proxy, hash or plugin errors: all mean "not here"
        looked = ", ".join(str(d) for d in _candidate_dirs()) or (
            "nowhere (TIKTOKEN_CACHE_DIR is empty)")
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        if len(reason) > 100:
            reason = reason[:99] + "…"
        raise FileNotFoundError(
            f"tiktoken's {name} BPE file ({spec.file_name}) is not on disk (looked in "
            f"{looked}) and tiktoken could not fetch it ({type(exc).__name__}"
            f"{': ' + reason if reason else ''}). Set TIKTOKEN_CACHE_DIR to a folder that "
            "holds it, install llama-index-core (it ships one), or run "
            f"tiktoken.get_encoding({name!r}) once while online."
        ) from exc
