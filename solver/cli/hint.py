"""``yahtzee hint`` (advice for a position) and ``yahtzee value`` (a card's expected final score)."""

from __future__ import annotations

import json
import sys
import textwrap

from ..advice.advisor import checked_advice, value_json
from ..engine.turn import check_finite
from . import add_json, add_rules, add_tables, add_target, fit, fit_head, whole
from .remedy import build_command


def register(sub) -> None:
    h = sub.add_parser("hint", help="rank every option of a position by expected score")
    h.add_argument("--dice", help="five dice, e.g. 33456 or '3 3 4 5 6'")
    h.add_argument("--rolls-left", type=whole(), choices=(0, 1, 2), help="rolls left this turn")
    h.add_argument(
        "--card", default=None, help="filled boxes, e.g. 'ones=3,fours=12,yahtzee=50' (default: empty)"
    )
    add_rules(h)
    h.add_argument(
        "--top", type=whole(), default=None, metavar="N", help="options to show (default 5; 0 = all)"
    )
    add_json(h)
    h.add_argument("--batch", metavar="FILE", help="JSON lines in (- for stdin), JSON lines out")
    add_target(h, "rank by the probability of a final score of at least T (target table; built if missing)")
    h.add_argument(
        "--opponent-card",
        action="append",
        default=None,
        metavar="CARD",
        help="an opponent's card (repeat for several): rank by P(win), a tie counted half (the win "
        "bot's values: exact once the opponents have finished)",
    )
    add_tables(h)
    h.set_defaults(func=run_hint)

    v = sub.add_parser("value", help="expected final score of a card before rolling")
    v.add_argument("--card", default="", help="filled boxes (default: empty card)")
    add_rules(v)
    add_json(v)
    add_target(v, "P(final >= T) under target play and under expected-score play")
    add_tables(v)
    v.set_defaults(func=run_value)


def _advisor(rules, tables_dir):
    """The advisor of one position: its table read without numpy (built first if missing)."""
    from ..advice import load_advisor

    return load_advisor(rules, tables_dir, build_if_missing=True, progress=True, light=True)


def run_hint(args) -> int:
    from ..core.errors import UsageError
    from ..core.position import Position
    from ..core.rules import get_rules

    if args.batch:
        options = {
            "--dice": args.dice,
            "--rolls-left": args.rolls_left,
            "--card": args.card,
            "--top": args.top,
            "--target": args.target,
            "--opponent-card": args.opponent_card,
        }
        given = [name for name, value in options.items() if value is not None]
        if given:
            raise UsageError(
                f"--batch reads positions (as JSON lines) from the file; do not give {', '.join(given)}"
            )
        get_rules(args.rules)  # an unknown rule set: one usage error
        return run_batch(args)
    if not args.dice or args.rolls_left is None:
        raise UsageError("hint needs --dice and --rolls-left (or --batch FILE)")
    if args.top is None:
        args.top = 5
    if args.top < 0:
        raise UsageError(f"--top must be 0 or more, got {args.top}")
    position = Position.parse(args.card, args.dice, args.rolls_left, args.rules)  # validate before any build
    if args.target is not None or args.opponent_card is not None:
        position.rules.require_five_dice("hint --target / --opponent-card")
    if position.rules.triple:
        _no_target(args)
    if args.opponent_card is not None and args.target is not None:
        raise UsageError("give --target or --opponent-card, not both")
    objective = hint_objective(args, position.rules)
    advice = checked_advice(objective_advisor(objective, position.rules, args.tables), position, objective)
    if args.json:
        print(json.dumps(advice.to_json(), allow_nan=False))
    else:
        print(format_advice(advice, args.top))
    return 0


def hint_objective(args, rules):
    """What ``hint`` ranks by: P(win) against ``--opponent-card`` cards, P(final >= ``--target``),
    else the expected score (:mod:`solver.advice.objectives`)."""
    from ..advice.objectives import EXPECTED_SCORE, AtLeast, Win
    from ..core.card import ScoreCard
    from ..core.errors import CardError, UsageError

    if args.opponent_card is not None:
        from ..play.match import MAX_PLAYERS  # numpy: only here, not on a plain hint's path

        if len(args.opponent_card) > MAX_PLAYERS - 1:
            raise UsageError(f"at most {MAX_PLAYERS - 1} --opponent-card, got {len(args.opponent_card)}")
        cards = []
        for text in args.opponent_card:
            try:
                cards.append(ScoreCard.parse(text, rules))
            except CardError as exc:
                raise UsageError(f"--opponent-card {text!r}: {exc}") from None
        return Win(tuple(cards))
    if args.target is not None:
        check_target(args.target)
        return AtLeast(args.target)
    return EXPECTED_SCORE


def objective_advisor(objective, rules, tables_dir):
    """The advisor that answers ``objective`` for ``rules``, its tables built if missing: the
    single hint's (tables read without numpy) by expected score and by a target, the win bot's
    (the target table and the opponent model) by P(win)."""
    from ..advice.objectives import AtLeast, Win

    if isinstance(objective, Win):
        from ..advice.advisor import Advisor
        from ..advice.win import WinAdvisor
        from ..engine.target import get_target

        table = get_target(rules, tables_dir, build_if_missing=True, progress=True)
        return WinAdvisor(Advisor.load(rules, tables_dir, build_if_missing=True, progress=True), table)
    if isinstance(objective, AtLeast):
        return target_advisor(rules, tables_dir)
    return _advisor(rules, tables_dir)


def check_target(target: int) -> None:
    """A target score is a usage error unless it is 1 or more."""
    if target < 1:
        from ..core.errors import UsageError

        raise UsageError(f"--target must be a score of 1 or more, got {target}")


def target_advisor(rules, tables_dir):
    """The target advisor of one position: both tables read without numpy (built if missing)."""
    from ..advice.advisor import TargetAdvisor
    from ..engine.target import get_target

    table = get_target(
        rules,
        tables_dir,
        build_if_missing=True,
        light=True,
        announce=lambda line: print(line, file=sys.stderr),
    )
    return TargetAdvisor(_advisor(rules, tables_dir), table)


def format_advice(advice, top: int = 5) -> str:
    """The advice as a short aligned table, best first, with its objective's value; the advice's
    ``note`` (what it is, where it is not exact: the triple card's) last."""
    from ..advice.objectives import Win

    p = advice.position
    card = str(p.card) or "empty card"
    rolls = {0: "no rolls left", 1: "1 roll left", 2: "2 rolls left"}[p.rolls_left]
    head = f"{p.rules.id} | {card} | dice {' '.join(map(str, p.dice))} | {rolls}"
    if advice.target is not None:
        head += f" | target {advice.target}"
    lines = [fit_head(head)]  # a full card is 150 characters: broken after its commas
    best = [o for o in advice.options if o.best]
    lines.append(f"Best: {best[0].describe()}")
    if len(best) > 1:
        lines.append(fit("  (equally good: " + "; ".join(o.describe() for o in best[1:]) + ")"))
    shown = advice.options if top == 0 else advice.options[: max(top, 1)]
    width = max(len(o.describe()) for o in shown)
    if isinstance(advice.objective, Win):
        lines[0] += " | vs opponents"
        lines.append(f"  {'option':<{width}}  {'P(win)':>9}  {'exp. final':>10}")
        for o in shown:
            lines.append(f"  {o.describe():<{width}}  {o.p_win:9.5f}  {o.expected_final:10.2f}")
    elif advice.target is not None:
        # exp. final: taking the option, then playing for expected score
        lines.append(f"  {'option':<{width}}  {'P(>=' + str(advice.target) + ')':>9}  {'exp. final':>10}")
        for o in shown:
            lines.append(f"  {o.describe():<{width}}  {o.p_target:9.5f}  {o.expected_final:10.2f}")
    else:
        lines.append(f"  {'option':<{width}}  {'exp. final':>10}  {'loss':>7}")
        for o in shown:
            lines.append(f"  {o.describe():<{width}}  {o.expected_final:10.2f}  {o.regret:7.3f}")
    if len(shown) < len(advice.options):
        lines.append(f"  ... {len(advice.options) - len(shown)} more (--top 0 shows all)")
    if advice.capped_at is not None:
        lines.append(capped_line(advice.target, advice.capped_at))
    if advice.note:
        lines.append(textwrap.fill(f"note: {advice.note}", 80, subsequent_indent="  "))
    return "\n".join(lines)


#: Reading stdin, answer what has come after this many seconds without a new line, so
#: that a program can write a position and wait for its answer through a pipe.
STDIN_IDLE_SECONDS = 0.05
#: the largest ``--batch`` file: a position is about 50 bytes, so twenty million of them
MAX_BATCH_BYTES = 1 << 30


def run_batch(args) -> int:
    """JSON lines in, JSON lines out, answered in batches (see :mod:`solver.advice.batch`).

    Input is read as bytes and split at ``\\n`` only, so every input line -- blank, with a
    lone ``\\r``, not UTF-8 -- gets exactly one output line, for files and stdin alike.
    """
    from ..advice.batch import advise_json_batches, read_lines

    if args.batch == "-":
        if sys.stdin is None:  # started with stdin closed (0<&-)
            from ..core.errors import SolverError

            raise SolverError("stdin is closed: there are no positions to read (--batch -)")
        binary = getattr(sys.stdin, "buffer", None)
        stream = binary if binary is not None else sys.stdin  # a text stream (tests) gives str lines
    else:
        stream = _open_batch(args.batch)
    idle = STDIN_IDLE_SECONDS if args.batch == "-" else None
    lines = read_lines(stream) if _is_binary(stream) else stream
    with stream:
        for answers in advise_json_batches(
            lines, default_rules=args.rules, tables_dir=args.tables, idle=idle
        ):
            if answers:
                sys.stdout.write("\n".join(answers) + "\n")
                sys.stdout.flush()
    return 0


def _open_batch(path: str):
    """The ``--batch`` file, only a regular file of at most :data:`MAX_BATCH_BYTES` (a FIFO or a
    device such as ``/dev/zero`` is refused before reading: it could block or never end)."""
    from ..core.errors import UsageError
    from ..core.fileio import NotRegularFileError, open_regular

    try:
        return open_regular(path, MAX_BATCH_BYTES)
    except NotRegularFileError as exc:
        raise UsageError(f"batch file {exc}; read a pipe as stdin: --batch -") from None
    except ValueError as exc:  # too big
        raise UsageError(f"batch file {exc}") from None
    except OSError as exc:
        raise UsageError(f"cannot read batch file {path!r}: {exc.strerror}") from None


def _is_binary(stream) -> bool:
    import io

    return isinstance(stream, (io.RawIOBase, io.BufferedIOBase))


def _no_target(args) -> None:
    for option in ("target", "opponent_card"):
        if getattr(args, option, None) is not None:
            from ..core.errors import UsageError

            raise UsageError(
                f"--{option.replace('_', '-')} does not take the triple card (no target tables for it)"
            )


def run_triple_value(args) -> int:
    """``value --rules ...+triple``: the floor policy's expected final score (a lower bound)."""
    from ..advice.triple import TripleAdvisor
    from ..core.triple_card import TripleCard

    _no_target(args)
    card = TripleCard.parse(args.card, args.rules)
    floor = TripleAdvisor.load(card.rules, args.tables).floor_value(card)
    check_finite(card.rules.single, [floor], str(card) or "the empty card")
    if args.json:
        print(json.dumps({"rules": card.rules.id, "card": str(card), "total": card.total,
                          "floor_expected_final": round(floor, 9)}, allow_nan=False))  # fmt: skip
    else:
        print(fit_head(f"{card.rules.id} | {str(card) or 'empty card'}: on the card {card.total}"))
        print(f"  expected final {floor:.4f} under the floor policy (each column in turn, played")
        print("  optimally; a lower bound: the exact value of the triple card is unknown)")
    return 0


def run_value(args) -> int:
    from ..core.card import ScoreCard
    from ..core.rules import get_rules

    if get_rules(args.rules).triple:
        return run_triple_value(args)

    card = ScoreCard.parse(args.card, args.rules)
    if args.target is not None:
        check_target(args.target)
        return _run_value_target(args, card)
    out = value_json(_advisor(card.rules, args.tables), card)
    if args.json:
        print(json.dumps(out, allow_nan=False))
    else:
        ev = out["ev"]
        print(fit_head(f"{card.rules.id} | {str(card) or 'empty card'}: on the card {card.total}"))
        print(f"  expected still to come {ev:.4f}, expected final {card.total + ev:.4f}")
    return 0


def target_value_json(advisor, card, target: int) -> dict:
    """P(final >= target) from ``card`` (start of a turn) under target play and under
    expected-score play (the exact distribution; from the empty card, the target table's
    manifest has it)."""
    p_target = advisor.probability(card, target)
    _, capped_at = advisor.held(card, target)
    cached = advisor.table.manifest.get("ev_play_empty_card", {})
    if not card.filled_mask and str(target) in cached:
        p_ev = cached[str(target)]
    else:
        from ..engine.distribution import score_distribution

        p_ev = score_distribution(card, advisor.advisor.table.values, outcomes=False).p_at_least(target)
    check_finite(card.rules, [p_target, p_ev], str(card) or "the empty card")
    return {
        "rules": card.rules.id,
        "card": str(card),
        "target": target,
        "p_target": p_target,
        "p_target_ev_play": p_ev,
        "expected_final": round(card.total + advisor.advisor.card_value(card), 9),
    } | ({"capped_at": capped_at} if capped_at is not None else {})


def capped_line(target: int, capped_at: int, what: str = "each probability") -> str:
    """What a P(>= target) beyond the target table is (:meth:`TargetAdvisor.held`), wrapped."""
    return textwrap.fill(
        f"note: the target table holds final scores up to {capped_at} from this card, not "
        f"{target}: {what} shown is P(>={capped_at}), an upper bound of P(>={target}) (a "
        f"larger table: {build_command(target=True, t_max='N')})",
        80,
        subsequent_indent="  ",
    )


def _run_value_target(args, card) -> int:
    out = target_value_json(target_advisor(card.rules, args.tables), card, args.target)
    if args.json:
        print(json.dumps(out, allow_nan=False))
    else:
        print(fit_head(f"{card.rules.id} | {str(card) or 'empty card'}: P(final >= {args.target})"))
        print(f"  {out['p_target']:.7f} playing for the target")
        print(
            f"  {out['p_target_ev_play']:.7f} playing for expected score (expected final {out['expected_final']:.2f})"
        )
        if capped_at := out.get("capped_at"):
            print(capped_line(args.target, capped_at, "the first probability"))
    return 0
