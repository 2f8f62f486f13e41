"""ctxmgr for LangGraph.

Needs the extra: ``pip install "ctxmgr[langgraph]"`` (each module imports
LangGraph / LangChain in a guarded block whose ImportError says so).
"""

from ctxmgr_langgraph.store import DEFAULT_PREFIX, LangGraphStore, resolve_store

__all__ = ["DEFAULT_PREFIX", "LangGraphStore", "resolve_store"]
