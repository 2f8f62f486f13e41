"""Replaying recorded trajectories to measure context policies (SPEC §8).

::

    from ctxmgr.replay import load_trajectories, replay

    report = replay(load_trajectories(["runs/"]), ["none", "langchain_summarization"],
                    budget=32_000)
    report.to_json()   # {"budget": 32000, "policies": {NAME: {"aggregate", "trajectories"}}}

A policy is any object with ``name``, ``reset()`` and ``prompt(history) ->
PolicyResult`` (see :mod:`ctxmgr.replay.policy`); register a factory with
:func:`register_policy` to compare your own. Peer policies import their
framework only when created. Every prompt is also scored for fidelity against
the recorded next step (:mod:`ctxmgr.replay.fidelity`); a policy with a
``reload(id)`` method (:class:`Reloader`) has the facts behind its offload ids
counted as reloadable.
"""

from ctxmgr.replay.fidelity import CallFidelity, Reloader
from ctxmgr.replay.metrics import METRIC_KEYS, CallRecord, TrajectoryResult
from ctxmgr.replay.policy import (
    PEER_POLICIES,
    POLICY_NAMES,
    IncrementalPolicy,
    NonePolicy,
    Policy,
    PolicyContext,
    PolicyFactory,
    PolicyResult,
    PolicyUnavailableError,
    available_policies,
    create_policy,
    policy_status,
    register_policy,
)
from ctxmgr.replay.runner import PolicyRun, ReplayReport, count_model_calls, replay
from ctxmgr.replay.summarizer import FIXED_SUMMARY, FakeSummarizer, SummarizerUsage
from ctxmgr.replay.trajectories import Trajectory, load_trajectories

__all__ = [
    "FIXED_SUMMARY",
    "METRIC_KEYS",
    "PEER_POLICIES",
    "POLICY_NAMES",
    "CallFidelity",
    "CallRecord",
    "FakeSummarizer",
    "IncrementalPolicy",
    "NonePolicy",
    "Policy",
    "PolicyContext",
    "PolicyFactory",
    "PolicyResult",
    "PolicyRun",
    "PolicyUnavailableError",
    "Reloader",
    "ReplayReport",
    "SummarizerUsage",
    "Trajectory",
    "TrajectoryResult",
    "available_policies",
    "count_model_calls",
    "create_policy",
    "load_trajectories",
    "policy_status",
    "register_policy",
    "replay",
]
