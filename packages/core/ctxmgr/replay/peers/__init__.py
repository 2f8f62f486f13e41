"""Peer policies: other libraries' context management, driven through their public APIs.

Each module imports its framework when it is imported; :func:`ctxmgr.replay.create_policy`
imports them only on demand and names the extra to install when one is missing.
"""
