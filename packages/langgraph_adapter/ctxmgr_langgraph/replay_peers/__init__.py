"""LangChain's and langmem's context management as replay policies (``ctxmgr replay``).

Each peer drives the library through its public API, the way an agent would,
with the shared fake summarizer and token counter. They register under the
``ctxmgr.replay_policies`` entry-point group (see ``pyproject.toml``), so
``ctxmgr replay --policy NAME`` finds them when ``.[langgraph]`` (and, for
``langmem_summarize``, ``.[langmem]``) is installed. Importing this package
imports no framework; each peer module imports its own.
"""
