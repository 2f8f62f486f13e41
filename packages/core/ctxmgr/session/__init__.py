"""The session engine: what every framework integration does around the compressor.

One module per concern: ``engine`` (:class:`SessionEngine`: processors per session,
prepare a model call, answer ctxmgr's tools), ``defaults`` (window, tokenizer, store and
summarizer when the user gives none), ``state`` (the typed session state and
its merge), ``prompt`` (the prompt as the model sees it), ``overhead`` (system prompt
and tool schemas, counted), ``recovery`` (``context_reload``: room and pages),
``calibration`` (counts corrected by the model's reported usage), ``labels`` (the
store label of any thread id, and of any agent of a thread, one to one) and ``scope``
(which session each agent of a thread uses). Adapters convert messages, persist edits
their framework's way, bind tools and map storage; the rest is here, so the same
history gives the same decisions through any of them.
"""

from ctxmgr._unset import UNSET, Unset
from ctxmgr.autocontext.config import refuse_moved
from ctxmgr.session.calibration import Calibration, ScaledCounter
from ctxmgr.session.defaults import (
    DEFAULT_MAX_TOKENS,
    ModelInfo,
    choose_counter,
    choose_store,
    choose_summarizer,
    choose_window,
    in_process_store,
    summary_prompt,
)
from ctxmgr.session.engine import (
    DEFAULT_MAX_SESSIONS,
    TOOLS_NAMING_CALLS,
    SessionEngine,
    Turn,
    overflow_events,
)
from ctxmgr.session.labels import (
    NO_THREAD_SESSION,
    agent_session_label,
    session_label,
    split_agent_label,
)
from ctxmgr.session.overhead import OverheadCounter
from ctxmgr.session.prompt import GUIDANCE_ID, after_system, guidance_message, render_view
from ctxmgr.session.recovery import reload_answer
from ctxmgr.session.scope import Scope
from ctxmgr.session.state import (
    MAX_RELOAD_PAGES,
    MemoElision,
    SessionState,
    ToolAnswer,
    archive_changes,
    merge_session_state,
)

__all__ = [
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_MAX_TOKENS",
    "GUIDANCE_ID",
    "MAX_RELOAD_PAGES",
    "TOOLS_NAMING_CALLS",
    "UNSET",
    "NO_THREAD_SESSION",
    "Calibration",
    "MemoElision",
    "ModelInfo",
    "OverheadCounter",
    "ScaledCounter",
    "Scope",
    "SessionEngine",
    "SessionState",
    "ToolAnswer",
    "Turn",
    "Unset",
    "after_system",
    "agent_session_label",
    "archive_changes",
    "choose_counter",
    "choose_store",
    "choose_summarizer",
    "choose_window",
    "guidance_message",
    "in_process_store",
    "merge_session_state",
    "overflow_events",
    "refuse_moved",
    "reload_answer",
    "render_view",
    "session_label",
    "split_agent_label",
    "summary_prompt",
]
