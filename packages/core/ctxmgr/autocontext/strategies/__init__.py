"""AgentScope's six strategies, cheapest first, then the last resorts (7, 8 and 9).

Each strategy declares what it is (:class:`~ctxmgr.autocontext.strategies.base.Strategy`):
the pipeline, the markers and the config read those declarations, never numbers.
"""

from collections.abc import Sequence

from ctxmgr.autocontext.config import AutoContextConfig
from ctxmgr.autocontext.strategies.base import (
    Plan,
    RunsWhen,
    Strategy,
    StrategyContext,
    runs_first,
)
from ctxmgr.autocontext.strategies.current_large import CurrentLarge
from ctxmgr.autocontext.strategies.current_round import CurrentRound
from ctxmgr.autocontext.strategies.offload_all import OffloadAll
from ctxmgr.autocontext.strategies.offload_history import OffloadHistory
from ctxmgr.autocontext.strategies.offload_protected import OffloadProtected
from ctxmgr.autocontext.strategies.offload_working_set import OffloadWorkingSet
from ctxmgr.autocontext.strategies.previous_rounds import PreviousRounds
from ctxmgr.autocontext.strategies.tool_runs import ToolRuns
from ctxmgr.autocontext.strategies.user_turns import UserTurns
from ctxmgr.errors import ConfigError

STRATEGIES: tuple[Strategy, ...] = (
    ToolRuns(), OffloadProtected(), OffloadAll(), PreviousRounds(), CurrentLarge(),
    CurrentRound(), OffloadHistory(), OffloadWorkingSet(), UserTurns(),
)
"""Every strategy, in the order they run (but see :func:`strategy_order`)."""

STRATEGY_NAMES: dict[int, str] = {s.number: s.name for s in STRATEGIES}
"""Strategy number -> name (the numbers ``disabled_strategies`` takes)."""


def strategy_order(config: AutoContextConfig,
                   strategies: Sequence[Strategy] = STRATEGIES) -> tuple[Strategy, ...]:
    """The strategies in the order a pass runs them with ``config``: the one that folds
    the history into notes first when ``Tuning.history_notes_first`` says so (see
    :func:`~ctxmgr.autocontext.strategies.base.runs_first`), then the rest in their order."""
    return tuple(sorted(strategies, key=lambda s: not runs_first(s, config)))


def check_strategies(config: AutoContextConfig) -> None:
    """Raise when ``config`` disables a strategy that does not exist.

    Raises:
        ConfigError: names the unknown numbers and the known ones.
    """
    unknown = sorted(config.disabled_strategies - STRATEGY_NAMES.keys())
    if unknown:
        known = ", ".join(f"{n} ({name})" for n, name in STRATEGY_NAMES.items())
        raise ConfigError(f"disabled_strategies must hold strategy numbers, got {unknown}; "
                          f"the strategies are {known}")


__all__ = ["STRATEGIES", "STRATEGY_NAMES", "Plan", "RunsWhen", "Strategy", "StrategyContext",
           "check_strategies", "strategy_order"]
