"""Replaying recorded trajectories to measure context policies (SPEC §8).

::

    from ctxmgr.replay import load_trajectories, replay

    report = replay(load_trajectories(["runs/"]), ["none", "langchain_summarization"],
                    budget=32_000)
    report.to_json()   # {"budget": 32000, "pricing": {...},
                       #  "policies": {NAME: {"aggregate", "trajectories"}}}

Costs are in uncached-token units at one :class:`Pricing` for every policy (default:
cached reads at 0.1, no surcharge for writing the cache;
``replay(..., pricing=Pricing(cache_write=1.25))`` for Anthropic's 5-minute cache), and
``report.aggregate(name, pricing)`` reads them at other rates without replaying. Each row
says how the policy treats the prompt cache too (:data:`CACHE_KEYS`: compressions per 100
calls, the share of calls that changed the prompt's prefix, the cost split between
uncached tokens, cached reads and the summarizer).

A policy is any object with ``name``, ``reset()`` and ``prompt(history) ->
PolicyResult`` (see :mod:`ctxmgr.replay.policy`); register a factory with
:func:`register_policy` (:mod:`ctxmgr.replay.registry`) to compare your own. The
peers live in the adapters and are found through the ``ctxmgr.replay_policies``
entry-point group; each imports its framework only when created. Every prompt is
also scored for fidelity against the recorded next step
(:mod:`ctxmgr.replay.fidelity`) and for what it kept of the earlier user messages
and tool calls (:mod:`ctxmgr.replay.retention`); a policy with a ``reload(id)``
method (:class:`Reloader`) has the facts behind its offload ids counted as
reloadable.

Runs are read where users keep them (:mod:`ctxmgr.replay.sources`): message files,
LangSmith runs, OpenTelemetry GenAI spans in OTLP JSON and, with ``ctxmgr[langgraph]``,
a LangGraph checkpointer; ``load_trajectories(paths, format="auto")`` detects which.
:func:`tune` runs the cost × fidelity frontier (:mod:`ctxmgr.replay.frontier`) on them
and recommends a config (``ctxmgr tune``).
"""

from ctxmgr.replay.fidelity import CallFidelity, Reloader
from ctxmgr.replay.frontier import FrontierRow, frontier_rows, mark_frontier
from ctxmgr.replay.metrics import (
    CACHE_KEYS,
    DEFAULT_PRICING,
    METRIC_KEYS,
    CallRecord,
    Pricing,
    TrajectoryResult,
)
from ctxmgr.replay.policy import (
    IncrementalPolicy,
    NonePolicy,
    Policy,
    PolicyContext,
    PolicyFactory,
    PolicyResult,
    PolicyUnavailableError,
)
from ctxmgr.replay.registry import (
    BUILTIN_POLICIES,
    ENTRY_POINT_GROUP,
    available_policies,
    create_policy,
    peer_names,
    policy_names,
    policy_status,
    register_policy,
)
from ctxmgr.replay.runner import PolicyRun, ReplayReport, count_model_calls, replay
from ctxmgr.replay.sources import (
    FORMATS,
    SEMCONV_VERSIONS,
    SOURCE_ENTRY_POINT_GROUP,
    SourceOptions,
    SourceReader,
    detect_format,
    register_source,
)
from ctxmgr.replay.summarizer import FIXED_SUMMARY, FakeSummarizer, SummarizerUsage
from ctxmgr.replay.trajectories import Trajectory, load_trajectories
from ctxmgr.replay.tune import (
    QUICK_VARIANTS,
    TUNE_VARIANTS,
    NoEvidenceError,
    TuneResult,
    recommend,
    tune,
)

__all__ = [
    "BUILTIN_POLICIES",
    "CACHE_KEYS",
    "DEFAULT_PRICING",
    "ENTRY_POINT_GROUP",
    "FIXED_SUMMARY",
    "FORMATS",
    "METRIC_KEYS",
    "QUICK_VARIANTS",
    "SEMCONV_VERSIONS",
    "SOURCE_ENTRY_POINT_GROUP",
    "TUNE_VARIANTS",
    "CallFidelity",
    "CallRecord",
    "FakeSummarizer",
    "FrontierRow",
    "IncrementalPolicy",
    "NoEvidenceError",
    "NonePolicy",
    "Policy",
    "PolicyContext",
    "PolicyFactory",
    "PolicyResult",
    "PolicyRun",
    "PolicyUnavailableError",
    "Pricing",
    "Reloader",
    "ReplayReport",
    "SourceOptions",
    "SourceReader",
    "SummarizerUsage",
    "Trajectory",
    "TrajectoryResult",
    "TuneResult",
    "available_policies",
    "count_model_calls",
    "create_policy",
    "detect_format",
    "frontier_rows",
    "load_trajectories",
    "mark_frontier",
    "peer_names",
    "policy_names",
    "policy_status",
    "recommend",
    "register_policy",
    "register_source",
    "replay",
    "tune",
]
