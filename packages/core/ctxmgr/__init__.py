"""ctxmgr."""
