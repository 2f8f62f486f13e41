"""ctxmgr for LangGraph."""
