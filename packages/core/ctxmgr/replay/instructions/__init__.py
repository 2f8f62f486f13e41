"""An instruction-survival suite: do the user's instructions survive compression?

Seeded sessions with planted user instructions, a score for a prompt, and the
retention protocol (each session compressed into 30, 20 and 10 % of its size,
five rounds in a row). Measuring code: never imported at run time.

::

    from ctxmgr.replay.instructions import (
        SessionSpec, generate_session, run_protocol, score_prompt, summarize)

    session = generate_session(7, SessionSpec(kind="tools", family="heldout"))
    session.messages           # system, task, user turns, tool calls and results
    session.items              # what was planted: type, position, values, replaced values
    scores = score_prompt(session.items, prompt)        # any prompt: kept per item
    run = run_protocol(session, share=0.2, mode="wire")  # five rounds with ctxmgr
    [s.survival for s in summarize([run])]               # per round

* :mod:`~ctxmgr.replay.instructions.generator`: sessions, items, their checks;
* :mod:`~ctxmgr.replay.instructions.phrasings`: subjects and the four phrasing families;
* :mod:`~ctxmgr.replay.instructions.values`: values that cannot occur by chance;
* :mod:`~ctxmgr.replay.instructions.filler`: what surrounds the items;
* :mod:`~ctxmgr.replay.instructions.scoring`: kept, stale, kept with its words;
* :mod:`~ctxmgr.replay.instructions.compressors`: ctxmgr and two references;
* :mod:`~ctxmgr.replay.instructions.protocol`: rounds, modes, summaries, targets.

``benchmarks/bench_instructions.py`` runs the whole protocol and writes its tables.
"""

from ctxmgr.replay.instructions.compressors import (
    Compressed,
    Compressor,
    ceiling_compressor,
    checklist_compressor,
    ctxmgr_compressor,
)
from ctxmgr.replay.instructions.generator import (
    KINDS,
    POSITIONS,
    Kind,
    PlantedItem,
    Position,
    Session,
    SessionSpec,
    check_session,
    generate_session,
    generate_sessions,
)
from ctxmgr.replay.instructions.phrasings import FAMILIES, ITEM_TYPES, Family, ItemType
from ctxmgr.replay.instructions.protocol import (
    MODES,
    ROUNDS,
    SHARES,
    TARGETS,
    Mode,
    ProtocolRun,
    Round,
    RoundSummary,
    missed_targets,
    run_protocol,
    run_protocols,
    summarize,
    window_for,
)
from ctxmgr.replay.instructions.scoring import (
    ItemScore,
    is_kept,
    is_kept_with_words,
    is_stale,
    prompt_text,
    score_prompt,
)

__all__ = [
    "FAMILIES",
    "ITEM_TYPES",
    "KINDS",
    "MODES",
    "POSITIONS",
    "ROUNDS",
    "SHARES",
    "TARGETS",
    "Compressed",
    "Compressor",
    "Family",
    "ItemScore",
    "ItemType",
    "Kind",
    "Mode",
    "PlantedItem",
    "Position",
    "ProtocolRun",
    "Round",
    "RoundSummary",
    "Session",
    "SessionSpec",
    "ceiling_compressor",
    "check_session",
    "checklist_compressor",
    "ctxmgr_compressor",
    "generate_session",
    "generate_sessions",
    "is_kept",
    "is_kept_with_words",
    "is_stale",
    "missed_targets",
    "prompt_text",
    "run_protocol",
    "run_protocols",
    "score_prompt",
    "summarize",
    "window_for",
]
