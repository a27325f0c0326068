"""Positions with the value of every option, for training bots (``yahtzee export``).

Each position is written with what ``hint --json`` says of it (``rules``, ``card``, ``dice``,
``rolls_left``, ``decision`` and ``options``, best first; see
:meth:`solver.advice.advisor.Advice.to_json`) as JSON lines or as Parquet (the ``export`` extra:
pyarrow).  The positions come from one of two samplers, as blocks of arrays
(:class:`PositionBlock`):

* :func:`bot_blocks` -- every decision of games ``0 .. N - 1`` of a bot under a dice seed (the
  games of ``yahtzee simulate --bot B --seed S``); each position also has ``game``, ``turn``
  (1-based), ``roll`` (the roll the decision follows) and ``chosen`` (the index in ``options``
  of the bot's move).  The table bots (``optimal``, ``heuristic``, ``greedy``) play
  :data:`BOT_BATCH` games at once on the batch advisor's arrays
  (:class:`solver.advice.batch.BatchAdvisor`, ranked by the bot's own values), their decisions
  written turn by turn (sort by game, turn, roll for game order); any other bot plays one game
  after another through the game model (:class:`~solver.play.game.Game`,
  :meth:`~solver.play.game.Game.decisions`), in game order.
* :func:`spread_blocks` -- positions spread over the reachable cards, drawn from
  ``numpy.random.default_rng([seed, SPREAD_DOMAIN])``: the number of filled boxes uniform from
  0 to ``n_boxes - 1``; which boxes, uniform among the sets of that size the fill order allows;
  each filled box a score some roll gives it there, uniform over its distinct scores (so
  ``yahtzee`` is 0 or 50, each half the time); no Yahtzee bonuses; the rule set's five or six
  dice uniform (each sorted roll with its probability); rolls left uniform over 0, 1, 2.  For speed
  :data:`SPREAD_CARDS` cards share their filled boxes and each card gives
  :data:`SPREAD_PER_CARD` positions (the same card state is ranked once for them).

Six dice (Maxi Yatzy) are ranked a position at a time (:class:`PositionAdvisor`: the single
hint's advisor), every bot's games played through the game model.

Both are written :data:`CHUNK` positions at a time (a Parquet row group each), atomically: a
reader sees the old file or the whole new one, and the hidden temporary file a killed export
left beside it is removed by the next export of that file.  In Parquet the values are float64 at full
precision (the JSON rounds them to 9 decimals as ``hint --json`` does), a field that JSON
leaves out is null (``keep`` of a box, ``bonus`` of 0, ...), and the text columns are
dictionary-encoded.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..advice.batch import BatchAdvisor, card_states
from ..core import dice as D
from ..core.card import ScoreCard
from ..core.errors import MissingExtraError, UsageError
from ..core.position import Position
from ..core.rules import RuleSet
from ..core.streams import SeededStream, seeded_dice
from ..engine.turn import TIE_TOLERANCE
from .bots import TableBot
from .game import Game, Player, play_bot_turn

#: the most positions one export writes (``--positions``)
MAX_POSITIONS = 50_000_000
#: the most games of a bot one export plays (``--games``): about 35 decisions each
MAX_GAMES = 2_000_000
#: positions per pass (and per Parquet row group)
CHUNK = 1 << 16
#: the spread sampler draws cards in groups of this many sharing their filled boxes ...
SPREAD_CARDS = 32
#: ... and gives each card this many positions (dice and rolls left of their own): positions of
#: the same card state are ranked together, one table computation for them all
SPREAD_PER_CARD = 4
#: games a table bot plays side by side (their decisions are written turn by turn)
BOT_BATCH = 1 << 14
#: the spread sampler's domain: its generator is ``default_rng([seed, SPREAD_DOMAIN])``
SPREAD_DOMAIN = 0x535052454144  # "SPREAD"
FORMATS = ("parquet", "jsonl")
EXPORT_HINT = (
    'Parquet needs the export extra: pip install -e ".[export]" (in a checkout) or pip install '
    '"yahtzee-solver[export]" (or write JSON lines: --format jsonl)'
)

_OPTION = "options.list.element."
#: how the Parquet file is written: snappy, but not the values (float64 that it does not shrink),
#: dictionaries for the text columns only, no statistics (nobody filters on them)
PARQUET_OPTIONS = {
    "compression": {
        name: "none" if name.split(".")[-1] in ("ev", "expected_final", "regret") else "snappy"
        for name in (
            "rules", "card", "dice", "rolls_left", "decision", "game", "turn", "roll", "chosen",
            *(_OPTION + f for f in ("keep.list.element", "stop_and_score.category", "stop_and_score.score",
                                   "category", "score", "bonus", "ev", "expected_final", "regret", "best")),
        )
    },
    "use_dictionary": ["rules", "card", "dice", "decision", _OPTION + "category", _OPTION + "stop_and_score.category"],
    "write_statistics": False,
}  # fmt: skip
_KEEP_SIZE = np.array([len(k) for k in D.KEEPS], dtype=np.int64)
_KEEP_FACES = np.array([f for k in D.KEEPS for f in k], dtype=np.int8)
_KEEP_START = np.concatenate([[0], np.cumsum(_KEEP_SIZE)[:-1]])
_DICE_TEXT = ["".join(map(str, roll)) for roll in D.ROLLS]


def _count_code(counts: np.ndarray, n_dice: int = D.N_DICE) -> np.ndarray:
    """(n,) a code of face counts (n, 6): base ``n_dice + 1`` (a count is at most ``n_dice``)."""
    return counts @ ((n_dice + 1) ** np.arange(D.N_FACES, dtype=np.int64))


def _roll_of_code(n_dice: int) -> np.ndarray:
    """The roll index of each code of face counts (-1: no roll of ``n_dice`` dice)."""
    dice = D.layer(n_dice)
    out = np.full((n_dice + 1) ** D.N_FACES, -1, dtype=np.int64)
    counts = np.array(dice.keep_face_counts[dice.roll_offset :], dtype=np.int64)
    out[_count_code(counts, n_dice)] = np.arange(dice.n_rolls)
    return out


_ROLL_OF_CODE = {D.N_DICE: _roll_of_code(D.N_DICE)}
_KEEP_COUNTS = np.array(D.KEEP_FACE_COUNTS, dtype=np.int64)


def roll_index(faces: np.ndarray) -> np.ndarray:
    """(n,) the roll index (``Dice.index``) of dice (n, 5) or (n, 6) in any order."""
    n_dice = faces.shape[1]
    if n_dice not in _ROLL_OF_CODE:
        _ROLL_OF_CODE[n_dice] = _roll_of_code(n_dice)
    counts = (faces[:, :, None] == np.arange(1, D.N_FACES + 1)).sum(axis=1)
    return _ROLL_OF_CODE[n_dice][_count_code(counts, n_dice)]


@dataclass
class PositionBlock:
    """Positions as arrays: ``scores`` (n, n_boxes) int64 each box's score (-1 open),
    ``bonus_count`` (n,) Yahtzee bonuses earned, ``roll`` (n,) the dice's roll index,
    ``rolls_left`` (n,); from a bot's games also (n,) each: ``game``, ``turn`` (1-based),
    ``roll_number`` (the roll the decision follows, 1..3) and ``chosen`` (the bot's move: a keep
    index of :data:`solver.core.dice.KEEPS` with rolls left, else a box index)."""

    scores: np.ndarray
    bonus_count: np.ndarray
    roll: np.ndarray
    rolls_left: np.ndarray
    game: np.ndarray | None = None
    turn: np.ndarray | None = None
    roll_number: np.ndarray | None = None
    chosen: np.ndarray | None = None
    #: ``(advisor, ranked)``: the block's options ranked already by that advisor (a table bot's
    #: moves, when its table is the export's), or None
    ranked: tuple | None = None

    def __len__(self) -> int:
        return len(self.roll)

    def slice(self, start: int, stop: int) -> PositionBlock:
        """Positions ``start .. stop - 1``."""
        if start <= 0 and stop >= len(self):
            return self
        cut = {k: (None if v is None else v[start:stop]) for k, v in self.__dict__.items() if k != "ranked"}
        return PositionBlock(**cut)

    def head(self, n: int) -> PositionBlock:
        """The first ``n`` positions."""
        return self.slice(0, n)

    def positions(self, rules: RuleSet) -> list[Position]:
        """The positions as :class:`Position` objects (what the advisor is asked about)."""
        out, dice_of = [], D.dice_class(rules.n_dice)
        for row, bonus, roll, left in zip(
            self.scores.tolist(),
            self.bonus_count.tolist(),
            self.roll.tolist(),
            self.rolls_left.tolist(),
            strict=True,
        ):
            card = ScoreCard(rules, tuple(None if s < 0 else s for s in row), bonus)
            out.append(Position(card, dice_of.from_index(roll), left))
        return out


# --- the samplers ----------------------------------------------------------------------
def spread_blocks(rules: RuleSet, positions: int, seed: int, chunk: int = CHUNK) -> Iterator[PositionBlock]:
    """``positions`` positions spread over the reachable cards (see the module docstring),
    ``chunk`` at a time (the same positions for the same seed and ``chunk``)."""
    rng = np.random.default_rng([int(seed), SPREAD_DOMAIN])
    nb = rules.n_boxes
    values = [np.array(sorted(set(by_roll)), dtype=np.int64) for by_roll in rules.scores_by_box]
    group = SPREAD_CARDS * SPREAD_PER_CARD
    for start in range(0, positions, chunk):
        n = min(chunk, positions - start)
        n_masks = -(-n // group)
        n_filled = rng.integers(0, nb, size=n_masks)
        if rules.order == "free":
            rank = np.argsort(rng.random((n_masks, nb)), axis=1)  # a uniform order of the boxes
            filled = np.empty((n_masks, nb), dtype=bool)
            np.put_along_axis(filled, rank, np.arange(nb)[None, :] < n_filled[:, None], axis=1)
        else:  # a fill order: the first (down) or last (up) boxes; choose: either, half the time
            down = np.arange(nb)[None, :] < n_filled[:, None]
            up = np.arange(nb)[None, :] >= nb - n_filled[:, None]
            if rules.order == "down":
                filled = down
            elif rules.order == "up":
                filled = up
            else:
                filled = np.where(rng.random(n_masks)[:, None] < 0.5, down, up)
        filled = np.repeat(filled, SPREAD_CARDS, axis=0)
        scores = np.full(filled.shape, -1, dtype=np.int64)
        for b in range(nb):
            pick = values[b][rng.integers(0, len(values[b]), size=len(filled))]
            scores[:, b] = np.where(filled[:, b], pick, -1)
        scores = np.repeat(scores, SPREAD_PER_CARD, axis=0)[:n]
        roll = roll_index(rng.integers(1, D.N_FACES + 1, size=(n, rules.n_dice)))
        rolls_left = rng.integers(0, 3, size=n)
        yield PositionBlock(scores, np.zeros(n, dtype=np.int64), roll, rolls_left)


def bot_blocks(
    rules: RuleSet,
    bot,
    games: int,
    seed: int,
    *,
    chunk: int = CHUNK,
    engine: str = "auto",
    progress: Callable[[int], None] | None = None,
    chooser: BatchAdvisor | None = None,
    ranker: BatchAdvisor | None = None,
) -> Iterator[PositionBlock]:
    """Every decision of games ``0 .. games - 1`` of ``bot`` under ``seed``, in blocks of at most
    ``chunk`` positions (see the module docstring for the order).  ``engine``: ``"auto"`` (the
    table bots on arrays) or ``"python"`` (one game after another through :class:`Game`).
    ``progress(n)``: ``n`` more games played.  ``chooser``: the batch advisor of the table
    bot's own values, when there is one (the blocks then carry its rankings); ``ranker``: the
    advisor whose rankings the table bots' blocks carry (the export's), when not the bot's."""
    if engine not in ("auto", "python"):
        raise UsageError(f"engine must be auto or python, got {engine!r}")
    arrays = (
        engine != "python"
        and type(bot) is TableBot
        and bot.rules == rules
        and rules.order != "choose"
        and rules.n_dice == D.N_DICE  # six dice: through the game model
    )
    if arrays:
        for g0 in range(0, games, BOT_BATCH):
            n = min(BOT_BATCH, games - g0)
            for block in _table_bot_games(rules, bot, g0, n, seed, chooser, ranker):
                for start in range(0, len(block), chunk):
                    yield block.slice(start, start + chunk)
            if progress is not None:
                progress(n)
        return
    per_block = max(1, chunk // (3 * rules.n_turns))
    for g0 in range(0, games, per_block):
        n = min(per_block, games - g0)
        yield _python_games(rules, bot, g0, n, seed)
        if progress is not None:
            progress(n)


def _python_games(rules: RuleSet, bot, g0: int, n: int, seed: int) -> PositionBlock:
    """Games ``g0 .. g0 + n - 1`` played through the game model; their decisions as arrays."""
    from .simulate import game_rng

    rows: list[tuple] = []
    names = rules.box_index
    for g in range(g0, g0 + n):
        game = Game(rules, [Player("bot", "bot")], [SeededStream(seed, g)], {"dice": "seeded", "seed": seed})
        rng = game_rng(seed, g)
        while not game.is_over:
            play_bot_turn(game, bot, rng)
        for d in game.decisions():
            scores = tuple(-1 if s is None else s for s in d.card.scores)
            chosen = D.keep_index(d.keep, rules.n_dice) if d.keep is not None else names[d.box]
            rows.append(
                (scores, d.card.yahtzee_bonus_count, d.dice.index, d.rolls_left, g, d.turn, d.roll, chosen)
            )
    scores, *rest = zip(*rows, strict=True)
    return PositionBlock(np.array(scores, dtype=np.int64), *(np.array(x, dtype=np.int64) for x in rest))


def _table_bot_games(
    rules: RuleSet,
    bot: TableBot,
    g0: int,
    n: int,
    seed: int,
    chooser: BatchAdvisor | None = None,
    ranker: BatchAdvisor | None = None,
) -> Iterator[PositionBlock]:
    """Games ``g0 .. g0 + n - 1`` of a table bot side by side, one block per decision step (turn
    by turn: the keeps after the first roll, after the second, then the boxes).  Each step takes
    the bot's choice on the batch advisor ``chooser`` (the bot's values; ties: the keep with the
    most dice, :meth:`BatchAdvisor.best_keeps`, the box first in card order, as
    :class:`TableBot`) and ranks the options of every game on ``ranker`` (by default the
    chooser), whose rankings the blocks carry; the dice come from the seeded streams as
    :class:`SeededStream` gives them.  A turn's tables are made once for its two keep steps
    (:meth:`BatchAdvisor.keep_tables`)."""
    if chooser is None:
        chooser = BatchAdvisor(bot.advisor.table)
        chooser.python_states = 0  # the kernels from the first turn on: they run anyway
    ranker = chooser if ranker is None else ranker
    advisors = [chooser] if ranker is chooser else [chooser, ranker]
    nb = rules.n_boxes
    games = np.arange(g0, g0 + n, dtype=np.int64)
    scores = np.full((n, nb), -1, dtype=np.int64)
    bonus = np.zeros(n, dtype=np.int64)
    drawn = np.zeros(n, dtype=np.int64)
    every = np.arange(n)
    for turn in range(1, rules.n_turns + 1):
        mask, u, f, base = card_states(rules, scores, bonus)
        tables = [advisor.keep_tables(mask, u, f) for advisor in advisors]
        roll = roll_index(seeded_dice(seed, games, drawn))
        drawn += D.N_DICE
        rolled = np.ones(n, dtype=np.int64)  # the roll each game's next decision follows
        r = every
        for rolls_left in (2, 1):
            left = np.full(len(r), rolls_left)
            ranked = ranker.rank_states(
                mask[r], u[r], f[r], roll[r], left, base[r], tables=tables[-1].rows(r)
            )
            keep = chooser.best_keeps(roll[r], left, tables[0].rows(r))
            yield PositionBlock(
                scores[r],
                bonus[r],
                roll[r],
                left,
                games[r],
                np.full(len(r), turn),
                np.full(len(r), 3 - rolls_left),
                keep,
                (ranker, ranked),
            )
            go = _KEEP_SIZE[keep] < D.N_DICE
            r, keep = r[go], keep[go]
            fresh = seeded_dice(seed, games[r], drawn[r])
            drawn[r] += D.N_DICE
            # the kept faces and the first 5 - len(keep) of the five values drawn
            new = (np.arange(D.N_DICE)[None, :] < (D.N_DICE - _KEEP_SIZE[keep])[:, None]) * fresh
            counts = _KEEP_COUNTS[keep] + (new[:, :, None] == np.arange(1, D.N_FACES + 1)).sum(axis=1)
            roll[r] = _ROLL_OF_CODE[D.N_DICE][_count_code(counts)]
            rolled[r] += 1
        del tables
        left = np.zeros(n, dtype=np.int64)
        ranks = [advisor.rank_states(mask, u, f, roll, left, base) for advisor in advisors]
        ranked = ranks[0]  # the chooser's
        ev, boxes = ranked.place_ev, ranked.place_box.astype(np.int64)
        valid = np.arange(boxes.shape[1])[None, :] < ranked.place_n[:, None]
        best = valid & (ev[:, :1] - ev <= TIE_TOLERANCE)
        column = np.where(best, boxes, nb).argmin(axis=1)  # the best box first in card order
        box = boxes[every, column]
        yield PositionBlock(
            scores.copy(),
            bonus.copy(),
            roll.copy(),
            left,
            games,
            np.full(n, turn),
            rolled.copy(),
            box,
            (ranker, ranks[-1]),
        )
        scores[every, box] = ranked.place_score[every, column]
        bonus += ranked.place_bonus > 0


# --- ranking and writing -----------------------------------------------------------------
@dataclass
class Options:
    """The options of a block of positions, flat (best first within each position):
    ``offsets`` (n + 1,) each position's first option; per option ``keep`` (keep index, -1 for a
    box), ``box`` (box index, -1 for a keep), ``score``, ``bonus`` (0 for keeps), ``ev``,
    ``expected_final``, ``regret``, ``best``, and for the keep-all option ``stop_box``/``stop_score``
    (-1 elsewhere); per position ``chosen`` (the index of the bot's move in its options) or None;
    ``face_offsets`` (options + 1,) int32 and ``faces`` int8: each option's kept faces (a box: none)."""

    offsets: np.ndarray
    keep: np.ndarray
    box: np.ndarray
    score: np.ndarray
    bonus: np.ndarray
    ev: np.ndarray
    expected_final: np.ndarray
    regret: np.ndarray
    best: np.ndarray
    stop_box: np.ndarray
    stop_score: np.ndarray
    chosen: np.ndarray | None
    face_offsets: np.ndarray
    faces: np.ndarray


def rank_block(advisor: BatchAdvisor, block: PositionBlock) -> Options:
    """Every option of every position of ``block``, valued by ``advisor`` (the table), as
    :meth:`BatchAdvisor.rank` ranks them -- the options of ``hint --json``."""
    rules = advisor.rules
    n = len(block)
    mask, u, f, base = card_states(rules, block.scores, block.bonus_count)
    if block.ranked is not None and block.ranked[0] is advisor:  # ranked as the bot played
        ranked = block.ranked[1]
    else:
        ranked = advisor.rank_states(mask, u, f, block.roll, block.rolls_left, base)
    from ..engine import arrays as A
    from ..engine.options import flat_options

    k = np.flatnonzero(block.rolls_left > 0)
    p = np.flatnonzero(block.rolls_left == 0)
    count = np.empty(n, dtype=np.int64)
    # the arrays of the kind a block has none of: empty
    none, no_rows = np.empty(0, dtype=np.int64), (np.empty((0, 1)), np.empty((0, 1), dtype=np.int16))
    keep_rows, stops = (*no_rows, none), (none, none)
    place_rows = (*no_rows, np.empty((0, 1), dtype=np.int64), none, none)
    if len(k):
        count[k] = ranked.keep_n
        keep_rows = (ranked.keep_ev, ranked.keep_id, ranked.keep_n)
        stops = (np.full(len(k), -1, dtype=np.int64),) * 2
        if not rules.all_rolls:  # keeping all five names the box that stopping implies: the best now
            stops = advisor.best_placements(mask[k], u[k], f[k], block.roll[k])
    if len(p):
        count[p] = ranked.place_n
        place_rows = (
            ranked.place_ev,
            ranked.place_box,
            ranked.place_score,
            ranked.place_n,
            ranked.place_bonus,
        )
    offsets = np.concatenate([[0], np.cumsum(count)])
    out = flat_options(
        block.rolls_left, ranked.row, ranked.base, A.KeepOptions(*keep_rows, *stops), A.BoxOptions(*place_rows),
        A.KeepFaces(_KEEP_SIZE, _KEEP_START, _KEEP_FACES), TIE_TOLERANCE, offsets,
    )  # fmt: skip
    return Options(
        offsets=offsets,
        keep=out.keep,
        box=out.box,
        score=out.score,
        bonus=out.bonus,
        ev=out.ev,
        expected_final=out.expected_final,
        regret=out.regret,
        best=out.best,
        stop_box=out.stop_box,
        stop_score=out.stop_score,
        chosen=None if block.chosen is None else chosen_options(ranked, block),
        face_offsets=out.face_offsets,
        faces=out.faces[: out.face_offsets[-1]],
    )


def chosen_options(ranked, block: PositionBlock) -> np.ndarray:
    """(n,) the index of each bot's move (``block.chosen``) among its position's ranked options."""
    out = np.empty(len(block), dtype=np.int64)
    for rows, labels in ((block.rolls_left > 0, ranked.keep_id), (block.rolls_left == 0, ranked.place_box)):
        rows = np.flatnonzero(rows)
        if len(rows):
            out[rows] = np.argmax(labels == block.chosen[rows, None], axis=1)
    return out


def card_texts(rules: RuleSet, block: PositionBlock):
    """The positions' cards in the card notation (``str(ScoreCard)``: ``ones=3,fours=12``): a
    pyarrow string array of the texts of each run of positions sharing a card, and (n,) each
    position's run.  Joined in pyarrow (a list of the filled boxes' entries per card)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    scores, bonus = block.scores, block.bonus_count
    new = np.ones(len(block), dtype=bool)
    new[1:] = (scores[1:] != scores[:-1]).any(axis=1) | (bonus[1:] != bonus[:-1])
    first = np.flatnonzero(new)
    # every entry a card can show, box by box ("name=score"), then the Yahtzee bonuses
    tops = [max(v) + 1 for v in rules.possible_scores]
    start = np.concatenate([[0], np.cumsum(tops)])
    extra = bonus[first]
    n_bonus = int(extra.max(initial=0))
    entries = [f"{name}={s}" for name, top in zip(rules.box_names, tops, strict=True) for s in range(top)]
    entries += [f"yahtzee_bonus={k * rules.bonus}" for k in range(1, n_bonus + 1)]
    rows = scores[first]
    shown = np.concatenate([rows >= 0, (extra > 0)[:, None]], axis=1)  # in card order, the bonus last
    codes = np.concatenate([start[:-1][None, :] + rows, (start[-1] + extra - 1)[:, None]], axis=1)
    offsets = np.concatenate([[0], np.cumsum(shown.sum(axis=1))]).astype(np.int32)
    parts = pc.take(pa.array(entries, pa.string()), pa.array(codes[shown]))
    texts = pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), parts), ",")
    return texts, np.cumsum(new) - 1


def check_parquet() -> None:
    """pyarrow is there (the ``export`` extra), else one line saying how to get it."""
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise MissingExtraError(EXPORT_HINT) from None


def parquet_schema(rules: RuleSet, from_games: bool):
    """The Parquet file's columns: the positions' fields and ``options``, a list of structs."""
    import pyarrow as pa

    text = pa.dictionary(pa.int16(), pa.string())
    option = pa.struct(
        [
            ("keep", pa.list_(pa.int8())),
            ("stop_and_score", pa.struct([("category", text), ("score", pa.int16())])),
            ("category", text),
            ("score", pa.int16()),
            ("bonus", pa.int16()),
            ("ev", pa.float64()),
            ("expected_final", pa.float64()),
            ("regret", pa.float64()),
            ("best", pa.bool_()),
        ]
    )
    fields = [
        ("rules", text),
        ("card", pa.dictionary(pa.int32(), pa.string())),
        ("dice", text),
        ("rolls_left", pa.int8()),
        ("decision", text),
        ("options", pa.list_(option)),
    ]
    if from_games:
        fields += [("game", pa.int64()), ("turn", pa.int16()), ("roll", pa.int8()), ("chosen", pa.int16())]
    return pa.schema(fields, metadata={"rules": rules.id, "format": "yahtzee-solver export 1"})


def parquet_table(rules: RuleSet, block: PositionBlock, options: Options, schema):
    """One block as a pyarrow table of ``schema``."""
    import pyarrow as pa

    names = pa.array(rules.box_names)
    n = len(block)
    texts, runs = card_texts(rules, block)
    is_keep = options.keep >= 0
    keeps = pa.ListArray.from_arrays(  # a box: null
        pa.array(options.face_offsets), pa.array(options.faces, pa.int8()), mask=pa.array(~is_keep)
    )
    has_stop = options.stop_box >= 0
    stop = pa.StructArray.from_arrays(
        [
            pa.DictionaryArray.from_arrays(pa.array(np.maximum(options.stop_box, 0), pa.int16()), names),
            pa.array(options.stop_score, pa.int16()),
        ],
        names=["category", "score"],
        mask=pa.array(~has_stop),
    )
    category = pa.DictionaryArray.from_arrays(pa.array(options.box, pa.int16(), mask=is_keep), names)
    struct = pa.StructArray.from_arrays(
        [
            keeps,
            stop,
            category,
            pa.array(options.score, pa.int16(), mask=is_keep),
            pa.array(options.bonus, pa.int16(), mask=options.bonus == 0),
            pa.array(options.ev),
            pa.array(options.expected_final),
            pa.array(options.regret),
            pa.array(options.best),
        ],
        fields=list(schema.field("options").type.value_type),
    )
    columns = [
        pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int16)), pa.array([rules.id])),
        pa.DictionaryArray.from_arrays(pa.array(runs.astype(np.int32)), texts),
        pa.DictionaryArray.from_arrays(pa.array(block.roll.astype(np.int16)), pa.array(_DICE_TEXT)),
        pa.array(block.rolls_left.astype(np.int8)),
        pa.DictionaryArray.from_arrays(
            pa.array((block.rolls_left == 0).astype(np.int16)), pa.array(["keep", "score"])
        ),
        pa.ListArray.from_arrays(pa.array(options.offsets.astype(np.int32)), struct),
    ]
    if block.game is not None:
        columns += [
            pa.array(block.game),
            pa.array(block.turn.astype(np.int16)),
            pa.array(block.roll_number.astype(np.int8)),
            pa.array(options.chosen.astype(np.int16)),
        ]
    return pa.Table.from_arrays(columns, schema=schema)


class PositionAdvisor:
    """The export's advisor of six dice (Maxi Yatzy), whose positions the batch advisor's
    five-dice arrays do not hold: each position ranked as the single ``hint`` ranks it (an
    :class:`~solver.advice.advisor.Advisor` over the table read in place), one at a time."""

    def __init__(self, advisor) -> None:
        self.advisor = advisor
        self.rules: RuleSet = advisor.rules

    def advice(self, block: PositionBlock) -> list:
        """(n,) each position's :class:`~solver.advice.advisor.Advice`."""
        from ..advice.advisor import checked_advice

        return [checked_advice(self.advisor, p) for p in block.positions(self.rules)]

    def chosen(self, advice: list, block: PositionBlock) -> np.ndarray:
        """(n,) the index of each bot's move (``block.chosen``) among its position's options."""
        keeps, names = D.layer(self.rules.n_dice).keeps, self.rules.box_names
        moves = zip(advice, block.rolls_left.tolist(), block.chosen.tolist(), strict=True)
        out = np.empty(len(block), dtype=np.int64)
        for i, (a, left, move) in enumerate(moves):
            label = [o.keep for o in a.options] if left > 0 else [o.category for o in a.options]
            out[i] = label.index(keeps[move] if left > 0 else names[move])
        return out

    def parquet_table(self, block: PositionBlock, schema):
        """One block as a pyarrow table of ``schema`` (the five-dice columns, from the options)."""
        import pyarrow as pa

        advice = self.advice(block)
        rows = []
        for a in advice:
            options = [
                {
                    "keep": None if o.keep is None else list(o.keep),
                    "stop_and_score": None
                    if o.stop_category is None
                    else {"category": o.stop_category, "score": o.stop_score},
                    "category": o.category,
                    "score": o.score if o.keep is None else None,
                    "bonus": o.bonus or None,
                    "ev": o.ev,
                    "expected_final": o.expected_final,
                    "regret": o.regret,
                    "best": o.best,
                }
                for o in a.options
            ]
            p = a.position
            decision = "keep" if p.rolls_left > 0 else "score"
            rows.append(
                {
                    "rules": self.rules.id,
                    "card": str(p.card),
                    "dice": str(p.dice),
                    "rolls_left": p.rolls_left,
                    "decision": decision,
                    "options": options,
                }
            )
        if block.game is not None:
            moves = self.chosen(advice, block).tolist()
            games = zip(
                block.game.tolist(), block.turn.tolist(), block.roll_number.tolist(), moves, strict=True
            )
            for row, (g, t, r, c) in zip(rows, games, strict=True):
                row |= {"game": g, "turn": t, "roll": r, "chosen": c}
        return pa.Table.from_pylist(rows, schema=schema)


def json_lines(advisor: BatchAdvisor | PositionAdvisor, block: PositionBlock) -> list[str]:
    """The block's lines of JSON: each exactly ``hint --json``'s object (``Advice.to_json``), with
    ``game``, ``turn`` and ``chosen`` added for a bot's decisions."""
    if isinstance(advisor, PositionAdvisor):
        import json

        advice = advisor.advice(block)
        lines = [json.dumps(a.to_json(), allow_nan=False) for a in advice]
        chosen = None if block.game is None else advisor.chosen(advice, block)
    else:
        ranked = advisor.rank(block.positions(advisor.rules))
        lines = [ranked.json_line(i) for i in range(len(block))]
        chosen = None if block.game is None else chosen_options(ranked, block)
    if block.game is None:
        return lines
    extra = zip(
        block.game.tolist(),
        block.turn.tolist(),
        block.roll_number.tolist(),
        chosen.tolist(),
        strict=True,
    )
    return [
        f'{line[:-1]}, "game": {g}, "turn": {t}, "roll": {r}, "chosen": {c}}}'
        for line, (g, t, r, c) in zip(lines, extra, strict=True)
    ]


def write_export(
    path,
    fmt: str,
    advisor: BatchAdvisor | PositionAdvisor,
    blocks: Iterator[PositionBlock],
    limit: int,
    *,
    from_games: bool,
    tick: Callable[[int], None] | None = None,
) -> int:
    """Write at most ``limit`` positions of ``blocks`` to ``path`` (``-``: stdout, JSON lines
    only) in format ``fmt`` (``parquet``, ``jsonl``); atomically.  Returns the positions written."""
    import sys

    from ..core.fileio import atomic_write, remove_stale_temporaries_of

    if fmt not in FORMATS:
        raise UsageError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    if str(path) != "-":  # what a killed export of this file left beside it
        remove_stale_temporaries_of(path)
    written = 0

    def limited() -> Iterator[PositionBlock]:
        nonlocal written
        for block in blocks:
            if written >= limit:
                return
            block = block.head(limit - written)
            written += len(block)
            yield block
            if tick is not None:
                tick(len(block))

    if fmt == "jsonl":

        def write_lines(fh) -> None:
            for block in limited():
                fh.write(("\n".join(json_lines(advisor, block)) + "\n").encode("utf-8"))

        if str(path) == "-":
            write_lines(sys.stdout.buffer)
            sys.stdout.flush()
        else:
            atomic_write(path, write_lines)
        return written
    check_parquet()
    import pyarrow.parquet as pq

    schema = parquet_schema(advisor.rules, from_games)

    def write_parquet(fh) -> None:
        from concurrent.futures import ThreadPoolExecutor

        # the writer (pyarrow, without the GIL) writes a block while the next one is ranked
        with pq.ParquetWriter(fh, schema, **PARQUET_OPTIONS) as writer, ThreadPoolExecutor(1) as pool:
            pending = None
            for block in limited():
                if isinstance(advisor, PositionAdvisor):
                    table = advisor.parquet_table(block, schema)
                else:
                    table = parquet_table(advisor.rules, block, rank_block(advisor, block), schema)
                if pending is not None:
                    pending.result()
                pending = pool.submit(writer.write_table, table)
            if pending is not None:
                pending.result()

    check_output(path, fmt)
    atomic_write(path, write_parquet)
    return written


def parquet_rows(path) -> list[dict]:
    """The positions of a Parquet export as ``hint --json`` objects (the nulls dropped, values
    rounded to 9 decimals): to compare with :meth:`Advice.to_json`."""
    import pyarrow.parquet as pq

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if v is not None}
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, float):
            return round(value, 9)
        return value

    return [clean(row) for row in pq.read_table(path).to_pylist()]


def export_positions(
    path,
    rules: RuleSet | str | None = None,
    *,
    fmt: str = "parquet",
    bot=None,
    games: int | None = None,
    positions: int | None = None,
    seed: int = 0,
    tables_dir=None,
    progress: bool = False,
    build_if_missing: bool = True,
) -> int:
    """Write positions with every option's value to ``path`` (see the module docstring); returns
    how many.  With ``bot`` (a name or a bot): every decision of ``games`` games (at most
    ``positions`` of them); without: ``positions`` spread positions.  Everything is checked
    before the work starts (a usage error names the bad value)."""
    from ..core.rules import get_rules
    from ..core.streams import check_seed
    from ..engine.playout import progress_ticks

    rules = get_rules(rules)
    if rules.triple:
        raise UsageError(f"{rules.id}: export writes single cards (the triple card has no exact table)")
    if fmt not in FORMATS:
        raise UsageError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    seed = check_seed(seed)
    if bot is None and games is not None:
        raise UsageError("games are a bot's: give a bot too (or spread positions without games)")
    if bot is not None:
        games = 1_000 if games is None else games
        if not 1 <= games <= MAX_GAMES:
            raise UsageError(f"games must be from 1 to {MAX_GAMES:,}, got {games:,}")
    if positions is None:
        positions = MAX_POSITIONS if bot is not None else 100_000
    if not 1 <= positions <= MAX_POSITIONS:
        raise UsageError(f"positions must be from 1 to {MAX_POSITIONS:,}, got {positions:,}")
    check_output(path, fmt)
    if fmt == "parquet":
        check_parquet()
    if bot is None:
        advisor = _export_advisor(rules, tables_dir, build_if_missing, progress)
        blocks = spread_blocks(rules, positions, seed)
        with _position_bar(progress, positions, f"spread positions of {rules.id}") as tick:
            return write_export(path, fmt, advisor, blocks, positions, from_games=False, tick=tick)
    from .bots import bot_name
    from .simulate import resolve_bot

    owned = isinstance(bot, str)
    player = resolve_bot(bot, rules, tables_dir, build_if_missing, progress)  # a bad name: before any build
    try:
        advisor = _export_advisor(rules, tables_dir, build_if_missing, progress)
        chooser = advisor if _same_table(player, advisor) else None
        with progress_ticks(progress, games, f"{bot_name(player)} on {rules.id}") as tick:
            blocks = bot_blocks(rules, player, games, seed, progress=tick, chooser=chooser, ranker=advisor)
            return write_export(path, fmt, advisor, blocks, positions, from_games=True)
    finally:
        closer = getattr(player, "close", None)
        if owned and callable(closer):
            closer()  # a bot program's process is reaped


def _export_advisor(rules: RuleSet, tables_dir, build_if_missing: bool, progress: bool):
    """The advisor that ranks the export's positions: the batch advisor (five dice; the kernels
    from the first position on), else one position at a time (six dice)."""
    if rules.n_dice != D.N_DICE:
        from ..advice import load_advisor

        return PositionAdvisor(
            load_advisor(rules, tables_dir, build_if_missing=build_if_missing, progress=progress, light=True)
        )
    advisor = BatchAdvisor.load(rules, tables_dir, build_if_missing=build_if_missing, progress=progress)
    advisor.python_states = 0  # many positions: the kernels from the first on
    return advisor


def _same_table(bot, advisor: BatchAdvisor | PositionAdvisor) -> bool:
    """Whether ``bot`` is a table bot playing the export's own table (the optimal bot)."""
    from pathlib import Path

    if not isinstance(advisor, BatchAdvisor):  # six dice: the bot's moves come from its games
        return False
    table = getattr(getattr(bot, "advisor", None), "table", None)
    if type(bot) is not TableBot or table is None or getattr(table, "path", None) is None:
        return False
    return Path(table.path).resolve() == Path(advisor.table.path).resolve() and table.rules == advisor.rules


@contextlib.contextmanager
def _position_bar(progress: bool, total: int, desc: str):
    """``tick(n)`` for ``n`` more positions written: a tqdm bar on stderr, or nothing."""
    if not progress:
        yield lambda n: None
        return
    from tqdm import tqdm

    from ..core.text import bar_columns

    with tqdm(
        total=total, desc=desc, unit="position", unit_scale=True, leave=False, ncols=bar_columns()
    ) as bar:
        yield bar.update


def check_output(path, fmt: str) -> None:
    """Before the work: ``path`` can be written (its folder exists; not a folder, a FIFO or a
    device); ``-`` (stdout) only for JSON lines."""
    import os
    import stat

    from ..core.fileio import file_kind

    if str(path) == "-":
        if fmt != "jsonl":
            raise UsageError(
                "Parquet is written to a file, not to stdout (or write JSON lines: --format jsonl)"
            )
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write {path!r}: folder {folder} does not exist")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise UsageError(f"cannot write {path!r}: it is {file_kind(mode)}, not a regular file")
