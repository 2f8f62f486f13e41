"""LlamaIndex's chat memories as replay policies (``ctxmgr replay``).

Each peer drives the memory through its public API, the way an agent would,
with the shared fake summarizer and token counter. They register under the
``ctxmgr.replay_policies`` entry-point group (see ``pyproject.toml``), so
``ctxmgr replay --policy NAME`` finds them when ``.[llamaindex]`` is
installed. Importing this package imports no framework; each peer module
imports its own.
"""
