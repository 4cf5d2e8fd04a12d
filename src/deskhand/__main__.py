"""``python -m deskhand``: the command line."""

from deskhand.cli import main

raise SystemExit(main())
