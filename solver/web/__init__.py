"""The local web app (``yahtzee serve``): an advisor page and a play page in the browser, and a
JSON API under ``/api/`` that mirrors the CLI's JSON.

:mod:`solver.web.service` holds everything that does not need the web framework (the advisors
loaded once per process, the games in play, input checks); :mod:`solver.web.app` is the
Starlette application on top of it (needs the ``web`` extra: ``pip install -e ".[web]"``).
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).parent / "static"
