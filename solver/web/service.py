"""What the web app does, without the web framework: advice, card values, rule sets and games.

One :class:`Service` per server process loads each rule set's advisor once (its table read,
never built by a request) and keeps the games being played in the browser.  Every
method takes plain JSON-like values (a request's JSON body or its query string) and returns
JSON-ready dicts, or raises :class:`ApiError` (status and one-line message) for bad input.

Nothing here builds a table in a request: a rule set without its table is a 409 naming the
build (``POST /api/tables``, or ``yahtzee tables build``), and long work -- a distribution, a
build -- runs as the CLI in a bounded child process (:mod:`solver.web.heavy`).

* ``/api/hint`` answers exactly what ``yahtzee hint --json`` prints (``hint --target T --json``
  with a ``target``), ``/api/value`` what ``yahtzee value --json`` prints and
  ``/api/distribution`` what ``yahtzee distribution --json`` prints (the same functions build
  them: :func:`solver.advice.advisor.checked_advice`, :func:`solver.advice.advisor.value_json`; a
  distribution is the CLI's own output, run as a bounded job).  Nothing here imports the CLI.
* Games are :class:`solver.play.game.Game` objects, saved with :mod:`solver.play.records` in the same
  files and database as ``yahtzee play`` (so ``yahtzee review FILE`` reads them), autosaved
  after each turn; records (solo best, daily results) are kept as the CLI keeps them.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from ..core.card import box_label
from ..core.errors import SolverError, printable
from ..play.session import HUMAN
from . import remedy
from .params import (
    ApiError,
    api_error,
    check_fields,
    dice_field,
    records_error,
    rolls_left_field,
    scores_field,
    target_field,
    text_field,
    whole_field,
)

if TYPE_CHECKING:
    from ..advice.advisor import Advisor
    from ..core.rules import RuleSet
    from ..play.game import Game
    from .heavy import HeavyWork

#: largest request body read (bytes); a position or a move is well under 1 KiB
MAX_BODY = 64 * 1024
#: deepest JSON accepted in a request body
MAX_DEPTH = 8
#: games kept in memory (the oldest are dropped; they stay saved on disk)
MAX_GAMES = 256
#: rule sets whose advisor is kept loaded
MAX_ADVISORS = 16
#: rule sets whose win-bot tables (a target table each: about 1 GiB mapped for yahtzee) are kept
MAX_WIN_TABLES = 2

#: the web's modes: those of ``yahtzee play`` (``--players`` is hot-seat, ``--real-dice`` a solo
#: game on typed-in dice)
MODES = ("solo", "vs-computer", "hot-seat", "daily", "real-dice")
#: the unfinished saved games listed at most (each replayed to say where it stands: ~15 ms)
MAX_UNFINISHED = 20
#: the finished saved games listed at most (the newest)
MAX_FINISHED = 100
#: the daily results the stats give at most (the latest; ``played`` counts them all)
MAX_HISTORY = 366


class ServiceTables:
    """A game's tables (:class:`solver.play.session.GameTables`' four methods) from the service:
    read once per rule set and shared by every game, never built in a request."""

    def __init__(self, service: Service):
        self.service = service
        self.tables_dir = service.tables_dir

    def advisor(self, rules):
        return self.service.advisor(rules)

    def bot(self, name: str, rules):
        from ..play.bots import WinBot, get_bot

        if name == "win":  # its tables read once per rule set, not per game
            return WinBot(*self.service._win_tables(rules))
        # never a build in a request (checked at the game's start); a saved game names builtin bots only
        return get_bot(name, rules, self.tables_dir, build_if_missing=False, progress=False, user_bots=False)

    def win_parts(self, rules):
        if rules.triple or not self.service._has_target(rules) or self.service._win_loading_now(rules):
            return None  # none, or being read in the background: no request waits for it
        return self.service._win_tables(rules)

    def win_later(self, rules):
        """The ``win`` bot's tables read in the background (:meth:`Service._win_later`), or
        ``None`` when they are read already (or there is no target table: the game is refused)."""
        if rules.triple or not self.service._has_target(rules):
            return None
        return self.service._win_later(rules)

    def best_bot(self, rules):
        from ..play.daily import best_bot_name

        return self.bot(best_bot_name(rules), rules)


class Service:
    """Advisors (one per rule set, loaded once) and the games in play."""

    def __init__(
        self,
        tables_dir: str | os.PathLike | None = None,
        data: str | os.PathLike | None = None,
        *,
        progress: bool = True,
        heavy: HeavyWork | None = None,
    ):
        from .heavy import HeavyWork

        self.tables_dir = tables_dir
        self.data = data
        self.progress = progress
        #: the queue of long jobs (distributions, builds): one at a time, bounded
        self.heavy = heavy or HeavyWork()
        self._advisors: OrderedDict[str, object] = OrderedDict()
        self._advisor_lock = threading.Lock()  # guards the dicts only, never held while a file is read
        self._loading: dict[str, threading.Lock] = {}  # one per rule set being read
        self._target_advisors: OrderedDict[str, object] = OrderedDict()
        self._win_parts: OrderedDict[str, tuple] = OrderedDict()  # rules id -> (advisor, target table)
        self._win_loading: dict[str, object] = {}  # rules id -> WinTablesLater: read in the background
        self._games: OrderedDict[str, object] = OrderedDict()  # id -> solver.play.session.Session
        self._games_lock = threading.Lock()
        #: where the games' sessions get their tables: this service's, shared by every game
        self.tables = ServiceTables(self)

    # --- advisors ------------------------------------------------------------------------
    def rules(self, spec, five_dice_only: str | None = None) -> RuleSet:
        """The rule set ``spec`` names; ``five_dice_only`` names what refuses six dice (Maxi
        Yatzy: played in the web's games and answered on the advisor page, but with no target
        table yet)."""
        from ..core.rules import RuleSet, get_rules

        if isinstance(spec, RuleSet):
            rules = spec
        elif spec is not None and not isinstance(spec, str):
            raise ApiError(400, f"rules must be text like 'yahtzee' or 'yatzy+all-rolls', got {spec!r}")
        try:
            rules = rules if isinstance(spec, RuleSet) else get_rules(spec or None)
            if five_dice_only is not None:
                rules.require_five_dice(five_dice_only)
            return rules
        except SolverError as exc:
            raise api_error(exc) from None

    def advisor(self, rules) -> Advisor:
        """The advisor of a rule set, its table read once per process.  Never built here (no
        request has that side effect, a GET least of all): a missing table is a 409 that names
        the build (``POST /api/tables``).  Reading one rule set's table never makes another
        rule set's requests wait."""
        from ..advice import load_advisor
        from ..core.errors import MissingTableError

        rules = self.rules(rules)
        with self._advisor_lock:
            found = self._cached_advisor(rules.id)
            if found is not None:
                return found
            loading = self._loading.setdefault(rules.id, threading.Lock())
        with loading:
            with self._advisor_lock:
                found = self._cached_advisor(rules.id)
            if found is not None:
                return found
            try:
                advisor = load_advisor(rules, self.tables_dir, build_if_missing=False, light=True)
            except MissingTableError:
                self._forget_loading(rules.id, loading)
                base = rules.single  # the triple card plays by its base's table
                raise ApiError(409, remedy.missing_table(base), {"build": base.id}) from None
            except SolverError as exc:
                self._forget_loading(rules.id, loading)
                raise api_error(exc) from None
            with self._advisor_lock:
                self._advisors[rules.id] = advisor
                while len(self._advisors) > MAX_ADVISORS:
                    self._advisors.popitem(last=False)
            self._forget_loading(rules.id, loading)
            return advisor

    def _forget_loading(self, rules_id: str, loading: threading.Lock) -> None:
        with self._advisor_lock:  # one lock per rule set being read, not per rule set ever asked for
            if self._loading.get(rules_id) is loading:  # a later reader's own lock stays
                del self._loading[rules_id]

    def _cached_advisor(self, rules_id: str):
        found = self._advisors.get(rules_id)
        if found is not None:
            self._advisors.move_to_end(rules_id)
        return found

    def prepare(self, rules=None) -> Advisor:
        """Before serving (``yahtzee serve`` at start, not a request): the table of ``rules``
        (default ``yahtzee``) built when missing, with progress on stderr, then loaded."""
        from ..engine.tables import get_table

        rules = self.rules(rules)
        try:
            get_table(rules, self.tables_dir, build_if_missing=True, progress=self.progress, light=True)
        except SolverError as exc:
            raise api_error(exc) from None
        return self.advisor(rules)

    def tables_folder(self) -> str:
        """The tables folder, resolved (what a child job is told with ``--tables``)."""
        from ..engine.tables import resolve_dir

        return str(resolve_dir(self.tables_dir))

    def build_job(self, params: dict) -> tuple[str, list[str] | None]:
        """``POST /api/tables`` (``rules``): ``(rules id, argv)`` of the CLI build to run as a
        bounded job, or argv ``None`` when the table is there already."""
        from ..engine.tables import table_paths

        check_fields(params, ("rules",), ("rules",))
        rules = self.rules(params["rules"]).single  # the triple card's table is its base's
        if all(p.is_file() for p in table_paths(rules, self.tables_dir)):
            return rules.id, None
        return rules.id, [
            "tables",
            "build",
            "--quiet",
            f"--rules={rules.id}",
            f"--tables={self.tables_folder()}",
        ]

    # --- the advisor's answers -----------------------------------------------------------------
    def hint(self, params: dict) -> dict:
        """``yahtzee hint --json``: fields ``dice``, ``rolls_left``, ``card`` (default empty), ``rules``;
        with ``target`` (a score), ``yahtzee hint --target T --json`` (options ranked by P(final >=
        T)), which needs the rule set's target table: missing, it is a 409 saying how to build it."""
        from ..advice.advisor import checked_advice
        from ..advice.objectives import AtLeast
        from ..core.position import Position

        check_fields(params, ("dice", "rolls_left", "card", "rules", "target"), ("dice", "rolls_left"))
        rules = self.rules(params.get("rules"))
        target = target_field(params.get("target"))
        try:
            position = Position.parse(
                text_field(params, "card", ""),
                dice_field(params["dice"]),
                rolls_left_field(params["rolls_left"]),
                rules,
            )
            if target is None:
                return checked_advice(self.advisor(rules), position).to_json()
            if rules.triple:
                raise ApiError(400, "target does not take the triple card (no target tables for it)")
            return checked_advice(self.target_advisor(rules), position, AtLeast(target)).to_json()
        except SolverError as exc:
            raise api_error(exc) from None

    def target_advisor(self, rules):
        """The target advisor of a rule set: its target table read once it exists (never built
        here: a build takes minutes, too long for a request)."""
        from ..advice.advisor import TargetAdvisor
        from ..core.errors import MissingTableError
        from ..engine.target import load_target

        rules = self.rules(rules, "a target table")
        advisor = self.advisor(rules)
        with self._advisor_lock:
            found = self._target_advisors.get(rules.id)
            if found is not None and found.advisor is advisor:
                return found
        try:
            table = load_target(rules, self.tables_dir, light=True)
        except MissingTableError:
            raise ApiError(409, remedy.missing_target(rules, self.tables_dir or None)) from None
        except SolverError as exc:
            raise api_error(exc) from None
        found = TargetAdvisor(advisor, table)
        with self._advisor_lock:
            self._target_advisors[rules.id] = found
            while len(self._target_advisors) > MAX_ADVISORS:
                self._target_advisors.popitem(last=False)
        return found

    def distribution_job(self, params: dict) -> list[str]:
        """``/api/distribution`` (``yahtzee distribution --json``): fields ``rules``, ``card``
        (default empty), ``dice`` with ``rolls_left`` (a turn under way), ``at_least`` (scores: a
        list, or text like "250,300"), ``policy`` (default ev).  The request is checked here (a
        bad one is a 400 at once, a missing table a 409); the answer is the CLI's own, run as a
        bounded job: this returns its argv."""
        from ..engine.distribution import check_policy_target, check_targets, parse_policy, read_position

        check_fields(params, ("rules", "card", "dice", "rolls_left", "at_least", "policy"))
        rules = self.rules(params.get("rules"))  # six dice: read_position says where it fits
        dice = params.get("dice")
        rolls = params.get("rolls_left")
        dice = None if dice is None else dice_field(dice)
        rolls = None if rolls is None else rolls_left_field(rolls)
        card_text = text_field(params, "card", "")
        policy = text_field(params, "policy", "ev")
        try:
            targets = check_targets(scores_field(params.get("at_least")))
            kind, target = parse_policy(policy)
            card, _, _ = read_position(rules, card_text, dice, rolls)
        except SolverError as exc:
            raise api_error(exc) from None
        self.advisor(rules)  # the table is there (a 409 naming the build when it is not)
        if kind == "target":
            try:
                check_policy_target(self.target_advisor(rules).table, card, target)
            except SolverError as exc:
                raise api_error(exc) from None
        argv = ["distribution", "--json", f"--rules={rules.id}", f"--card={card_text}", f"--policy={policy}"]
        if dice is not None:
            argv += [f"--dice={dice}", f"--rolls-left={rolls}"]
        return argv + ["--at-least", *map(str, targets), f"--tables={self.tables_folder()}"]

    def value(self, params: dict) -> dict:
        """``yahtzee value --json``: fields ``card`` (default empty) and ``rules``."""
        from ..advice.advisor import value_json
        from ..core.triple_card import parse_card

        check_fields(params, ("card", "rules"))
        rules = self.rules(params.get("rules"))
        try:
            card = parse_card(text_field(params, "card", ""), rules)
            return value_json(self.advisor(rules), card)
        except SolverError as exc:
            raise api_error(exc) from None

    # "win" is being built in the CLI; its endpoint belongs here, calling the same function as
    # the CLI's JSON output.

    def rules_info(self, params: dict) -> dict:
        """A rule set's card for the pages: ``yahtzee rules SPEC --json`` plus each box's details
        and the card's other rules in words (``rule_lines``); with ``card`` (a card written under
        another rule set: the page's when its rule set changes), ``fit``: what of it this rule
        set keeps (``card``) and each entry left out with the reason (``left_out``)."""
        check_fields(params, ("rules", "spec", "card"))
        rules = self.rules(params.get("rules", params.get("spec")))
        boxes = []
        for i, box in enumerate(rules.boxes):
            boxes.append(
                {
                    "name": box.name,
                    "upper": box.is_upper,
                    "scores": sorted(rules.possible_scores[i]),
                    "rule": box.scorer.describe(),
                }
                | (
                    {"joker": box.joker_score}
                    if rules.joker != "none" and box.joker_score is not None
                    else {}
                )
            )
        out = rules.describe() | {
            "reference_value": rules.reference_value,
            "box_details": boxes,
            "yahtzee_bonus": rules.bonus,
            "rule_lines": rules.rule_lines(),
        }
        if "card" in params:
            out["fit"] = self._fit(text_field(params, "card", ""), rules)
        return out

    @staticmethod
    def _fit(text: str, rules) -> dict:
        from ..core.card import box_key
        from ..core.triple_card import fit_card

        try:
            card, left_out = fit_card(text, rules)
        except SolverError as exc:
            raise api_error(exc) from None
        dropped = []
        for entry, reason in left_out:
            key, _, value = entry.partition("=")
            dropped.append({"entry": entry, "box": box_key(key), "score": value.strip(), "reason": reason})
        return {"card": str(card), "left_out": dropped}

    @staticmethod
    def rules_list() -> dict:
        """The bases, the 1.0 rule-set names and the modifiers (``yahtzee rules --json`` and more)."""
        from ..core.rules import ALIASES, BASES, MODIFIERS, RULE_SETS

        return {
            "bases": {b.id: b.title for b in BASES.values()},
            "aliases": dict(ALIASES),
            "named": {name: r.id for name, r in RULE_SETS.items()},
            "modifiers": {m.syntax: m.help for m in MODIFIERS.values()},
            # the rule-set picker's checkboxes: NAME or NAME=VALUE (takes_value) each
            "modifier_details": [
                {"name": m.name, "syntax": m.syntax, "help": m.help, "takes_value": m.takes_value}
                for m in MODIFIERS.values()
            ],
        }

    # --- games ------------------------------------------------------------------------------
    def new_game(self, params: dict) -> dict:
        """Start a game: ``mode`` (solo, vs-computer, hot-seat, daily, real-dice), ``rules``,
        ``level`` (vs-computer: easy, medium, hard, perfect, win), ``players`` (hot-seat: names,
        a list or ``"Ann,Ben"``; ``computer:LEVEL`` seats a computer), ``date`` (daily; default
        today), ``seed`` (solo, vs-computer, hot-seat), ``coach`` (true: judged after each move)."""
        from ..play.daily import parse_date, released_date
        from ..play.game import Game, Player
        from ..play.records import new_game_path
        from ..play.session import Session, earlier_play, levels, mark_assisted, players_from_names

        check_fields(params, ("mode", "rules", "level", "date", "seed", "players", "coach"))
        mode = text_field(params, "mode", "solo")
        if mode not in MODES:
            raise ApiError(400, f"mode {mode!r} is not one of {', '.join(MODES)}")
        coach = params.get("coach", False)
        if not isinstance(coach, bool):
            from ..core.bounded import shown

            raise ApiError(400, f"coach must be true or false, got {shown(coach)}")
        rules = self.rules(params.get("rules"))
        if mode == "hot-seat":
            if params.get("players") is None:
                raise ApiError(400, "mode hot-seat needs players: names like 'Ann,Ben'")
            try:
                seated = players_from_names(params["players"], rules)
            except SolverError as exc:
                raise api_error(exc) from None
        elif params.get("players") is not None:
            raise ApiError(400, "players is for mode hot-seat only")
        else:
            seated = [Player(HUMAN)]
        level = text_field(params, "level")
        LEVELS = levels(rules)  # noqa: N806 - the rule set's table of levels
        if mode == "vs-computer":
            level = "medium" if level is None else level
            if level not in LEVELS:
                raise ApiError(400, f"level {level!r} is not one of {', '.join(LEVELS)}")
            if LEVELS[level] == "win" and not self._has_target(rules):  # minutes: never built in a request
                raise ApiError(400, remedy.needs_target(rules, "level win"))
        elif level is not None:
            raise ApiError(400, "level is for mode vs-computer only")
        seed = params.get("seed")
        if seed is not None:
            from ..core.streams import MAX_SEED

            seed = whole_field(seed, "seed", 0, MAX_SEED, text=False)
            if mode in ("daily", "real-dice"):
                raise ApiError(400, f"a {mode} game has its own dice; it takes no seed")
        date = None
        if mode == "daily":
            try:
                date = released_date(parse_date(text_field(params, "date")))
            except SolverError as exc:
                raise api_error(exc) from None
        elif params.get("date") is not None:
            raise ApiError(400, "date is for mode daily only")
        if rules.n_dice == 5:  # the table is there (built when missing) before the game starts
            self.advisor(rules)
        # six dice (Maxi Yatzy): its table takes minutes; a game starts without it (the hint and
        # the perfect level ask for it then, the end skips the optimal player's comparison)
        players = list(seated)
        real_dice = mode == "real-dice"
        if real_dice:
            mode = "solo"  # as ``yahtzee play --real-dice``: a solo game whose dice are typed in
        info: dict = {"mode": mode, "client": "web"}
        if coach:
            info["coach"] = True
        if level is not None:
            players.append(Player(f"Computer ({level})", "bot", LEVELS[level]))
            info["level"] = level
        warnings = []
        try:  # a replay (the day's daily played already, a seed played before) is marked as such
            earlier = earlier_play(mode, rules.id, seed, date, self.data)
        except SolverError as exc:
            earlier, warnings = None, [str(exc)]
        if earlier is not None:
            info["replay"] = True
        try:
            game = Game.new(rules, players, seed=seed, date=date, real_dice=real_dice, info=info)
            if coach:
                mark_assisted(game, "coach")
        except SolverError as exc:
            raise api_error(exc) from None
        session = Session(game, new_game_path(game, self.data), self.tables, data=self.data, earlier=earlier)
        session.warnings += warnings
        game_id = self._keep(session)
        with session.lock:
            self._start(session)
            return self.state(game_id, session)

    def _start(self, session) -> None:
        try:
            session.start()
        except SolverError as exc:
            raise api_error(exc) from None

    def _keep(self, session) -> str:
        """A new game in play: its bots made (a missing table refused now), kept in memory under
        a new id (the oldest games dropped past :data:`MAX_GAMES`)."""
        if session.wants_target_table:  # its tables read in the background: the game starts now
            later = self.tables.win_later(session.game.rules)
            if later is not None:
                session.play_win_later(later)
        try:
            session.prepare()
        except SolverError as exc:
            raise api_error(exc) from None
        game_id = secrets.token_urlsafe(12)
        with self._games_lock:
            self._games[game_id] = session
            while len(self._games) > MAX_GAMES:
                self._games.popitem(last=False)
        return game_id

    def game(self, game_id: str):
        """The :class:`~solver.play.session.Session` of a game in play, or a 404."""
        if not isinstance(game_id, str):
            raise ApiError(404, "no such game")
        with self._games_lock:
            session = self._games.get(game_id)
        if session is None:
            raise ApiError(
                404,
                f"no game {game_id!r} on this server (games live as long as the server: after a "
                "restart, resume it from the saved games)",
            )
        return session

    def _win_tables(self, rules):
        """The ``win`` bot's tables of a rule set (the expected-score advisor with numpy, the target
        table, about 1 GiB for ``yahtzee``), read once and shared by every game: a WinBot holds a
        game's state, its tables do not."""
        from ..advice.advisor import Advisor
        from ..engine.target import load_target

        with self._advisor_lock:
            found = self._win_parts.get(rules.id)
        if found is None:
            found = (Advisor.load(rules, self.tables_dir), load_target(rules, self.tables_dir))
            with self._advisor_lock:
                found = self._win_parts.setdefault(rules.id, found)
                while len(self._win_parts) > MAX_WIN_TABLES:
                    self._win_parts.popitem(last=False)
        return found

    def _win_later(self, rules):
        """The ``win`` bot's tables of a rule set read in a background thread, one reading per rule
        set shared by every game that waits for it (:class:`~solver.play.session.WinTablesLater`:
        the game starts at once, its computer playing for expected score meanwhile); ``None`` when
        they are read already."""
        from ..play.session import WinTablesLater

        def load() -> None:
            from ..advice.win import WinAdvisor

            WinAdvisor(*self._win_tables(rules))  # the opponent model read or solved with them

        with self._advisor_lock:
            later = self._win_loading.get(rules.id)
            if later is not None and not later.ready():
                # still reading (its tables may be in _win_parts already, the opponent model not yet)
                return later
            if rules.id in self._win_parts:
                return None
            # none yet, or one that failed or was dropped since
            later = self._win_loading[rules.id] = WinTablesLater(load, what="load")
            return later

    def _win_loading_now(self, rules) -> bool:
        """Whether the ``win`` bot's tables of ``rules`` are being read in the background."""
        later = self._win_loading.get(rules.id)
        return later is not None and not later.ready()

    def game_state(self, game_id: str) -> dict:
        session = self.game(game_id)
        with session.lock:
            return self.state(game_id, session)

    def act(self, game_id: str, action: str, params: dict) -> dict:
        """A move in a game: ``roll`` (real dice: ``dice``, the faces of the dice rolled),
        ``undo`` (solo: the last box taken back), ``hold`` (``held``: die positions 1..5), ``score`` (``box``),
        ``coach`` (``on``: true or false), ``hint`` (the answer is the hint), ``quit``; returns the
        game's state.  An illegal move is refused (400) and changes nothing.  ``version`` (the
        state's, as the page last showed it) makes a move on an out-of-date page -- another tab
        has moved since -- a 409 whose ``state`` is the game as it is now."""
        session = self.game(game_id)
        moves = {
            "roll": (("dice",), (), self._roll),
            "undo": ((), (), lambda s, p: s.undo()),
            "hold": (("held",), ("held",), self._hold),
            "score": (("box",), ("box",), self._score),
            "quit": ((), (), lambda s, p: s.abandon()),
            "coach": (("on",), ("on",), self._coach),
            "hint": ((), (), self._hint),
        }
        if action not in moves:
            raise ApiError(404, f"unknown move {action!r} (moves: {', '.join(moves)})")
        allowed, required, run = moves[action]
        check_fields(params, (*allowed, "version"), required)
        with session.lock:
            seen = params.get("version")
            if seen is not None and whole_field(seen, "version", 0, 1 << 62, text=False) != session.moves:
                raise ApiError(
                    409,
                    "this game went on in another tab or window: here it is as it is now "
                    "(your last click did nothing)",
                    {"state": self.state(game_id, session)},
                )
            if session.status != "in_progress" or session.game.is_over:
                status = "finished" if session.game.is_over else session.status
                raise ApiError(409, f"the game is {status}: start a new one")
            try:
                answer = run(session, params)
            except SolverError as exc:
                raise api_error(exc) from None
            if action == "hint":  # asking changes what the game counts for, not the position
                return answer
            return self.state(game_id, session)

    # --- saved games: listed, resumed, reviewed; the statistics --------------------------------
    def _saved(self, name):
        """The saved game of the data folder whose file is ``games/NAME`` (the database's row,
        :func:`solver.play.records.saved_game`), or a 4xx."""
        from ..play.records import games_dir, saved_game

        try:
            saved = saved_game(name, self.data)
        except SolverError as exc:
            raise records_error(exc) from None
        if saved is None:
            raise ApiError(404, f"no saved game {name} in {games_dir(self.data)}")
        return saved

    def _replayed(self, saved) -> Game:
        """A saved game's file read and replayed (as ``yahtzee review`` and ``play --resume``
        read it), or a 4xx (a 503 when the machine cannot read it)."""
        from ..play.records import load_game

        if not saved.path.is_file():
            raise ApiError(404, f"the file of the saved game {saved.name} is gone ({saved.path})")
        try:
            return load_game(saved.path)
        except SolverError as exc:
            raise records_error(exc) from None

    def resume_game(self, name) -> dict:
        """``POST /api/saved-games/NAME/resume``: go on with the unfinished game of the data folder
        saved as ``games/NAME`` (as ``yahtzee play --resume`` does: its file loaded and replayed);
        the file is the one the database names, inside the games folder, never a path of the
        request's.  A game already in play on this server is that game (two copies would
        overwrite each other's file); a finished one is a 409."""
        from ..play.session import Session

        saved = self._saved(name)
        if saved.status == "finished":
            raise ApiError(409, f"the game {name} is finished: review it (/review?game={name})")
        with self._games_lock:
            live = [(i, s) for i, s in self._games.items() if s.path == saved.path]
        for game_id, session in live:
            with session.lock:
                if session.status == "in_progress" and not session.game.is_over:
                    return self.state(game_id, session)
        game = self._replayed(saved)
        if game.is_over:
            raise ApiError(409, f"the game {name} is over: review it (/review?game={name})")
        why = _not_played_here(game, saved.path)
        if why is not None:
            raise ApiError(400, why)
        if game.rules.n_dice == 5:  # its table is there (a 409 naming the build when not)
            self.advisor(game.rules)  # six dice: played without it, as a new game (new_game)
        if any(p.bot == "win" for p in game.players) and not self._has_target(game.rules):
            raise ApiError(409, remedy.needs_target(game.rules, "this game is against level win, which"))
        session = Session(game, saved.path, self.tables, data=self.data, resumed=True)
        game_id = self._keep(session)
        with session.lock:
            self._start(session)  # saved on a computer's turn: it plays first
            return self.state(game_id, session)

    def _has_target(self, rules) -> bool:
        """Whether the rule set's target table is built (a request never builds one)."""
        from ..engine.target import target_paths

        return all(p.is_file() for p in target_paths(rules, self.tables_dir))

    def win_bot(self, rules):
        """A ``win`` bot of a rule set whose target table is built (its tables shared, as the
        games' are), or ``None``: a review's chances to win, never a build."""
        from ..play.bots import WinBot

        rules = self.rules(rules)
        if rules.n_dice != 5 or not self._has_target(rules):  # six dice: no target table yet
            return None
        try:
            return WinBot(*self._win_tables(rules))
        except SolverError as exc:
            raise api_error(exc) from None

    def saved_list(self, params: dict) -> dict:
        """``GET /api/saved-games``: ``status`` ``unfinished`` (default: in progress or abandoned,
        what can be resumed) or ``finished``; ``limit`` (at most :data:`MAX_UNFINISHED` or
        :data:`MAX_FINISHED`).  ``{"folder", "status", "games": [...]}``, newest first: each
        game's ``name`` (for resume and review), ``rules``, ``title``, ``mode``, ``level``,
        ``date``, ``status``, ``players`` (names), ``scores``, ``saved_at``; an unfinished one
        also ``round`` of ``n_rounds``, ``turns_played``, ``playing`` (in play on this server)
        and ``resumable``, with ``why`` not."""
        from ..play.records import games_dir, saved_games

        check_fields(params, ("status", "limit"))
        status = text_field(params, "status", "unfinished")
        if status not in ("unfinished", "finished"):
            raise ApiError(400, f"status must be unfinished or finished, got {status!r}")
        finished = status == "finished"
        most = MAX_FINISHED if finished else MAX_UNFINISHED
        limit = most if params.get("limit") is None else whole_field(params["limit"], "limit", 1, most)
        try:
            games = saved_games(self.data, finished=finished, limit=limit)
        except SolverError as exc:
            raise records_error(exc) from None
        with self._games_lock:
            playing = {w.path for w in self._games.values() if w.status == "in_progress"}
        return {
            "folder": str(games_dir(self.data)),
            "status": status,
            "games": [_saved_entry(g, finished, g.path in playing) for g in games],
        }

    def review(self, params: dict) -> dict:
        """``GET /api/review``: ``game`` (a saved game's name, as :meth:`saved_list` gives it) --
        every decision of its people beside the best, as ``yahtzee review --json`` writes it
        (:func:`solver.play.review.review_report`; boxes named for people, as the end of a game
        names them; each scored turn's chances to win where the rule set's target table is
        built), plus the game's ``name``, ``status``, ``saved_at``."""
        from ..play.review import review_game, review_report, review_target, reviews_win, win_effects

        check_fields(params, ("game",), ("game",))
        saved = self._saved(text_field(params, "game"))
        game = self._replayed(saved)
        advisor = self.advisor(game.rules)
        target = None
        if review_target(game) is not None:
            try:
                target = self.target_advisor(game.rules)
            except ApiError as exc:
                if exc.status != 409:  # 409: no target table; the review is by expected score only
                    raise
        humans = [i for i, p in enumerate(game.players) if not p.is_bot]
        try:
            reviews = review_game(game, advisor, humans, target)
            bot = self.win_bot(game.rules) if reviews_win(game) else None
            win = None if bot is None else win_effects(game, bot)
        except SolverError as exc:
            raise records_error(exc) from None
        return review_report(game, advisor, reviews, str(saved.path), win, box_label) | {
            "name": saved.name,
            "status": saved.status,
            "saved_at": saved.saved_at,
        }

    def stats(self, params: dict) -> dict:
        """``GET /api/stats``: ``rules`` (optional: one rule set) -- ``yahtzee stats --json``
        (:func:`solver.play.stats.statistics`), its daily ``history`` the last :data:`MAX_HISTORY`."""
        from ..play.stats import statistics

        check_fields(params, ("rules",))
        rules = params.get("rules")
        rules_id = None if rules in (None, "") else self.rules(rules).id
        try:
            return statistics(self.data, rules_id, history=MAX_HISTORY)
        except SolverError as exc:
            raise records_error(exc) from None

    # --- moves: the request's values checked, the move the session's -------------------------
    def _roll(self, session, params: dict):
        g = session.game
        values = params.get("dice")
        if values is not None and not g.needs_values:
            raise ApiError(400, "dice are typed in only in a game on real dice: here the server rolls")
        if values is None and g.needs_values and not g.is_over:
            raise ApiError(400, f"real dice: say what you rolled (dice: the {g.dice_to_roll} faces)")
        if values is not None:
            from ..core.bounded import shown

            if not isinstance(values, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in values
            ):
                raise ApiError(400, f"dice must be a list of faces 1 to 6, got {shown(values)}")
        return session.roll(values)

    def _hold(self, session, params: dict):
        from ..core.bounded import shown

        held = params["held"]
        n = session.game.n_dice
        if not isinstance(held, list) or len(held) > n:
            raise ApiError(400, f"held must be a list of die positions 1 to {n}, got {shown(held)}")
        # JSON numbers only ([1, "1"] is not two dice); their range is the game's to judge
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in held):
            raise ApiError(400, f"held must list die positions as numbers 1 to {n}, got {shown(held)}")
        if len(set(held)) != len(held):
            raise ApiError(400, f"held {shown(held)} names a die twice")
        return session.hold(held)

    def _score(self, session, params: dict):
        g = session.game
        box = params["box"]
        if not isinstance(box, str):
            if g.rules.triple:
                raise ApiError(400, "box must be a box and its column on the triple card, such as fours@3")
            box = whole_field(box, "box number", 1, len(g.rules.box_names))
        elif len(box) > 100:
            from ..core.bounded import shown

            raise ApiError(400, f"box must be a box name or number, got {shown(box)}")
        return session.score(box)

    def _coach(self, session, params: dict):
        """The coach on or off.  On, the game is marked assisted (as ``yahtzee play --coach``)."""
        from ..core.bounded import shown

        on = params["on"]
        if not isinstance(on, bool):
            raise ApiError(400, f"on must be true or false, got {shown(on)}")
        return session.set_coach(on)

    def _hint(self, session, params: dict) -> dict:
        """The hint of the position to move (``yahtzee hint --json``); the game is marked assisted
        (as ``hint`` in ``yahtzee play``): a POST, since asking changes what the game counts for."""
        from ..play.events import Hinted

        events = session.hint()
        return next(e for e in events if isinstance(e, Hinted)).advice.to_json()

    # --- the state the pages show ------------------------------------------------------------
    def state(self, game_id: str, session) -> dict:
        """The game as the play page shows it (:func:`solver.web.view.game_state`)."""
        from .view import game_state

        return game_state(game_id, session, self._review)

    @staticmethod
    def _review(session) -> list[dict] | None:
        """A finished game's review; ``None`` for six dice (Maxi Yatzy) while its table is not
        built (minutes: a game starts and ends without it; ``yahtzee review`` reviews it later)."""
        from .view import session_review

        try:
            return session_review(session)
        except ApiError as exc:
            if exc.status != 409 or session.game.rules.n_dice == 5:
                raise
            return None


def _not_played_here(game: Game, path) -> str | None:
    """Why the web app cannot go on with a saved game (a mode it does not play), or ``None``."""
    mode = game.info.mode  # a real-dice game is saved as mode solo
    if mode in MODES:
        return None
    return f"the web app does not play {printable(str(mode))} games: yahtzee play --resume {path}"


def _saved_entry(saved, finished: bool, playing: bool) -> dict:
    """A saved game as the pages list it (:meth:`Service.saved_list`); an unfinished one replayed
    to say where it stands and whether the web app can go on with it."""
    from ..core.bounded import clipped
    from ..core.rules import get_rules
    from ..play.game import Game

    try:
        title = get_rules(saved.rules).title
    except SolverError:  # a row of a rule set this version does not know
        title = None
    level = saved.game.get("level")
    out = {
        "name": saved.name,
        "rules": saved.rules,
        "title": title,
        "mode": saved.mode,
        "dice": saved.game.get("dice") if saved.game.get("dice") in ("seeded", "daily", "real") else None,
        "level": level if isinstance(level, str) else None,
        "date": saved.date,
        "status": saved.status,
        "players": [str(p) for p in saved.players],
        "scores": saved.scores,
        "saved_at": saved.saved_at,
    }
    if finished:
        return out
    why = None
    try:
        game = Game.from_dict(saved.game)
        out |= {
            "round": min(game.round, game.n_rounds),
            "n_rounds": game.n_rounds,
            "turns_played": sum(t.is_complete for t in game.turns),
        }
        why = _not_played_here(game, saved.path)
    except SolverError as exc:
        why = clipped(str(exc), 200)
    return out | {"playing": playing, "resumable": why is None, "why": why}
