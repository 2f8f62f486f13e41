"""The server's custom app (``"http": {"app": "./webapp.py:app"}`` in langgraph.json):
deleting a thread (``client.threads.delete``) also removes its offloads and memos."""

from starlette.applications import Starlette
from starlette.middleware import Middleware

from ctxmgr_langgraph.server import DeleteThreadOffloads

app = Starlette(middleware=[Middleware(DeleteThreadOffloads)])
