"""Shared fixtures: one tables folder per test session, tables built lazily per rule set."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# "dev" (the default on a developer's machine) keeps the working loop fast; CI (CI=true, as
# .ci/run runs) uses hypothesis' full 100 examples, and HYPOTHESIS_PROFILE=thorough 300
settings.register_profile(
    "dev", deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile(
    "ci", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile(
    "thorough", deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

DATA = Path(__file__).parent / "data"

#: what ``pytest --fast`` (the developer's loop) leaves out; CI runs everything
NOT_FAST = ("slow", "browser", "subprocess")
#: at most this many xdist workers for ``--fast`` (each builds its own session tables)
FAST_WORKERS = 2


def pytest_addoption(parser):
    parser.addoption(
        "--fast",
        action="store_true",
        help="the developer's loop: leave out the slow, browser and subprocess-heavy tests (CI runs all)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """``--fast`` runs on every core, in pytest-xdist's workers, unless ``-n`` says otherwise (or
    xdist is not installed): the developer's loop is wall time; CI runs one process, in order."""
    if (
        config.getoption("--fast")
        and config.pluginmanager.hasplugin("xdist")
        and config.getoption("numprocesses", None) is None
        and not os.environ.get("PYTEST_XDIST_WORKER")
    ):
        config.option.numprocesses = min(os.cpu_count() or 1, FAST_WORKERS)


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--fast"):
        return
    kept, dropped = [], []
    for item in items:
        (dropped if any(item.get_closest_marker(m) for m in NOT_FAST) else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


GOLDEN_FILE = DATA / "advice-golden.jsonl"


def load_golden() -> list[dict]:
    """The independent golden positions (one JSON object a line: rules, card, dice, rolls_left, best_ev and the best options' values)."""
    with open(GOLDEN_FILE, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


class SessionTables:
    """A temporary tables folder shared by the whole session.

    ``table(rules)`` builds a rule set's table the first time it is asked for and
    returns the loaded :class:`solver.engine.tables.Table`; ``advisor(rules)`` wraps it.
    The object is path-like, so it can be passed wherever a folder is expected.
    """

    def __init__(self, path: Path):
        self.path = path
        self._tables: dict[str, object] = {}
        self._advisors: dict[str, object] = {}

    def __fspath__(self) -> str:
        return str(self.path)

    def __str__(self) -> str:
        return str(self.path)

    def table(self, rules):
        from solver.core.rules import get_rules
        from solver.engine.tables import build_table

        rules = get_rules(rules)
        if rules.id not in self._tables:
            self._tables[rules.id] = build_table(rules, self.path, progress=False)
        return self._tables[rules.id]

    def advisor(self, rules):
        from solver.advice.advisor import Advisor

        table = self.table(rules)
        if table.rules.id not in self._advisors:
            self._advisors[table.rules.id] = Advisor(table)
        return self._advisors[table.rules.id]


@pytest.fixture(scope="session", autouse=True)
def no_user_folders(tmp_path_factory):
    """Tests never touch the user's own data or tables folders (nor a checkout's ``tables/``):
    for the whole session every default -- ``$YAHTZEE_DATA``, ``$YAHTZEE_TABLES`` and the XDG
    folders behind them, which tests that check ``--data`` remove -- points into the session's
    temporary folder, for the tests and the processes they start."""
    patch = pytest.MonkeyPatch()
    for name in ("YAHTZEE_DATA", "YAHTZEE_TABLES", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        patch.setenv(name, str(tmp_path_factory.mktemp(name.lower())))
    yield
    patch.undo()


@pytest.fixture(scope="session")
def tables_dir(tmp_path_factory) -> SessionTables:
    """The session's tables folder; call ``tables_dir.table("yahtzee")`` to make sure a table is built."""
    return SessionTables(tmp_path_factory.mktemp("tables"))


@pytest.fixture(scope="session")
def golden() -> list[dict]:
    return load_golden()


# --- the web app's tests (tests/test_web_*.py, which skip without the web extra) -------------
@pytest.fixture(scope="module")
def tables(tables_dir) -> str:
    """The session's tables folder (as text) with the yahtzee table built."""
    tables_dir.table("yahtzee")
    return str(tables_dir)


@pytest.fixture
def data(tmp_path):
    """A data folder of the test's own (created by what writes into it)."""
    return tmp_path / "data"


@pytest.fixture(scope="module")
def server(tables):
    """One real web server for the module: ``(base URL, its Service)``; each test that asks for
    ``client`` points it at its own data folder."""
    from webserver import serve

    from solver.web.app import create_app
    from solver.web.service import Service

    service = Service(tables, None, progress=False)
    with serve(create_app(service=service)) as base:
        yield base, service


@pytest.fixture(scope="module")
def site(tables, tmp_path_factory):
    """A real web server for the module on a data folder of the module's own: ``(base URL, data
    folder)`` (the browser tests read what the pages saved)."""
    from webserver import serve

    from solver.web.app import create_app
    from solver.web.service import Service

    data = tmp_path_factory.mktemp("webdata")
    with serve(create_app(service=Service(tables, data, progress=False))) as base:
        yield base, data


@pytest.fixture
def client(server, data):
    """A client of the module's server, which keeps this test's games in ``data``."""
    from webserver import Client

    base, service = server
    service.data = data
    return Client(base)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the module (or a skip saying what is missing)."""
    from webserver import chrome

    driver = chrome()
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
