"""An instruction-survival suite: do the user's instructions survive compression?

Seeded sessions with planted user instructions, a score for a prompt, and the
retention protocol (each session compressed into 30, 20 and 10 % of its size,
five rounds in a row). Measuring code: never imported at run time.

::

    from planted import (
        SessionSpec, generate_session, run_protocol, score_prompt, summarize)

    session = generate_session(7, SessionSpec(kind="tools", family="heldout"))
    session.messages           # system, task, user turns, tool calls and results
    session.items              # what was planted: type, position, values, replaced values
    scores = score_prompt(session.items, prompt)        # any prompt: kept per item
    run = run_protocol(session, share=0.2, mode="wire")  # five rounds with ctxmgr
    [s.survival for s in summarize([run])]               # per round

* :mod:`~planted.generator`: sessions, items, their checks;
* :mod:`~planted.phrasings`: subjects and the four phrasing families;
* :mod:`~planted.values`: values that cannot occur by chance;
* :mod:`~planted.filler`: what surrounds the items;
* :mod:`~planted.scoring`: kept, stale, kept with its words;
* :mod:`~planted.compressors`: ctxmgr and two references;
* :mod:`~planted.protocol`: rounds, modes, summaries, targets.

The polyglot suite measures the same in fourteen languages and in an
outside-style family, with instructions that carry no value:

* :mod:`~planted.languages`: one data module per language (phrasings, chatter, values);
* :mod:`~planted.polyglot`: sessions in any of them, native or outside-style;
* :mod:`~planted.kept`: kept by value or, without one, by the sentence that said it;
* :mod:`~planted.polyglot_protocol`: shares, rounds, summaries, the targets.

``benchmarks/bench_instructions.py`` runs the whole protocol and writes its tables;
``benchmarks/bench_languages.py`` runs the polyglot suite.
"""

from planted.compressors import (
    Compressed,
    Compressor,
    ceiling_compressor,
    checklist_compressor,
    ctxmgr_compressor,
)
from planted.generator import (
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
from planted.phrasings import FAMILIES, ITEM_TYPES, Family, ItemType
from planted.protocol import (
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
from planted.scoring import (
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
