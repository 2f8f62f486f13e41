"""Trajectory sources that need LangGraph: found by replay through the
``ctxmgr.trajectory_sources`` entry-point group (see ``pyproject.toml``)."""
