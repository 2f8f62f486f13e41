"""ctxmgr for LlamaIndex."""
