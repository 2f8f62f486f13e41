"""The six strategies, cheapest first, and the two last resorts (7, then 8)."""

from ctxmgr.autocontext.strategies.base import Plan, Strategy, StrategyContext
from ctxmgr.autocontext.strategies.current_large import CurrentLarge
from ctxmgr.autocontext.strategies.current_round import CurrentRound
from ctxmgr.autocontext.strategies.offload_all import OffloadAll
from ctxmgr.autocontext.strategies.offload_history import OffloadHistory
from ctxmgr.autocontext.strategies.offload_protected import OffloadProtected
from ctxmgr.autocontext.strategies.offload_working_set import OffloadWorkingSet
from ctxmgr.autocontext.strategies.previous_rounds import PreviousRounds
from ctxmgr.autocontext.strategies.tool_runs import ToolRuns

STRATEGIES: tuple[Strategy, ...] = (
    ToolRuns(), OffloadProtected(), OffloadAll(), PreviousRounds(), CurrentLarge(),
    CurrentRound(), OffloadHistory(), OffloadWorkingSet(),
)

__all__ = ["STRATEGIES", "Plan", "Strategy", "StrategyContext"]
