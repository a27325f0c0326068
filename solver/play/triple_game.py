"""Playing and reviewing the triple card in the terminal (``play --rules triple``, ``review``).

A separate, small line-based game beside :mod:`solver.play.game` (which plays single cards):
solo, against the computer, hot-seat and the daily challenge, on seeded or daily dice.
Each turn starts with the first roll made; then ``k FACES`` keeps those dice and rerolls
the rest, ``s BOX@COLUMN`` (or ``s BOX COLUMN``) scores.  The advice (``hint``, the coach,
the computer at ``perfect``, ``review``) is the ``triple`` player's: best-known, not proven
optimal (see :mod:`solver.advice.triple`).

A game is saved as JSON (``format`` :data:`FORMAT`) under the data folder's ``games/``:
the players, the dice source and every turn's rolls, keeps and placement; loading replays
it through :class:`~solver.advice.triple.TripleCard` and, for seeded and daily dice, checks every
roll against the stream.  Triple games are not entered in the records database.
"""

from __future__ import annotations

import json
import random
import secrets
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..advice.triple import NOTE, TripleAdvisor, format_triple_advice
from ..core.dice import Dice, is_sub_multiset, parse_faces
from ..core.errors import IllegalMoveError, SolverError, UsageError
from ..core.rules import RuleSet, get_rules
from ..core.streams import DailyStream, SeededStream
from ..core.triple_card import TripleCard


class GameRecordError(UsageError):
    """A saved triple game that cannot be replayed (exit 2)."""


FORMAT = "yahtzee-solver triple game"
VERSION = 1
#: Computer levels on the triple card: the players of :data:`solver.advice.triple.TRIPLE_BOTS`.
LEVELS = {"easy": "random", "medium": "greedy", "hard": "heuristic", "perfect": "triple"}
HELP = """\
commands (each turn starts with the first roll made):
  k 3 3 5, keep 3 3 5   keep these faces and reroll the other dice (k alone rerolls all five)
  r, roll               reroll all five dice
  s fours@3, s fours 3  score the dice in a box of a column (1..3); a unique start such as 'full' works
  hint, ?               the best-known options now (the triple player's)
  card, c               the card, with what each open box would score now in (brackets)
  help                  this list
  quit, q               stop now; the game is saved as abandoned"""


@dataclass
class Turn:
    player: int
    rolls: list[tuple[int, ...]] = field(default_factory=list)
    keeps: list[tuple[int, ...]] = field(default_factory=list)
    column: int | None = None  # 1-based
    box: str | None = None

    def to_json(self) -> dict:
        return {
            "player": self.player,
            "rolls": [list(r) for r in self.rolls],
            "keeps": [list(k) for k in self.keeps],
            "column": self.column,
            "box": self.box,
        }


@dataclass
class TripleGame:
    """Players' cards, their dice streams and the turns played (see the module docstring)."""

    rules: RuleSet
    players: list[dict]  # {"name": ..., "bot": None | name}
    info: dict
    cards: list[TripleCard] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.cards:
            self.cards = [TripleCard.empty(self.rules) for _ in self.players]
        self.streams = self._streams()

    def _streams(self):
        n = len(self.players)
        if self.info.get("dice") == "daily":
            return [DailyStream(self.info["date"]) for _ in range(n)]
        return [SeededStream(int(self.info["seed"]), game=i) for i in range(n)]

    @property
    def n_rounds(self) -> int:
        return self.rules.n_turns

    @property
    def current(self) -> int:
        done = sum(1 for t in self.turns if t.box is not None)
        return done % len(self.players)

    @property
    def round(self) -> int:
        done = sum(1 for t in self.turns if t.box is not None)
        return done // len(self.players) + 1

    @property
    def is_over(self) -> bool:
        return all(card.is_complete for card in self.cards)

    @property
    def turn(self) -> Turn:
        """The turn in play (started with its first roll)."""
        if not self.turns or self.turns[-1].box is not None:
            if self.is_over:
                raise IllegalMoveError("the game is over")
            t = Turn(self.current)
            t.rolls.append(tuple(sorted(self.streams[t.player].next_five())))
            self.turns.append(t)
        return self.turns[-1]

    @property
    def dice(self) -> Dice:
        return Dice(self.turn.rolls[-1])

    @property
    def rolls_left(self) -> int:
        return 3 - len(self.turn.rolls)

    def keep(self, faces) -> None:
        t = self.turn
        faces = tuple(sorted(int(f) for f in faces))
        if self.rolls_left == 0:
            raise IllegalMoveError("no rolls left: choose a box (s BOX@COLUMN)")
        if not is_sub_multiset(faces, t.rolls[-1]):
            raise IllegalMoveError(f"cannot keep {' '.join(map(str, faces))} from {self.dice}")
        if len(faces) == 5:
            raise IllegalMoveError("keeping all five means scoring now: choose a box (s BOX@COLUMN)")
        five = self.streams[t.player].next_five()
        t.keeps.append(faces)
        t.rolls.append(tuple(sorted(faces + tuple(five[: 5 - len(faces)]))))

    def score(self, column, box: str) -> None:
        t = self.turn
        card = self.cards[t.player]
        c = card.column_index(column)
        name = _box_name(self.rules, box)
        self.cards[t.player] = card.score(c + 1, name, self.dice)
        t.column, t.box = c + 1, name

    # --- saving and loading -----------------------------------------------------
    def to_json(self, status: str) -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.rules.id,
            "status": status,
            **{k: v for k, v in self.info.items() if k in ("mode", "dice", "seed", "date", "level")},
            "players": self.players,
            "turns": [t.to_json() for t in self.turns if t.box is not None],
            "scores": [card.total for card in self.cards],
        }

    @classmethod
    def from_json(cls, data: dict) -> TripleGame:
        """Replay a saved game: every roll checked against its stream, every move against the rules."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise GameRecordError("not a saved triple game")
        try:
            rules = get_rules(data["rules"])
            if not rules.triple:
                raise GameRecordError(f"rules {rules.id!r} are not a triple card")
            players = [{"name": str(p["name"]), "bot": p.get("bot")} for p in data["players"]]
            if not 1 <= len(players) <= 8:
                raise GameRecordError(f"{len(players)} players: a game has 1 to 8")
            info = {"mode": str(data.get("mode", "solo")), "dice": data["dice"]}
            if info["dice"] == "daily":
                info["date"] = str(data["date"])
            elif info["dice"] == "seeded" and isinstance(data["seed"], int):
                info["seed"] = data["seed"]
            else:
                raise GameRecordError(f"unknown dice source {info['dice']!r}")
            if "level" in data:
                info["level"] = str(data["level"])
            game = cls(rules, players, info)
            turns = data["turns"]
            if not isinstance(turns, list) or len(turns) > rules.n_turns * len(players):
                raise GameRecordError("too many turns")
            for i, entry in enumerate(turns):
                try:
                    _replay(game, entry)
                except (SolverError, KeyError, TypeError, ValueError) as exc:
                    raise GameRecordError(f"turn {i + 1}: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise GameRecordError(f"bad triple game: {exc!r}") from None
        return game


def _replay(game: TripleGame, entry: dict) -> None:
    if entry["player"] != game.current:
        raise GameRecordError(f"player {entry['player']} plays out of turn")
    rolls = [tuple(sorted(int(d) for d in r)) for r in entry["rolls"]]
    keeps = [tuple(sorted(int(d) for d in k)) for k in entry["keeps"]]
    if not 1 <= len(rolls) <= 3 or len(keeps) != len(rolls) - 1:
        raise GameRecordError("a turn has 1 to 3 rolls and one keep between two rolls")
    t = game.turn
    if t.rolls[0] != rolls[0]:
        raise GameRecordError(f"the first roll {rolls[0]} is not the stream's {t.rolls[0]}")
    for keep, roll in zip(keeps, rolls[1:], strict=True):
        game.keep(keep)
        if t.rolls[-1] != roll:
            raise GameRecordError(f"roll {roll} is not the stream's {t.rolls[-1]}")
    game.score(entry["column"], entry["box"])


def _box_name(rules: RuleSet, text: str) -> str:
    key = str(text).strip().lower().replace(" ", "_").replace("-", "_")
    names = rules.single.box_names
    if key in names:
        return key
    found = [n for n in names if n.startswith(key)] if key else []
    if len(found) == 1:
        return found[0]
    raise IllegalMoveError(f"unknown box {text!r} (boxes: {', '.join(names)})")


def parse_target(words: list[str]) -> tuple[int, str]:
    """``["fours@3"]`` or ``["fours", "3"]`` -> (column text, box text)."""
    text = " ".join(words).strip()
    if "@" in text:
        box, _, column = text.partition("@")
    else:
        parts = text.split()
        if len(parts) != 2:
            raise IllegalMoveError("say the box and the column, e.g. s fours@3 or s fours 3")
        box, column = parts
    return column.strip(), box.strip()


# --- computer players ---------------------------------------------------------
class TripleBot:
    """A triple player from a value array: the ``triple`` player (the exact table),
    ``heuristic``, ``greedy`` (all zeros) or ``random``."""

    def __init__(self, name: str, rules: RuleSet, tables_dir=None, rng: random.Random | None = None):
        self.name = name
        self.rng = rng or random.Random(0)
        self.advisor = None
        if name != "random":
            self.advisor = _value_advisor(name, rules, tables_dir)

    def keep(self, card: TripleCard, dice: Dice, rolls_left: int) -> tuple[int, ...]:
        if self.advisor is None:
            from .bots import distinct_keeps

            return self.rng.choice(distinct_keeps(dice))
        options = [o for o in self.advisor.advise(card, dice, rolls_left) if o.best]
        from ..core.dice import keep_index

        return max((o.keep for o in options), key=keep_index)

    def place(self, card: TripleCard, dice: Dice) -> tuple[int, str]:
        if self.advisor is None:
            c, p = self.rng.choice(card.placements(dice))
            return c + 1, p.box
        best = self.advisor.advise(card, dice, 0)
        top = [o for o in best if o.best]
        o = min(top, key=lambda o: (o.column, card.rules.single.box_index[o.category]))
        return o.column + 1, o.category


def _value_advisor(name: str, rules: RuleSet, tables_dir=None) -> TripleAdvisor:
    if name == "triple":
        return TripleAdvisor.load(rules, tables_dir)
    import numpy as np

    from ..engine.tables import Table
    from .bots import heuristic_values

    single = rules.single
    if name == "heuristic":
        values = heuristic_values(single)
    else:
        values = np.zeros((1 << single.n_boxes, single.upper_cap + 1, single.n_flags))
    return TripleAdvisor(Table(single, values, {"source": name}, Path(f"<{name} {single.id}>")), rules)


# --- the terminal session ---------------------------------------------------------
class TripleSession:
    def __init__(self, game: TripleGame, *, coach=False, tables_dir=None, data=None, inp=None, out=None):
        self.game, self.coach, self.tables_dir, self.data = game, coach, tables_dir, data
        self.inp, self.out = inp or sys.stdin, out or sys.stdout
        self._advisor = None
        self.bots: dict[int, TripleBot] = {}
        self.path = None

    @property
    def advisor(self) -> TripleAdvisor:
        if self._advisor is None:
            self._advisor = TripleAdvisor.load(self.game.rules, self.tables_dir)
        return self._advisor

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def read(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.out.write("\n")
            raise EOFError
        if not self.inp.isatty():
            self.out.write(line if line.endswith("\n") else line + "\n")
        return line.strip()

    def save(self, status: str) -> None:
        from ..core.fileio import atomic_write
        from .records import games_dir

        if self.path is None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            mode = self.game.info.get("mode", "game")
            self.path = (
                games_dir(self.data) / f"{stamp}-{mode}-{self.game.rules.id}-{secrets.token_hex(3)}.json"
            )
        text = json.dumps(self.game.to_json(status), indent=1) + "\n"
        atomic_write(self.path, lambda fh: fh.write(text.encode("utf-8")))

    def run(self) -> int:
        g = self.game
        names = ", ".join(p["name"] for p in g.players)
        self.say(f"{g.rules.title}: {g.info['mode']} game for {names} ({self.dice_words()})")
        self.say("card notation BOX@COLUMN; type help for the commands.")
        self.say(textwrap.fill("Advice: " + NOTE, 80, subsequent_indent="  "))
        try:
            while not g.is_over:
                if g.players[g.current]["bot"]:
                    self.bot_turn()
                else:
                    self.human_turn()
                self.save("in_progress")
        except _Quit:
            self.save("abandoned")
            self.say(f"game abandoned; saved to {self.path}")
            return 0
        except EOFError:
            self.save("abandoned")
            self.say(f"end of input: game saved as abandoned to {self.path}")
            return 1
        self.save("finished")
        self.say("")
        for p, card in zip(g.players, g.cards, strict=True):
            self.say(f"{p['name']}: {card.total}")
        if g.info.get("mode") != "solo" or len(g.players) > 1:
            best = max(card.total for card in g.cards)
            winners = [p["name"] for p, c in zip(g.players, g.cards, strict=True) if c.total == best]
            self.say(f"winner: {' and '.join(winners)} with {best}")
        self.say(f"game saved to {self.path}; review it with: yahtzee review {self.path}")
        return 0

    def dice_words(self) -> str:
        info = self.game.info
        return f"the day's dice {info['date']}" if info.get("dice") == "daily" else f"seed {info.get('seed')}"

    def header(self) -> None:
        g = self.game
        p = g.players[g.current]
        self.say("")
        self.say(f"--- {p['name']}: turn {g.round} of {g.n_rounds} (total {g.cards[g.current].total}) ---")

    def show(self) -> None:
        g = self.game
        left = g.rolls_left
        self.say(f"  dice  {' '.join(map(str, g.dice))}     {left} roll{'s' if left != 1 else ''} left")

    def show_card(self) -> None:
        g = self.game
        card = g.cards[g.current]
        preview = {(c, p.box): p.score for c, p in card.placements(g.dice)}
        self.say(card.format(preview))

    def human_turn(self) -> None:
        g = self.game
        me, rnd = g.current, g.round
        self.header()
        self.show_card()
        self.show()
        while not g.is_over and g.current == me and g.round == rnd:
            left = g.rolls_left
            line = self.read(f"{'choose a box' if left == 0 else f'{left} rolls left'}> ")
            try:
                self.command(line)
            except SolverError as exc:
                self.say(f"! {exc}")

    def command(self, line: str) -> None:
        g = self.game
        if not line:
            raise IllegalMoveError("empty input: type a command (help lists them)")
        word, *rest = line.split()
        word = word.lower()
        if word in ("k", "keep", "r", "roll"):
            faces = (
                () if word in ("r", "roll") or not rest else parse_faces(" ".join(rest), allow_any_count=True)
            )
            before = (g.cards[g.current], g.dice, g.rolls_left)
            g.keep(faces)
            self.coach_keep(before, faces)
            return self.show()
        if word in ("s", "score"):
            column, box = parse_target(rest)
            before = (g.cards[g.current], g.dice)
            g.score(column, box)
            t = g.turns[-1]
            self.say(f"  {t.box} in column {t.column}: {g.cards[t.player].columns[t.column - 1].get(t.box)}")
            self.coach_place(before, t.column, t.box)
            return None
        if word in ("hint", "?"):
            card = g.cards[g.current]
            options = self.advisor.advise(card, g.dice, g.rolls_left)
            return self.say(format_triple_advice(card, g.dice, g.rolls_left, options, 3))
        if word in ("card", "c"):
            self.show_card()
            return self.show()
        if word == "help":
            return self.say(HELP)
        if word in ("q", "quit", "exit"):
            raise _Quit
        raise IllegalMoveError(f"unknown command {word!r} (help lists them)")

    def coach_keep(self, before, faces) -> None:
        if not self.coach:
            return
        card, dice, left = before
        options = self.advisor.advise(card, dice, left)
        chosen = next(o for o in options if o.keep == tuple(sorted(faces)))
        self._coach_say(chosen, options[0])

    def coach_place(self, before, column: int, box: str) -> None:
        if not self.coach:
            return
        card, dice = before
        options = self.advisor.advise(card, dice, 0)
        chosen = next(o for o in options if o.column == column - 1 and o.category == box)
        self._coach_say(chosen, options[0])

    def _coach_say(self, chosen, best) -> None:
        if chosen.best:
            self.say("  coach: best-known choice")
        else:
            self.say(f"  coach: loses {chosen.regret:.2f} against {best.describe()}")

    def bot_turn(self) -> None:
        g = self.game
        me = g.current
        bot = self.bots.get(me)
        if bot is None:
            bot = self.bots[me] = TripleBot(g.players[me]["bot"], g.rules, self.tables_dir, random.Random(me))
        self.header()
        self.show()
        while g.rolls_left:
            keep = bot.keep(g.cards[me], g.dice, g.rolls_left)
            if len(keep) == 5:
                break
            self.say(f"  keeps {' '.join(map(str, keep)) or 'nothing'}")
            g.keep(keep)
            self.show()
        column, box = bot.place(g.cards[me], g.dice)
        g.score(column, box)
        self.say(f"  scores {g.cards[me].columns[column - 1].get(box)} in {box} of column {column}")


class _Quit(Exception):
    pass


def run_triple_play(args, rules: RuleSet) -> int:
    """``play --rules ...+triple`` (the options of ``yahtzee play``)."""
    from .daily import parse_date

    if args.real_dice:
        raise UsageError("--real-dice is not available on the triple card")
    if args.daily is not None and args.seed is not None:
        raise UsageError("--daily has its own dice; it cannot go with --seed")
    names = [n.strip() for n in (args.players or "You").split(",") if n.strip()]
    if not names:
        raise UsageError(f"--players needs at least one name, got {args.players!r}")
    level = getattr(args, "level", None)
    vs_computer = args.vs_computer or level is not None  # --level implies --vs-computer
    if args.solo and (vs_computer or len(names) > 1):
        raise UsageError("--solo is one player alone; drop --vs-computer / --level / extra --players")
    players = [{"name": n, "bot": None} for n in names]
    info: dict = {}
    if vs_computer:
        level = level or "medium"
        players.append({"name": f"Computer ({level})", "bot": LEVELS[level]})
        info["level"] = level
    if args.daily is not None:
        info.update(mode="daily", dice="daily", date=parse_date(args.daily))
    else:
        seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
        mode = "vs-computer" if vs_computer else ("hot-seat" if len(names) > 1 else "solo")
        info.update(mode=mode, dice="seeded", seed=seed)
    game = TripleGame(rules, players, info)
    return TripleSession(game, coach=args.coach, tables_dir=args.tables, data=args.data).run()


# --- review -------------------------------------------------------------------------
def is_triple_game_file(path) -> bool:
    from .records import read_game_file

    try:
        data = read_game_file(path)
    except SolverError:
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def review_triple(game: TripleGame, advisor: TripleAdvisor, player: int | None = None) -> list[dict]:
    """Every decision of the game (of ``player``, or everyone's) beside the best-known option."""
    rules = game.rules
    cards = [TripleCard.empty(rules) for _ in game.players]
    out = []
    for n, t in enumerate(game.turns):
        if t.box is None:
            continue
        card = cards[t.player]
        for i, keep in enumerate(t.keeps):
            if player is None or t.player == player:
                options = advisor.advise(card, t.rolls[i], 2 - i)
                chosen = next(o for o in options if o.keep == keep)
                out.append(_decision(n, t, card, t.rolls[i], 2 - i, chosen, options[0]))
        if len(t.rolls) < 3 and (player is None or t.player == player):  # stopped early: kept all five
            options = advisor.advise(card, t.rolls[-1], 3 - len(t.rolls))
            chosen = next(o for o in options if o.keep == t.rolls[-1])
            out.append(_decision(n, t, card, t.rolls[-1], 3 - len(t.rolls), chosen, options[0]))
        if player is None or t.player == player:
            options = advisor.advise(card, t.rolls[-1], 0)
            chosen = next(o for o in options if o.column == t.column - 1 and o.category == t.box)
            out.append(_decision(n, t, card, t.rolls[-1], 0, chosen, options[0]))
        cards[t.player] = card.score(t.column, t.box, Dice(t.rolls[-1]))
    return out


def _decision(n, t, card, dice, rolls_left, chosen, best) -> dict:
    return {
        "turn": n + 1,
        "player": t.player,
        "card": str(card),
        "dice": "".join(map(str, dice)),
        "rolls_left": rolls_left,
        "chosen": chosen.describe(),
        "best": best.describe(),
        "loss": round(chosen.regret, 9),
    }


def run_triple_review(args) -> int:
    from .records import read_game_file

    game = TripleGame.from_json(read_game_file(args.game))
    chosen = None
    if args.player is not None:
        names = [p["name"] for p in game.players]
        if args.player not in names:
            raise UsageError(f"no player {args.player!r} in {args.game} (players: {', '.join(names)})")
        chosen = names.index(args.player)
    advisor = TripleAdvisor.load(game.rules, args.tables)
    decisions = review_triple(game, advisor, chosen)
    if args.json:
        print(json.dumps({"game": str(args.game), "rules": game.rules.id, "finished": game.is_over,
                          "note": NOTE, "decisions": decisions,
                          "scores": [c.total for c in game.cards]}))  # fmt: skip
        return 0
    lines = [
        f"{args.game}: {game.rules.id}, {game.info.get('mode')} ({'finished' if game.is_over else 'unfinished'})"
    ]
    lines.append(f"compared with the triple player -- {NOTE}")
    for i, p in enumerate(game.players):
        if chosen is not None and i != chosen:
            continue
        mine = [d for d in decisions if d["player"] == i]
        lost = sum(d["loss"] for d in mine)
        lines.append("")
        lines.append(f"{p['name']}: {game.cards[i].total} points, {len(mine)} decisions, loss {lost:.2f}")
        for d in mine:
            if args.mistakes and d["loss"] <= 1e-9:
                continue
            mark = "  " if d["loss"] <= 1e-9 else "! "
            lines.append(
                f"  {mark}turn {d['turn']:>3} dice {d['dice']} ({d['rolls_left']} left): {d['chosen']}"
                + (f"  -- loses {d['loss']:.2f}, best: {d['best']}" if d["loss"] > 1e-9 else "")
            )
    print("\n".join(lines))
    return 0
