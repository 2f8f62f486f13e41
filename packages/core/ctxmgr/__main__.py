"""``python -m ctxmgr`` runs the command line."""

import sys

from ctxmgr.cli import main

sys.exit(main())
