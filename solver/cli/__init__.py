"""The command line: :func:`main` (:mod:`solver.cli.entry`) and one module per command, each with
``register(subparsers)``; the helpers below are what the commands share: the options that mean
the same in each (one registration, one help text), their checks, and the PNG files that
``simulate --hist`` and ``distribution --plot`` write."""

from __future__ import annotations

import argparse

from ..core.text import columns, fill

#: the terminal's width: every line the commands print for people fits (a longer one is wrapped)
WIDTH = 80


def fit(line: str, width: int = WIDTH, hang: int | None = None) -> str:
    """``line`` wrapped at words to ``width`` columns (wide characters count two, as a terminal
    shows them: :func:`solver.core.text.columns`), the continuation indented under its text
    (``! `` refusals and ``  coach:`` lines alike) or ``hang`` columns (under a table's second
    column); a line that fits is kept as it is, and so is one in colour (its codes would be
    split).  A word longer than a line (an 80-character rule id) stands alone on its line."""
    if visible_len(line) <= width or "\x1b[" in line:
        return line
    text = line.lstrip(" ")
    lead = line[: len(line) - len(text)]
    indent = " " * (len(lead) + 2 if hang is None else hang)
    return fill(text, width, initial_indent=lead, subsequent_indent=indent)


def fit_head(line: str, width: int = WIDTH) -> str:
    """A command's first line (``yahtzee | ones=3,fours=12,... | dice 3 3 4 5 6 | ...``) within
    ``width`` columns: broken between its ``|`` fields and after the card's commas, never inside a
    field's words (``2 rolls left``), continued two columns in."""
    if visible_len(line) <= width:
        return line
    fields = [field.replace(" ", "\0") for field in line.split(" | ")]
    glued = "\0| ".join(fields)
    return fill(glued, width, subsequent_indent="  ", commas=True).replace("\0", " ")


def fit_text(text: str, width: int = WIDTH, hang: int | None = None) -> str:
    """Every line of ``text`` through :func:`fit`."""
    return "\n".join(fit(line, width, hang) for line in text.split("\n"))


def visible_len(text: str) -> int:
    """The columns ``text`` takes on a terminal (:func:`solver.core.text.columns`)."""
    return columns(text)


#: the most digits of a whole-number option with no bounds of its own (an int64 holds them)
DIGITS = 18


def whole(low: int | None = None, high: int | None = None):
    """An argparse ``type``: a whole number read by :func:`solver.core.bounded.parse_whole` (ASCII
    digits, the length checked before ``int()``), from ``low`` to ``high`` (default: at most
    :data:`DIGITS` digits, either sign: the command checks the range it needs); else one short
    line naming the value, as argparse words it (``argument --games: invalid int value: ...``)."""
    lo = -(10**DIGITS - 1) if low is None else low
    hi = 10**DIGITS - 1 if high is None else high
    wanted = f"of at most {DIGITS} digits" if low is None and high is None else f"from {lo} to {hi}"

    def whole_number(text: str) -> int:
        from ..core.bounded import parse_whole, shown
        from ..core.errors import UsageError

        try:
            return parse_whole(text, "the value", lo, hi)
        except UsageError:
            raise argparse.ArgumentTypeError(
                f"invalid int value: {shown(text)} (a whole number {wanted})"
            ) from None

    return whole_number


def decimal(low: float, high: float):
    """An argparse ``type``: a decimal number such as ``3`` or ``0.5`` (ASCII digits and one dot,
    at most 12 characters: no ``nan``, ``inf``, ``1e400``, ``٣`` or ``1_0``), from ``low`` to
    ``high``; else one short line naming the value."""

    def number(text: str) -> float:
        import re

        from ..core.bounded import shown

        body = text.strip() if isinstance(text, str) else ""
        if len(body) <= 12 and body.isascii() and re.fullmatch(r"[0-9]+(?:\.[0-9]+)?|\.[0-9]+", body):
            value = float(body)
            if low <= value <= high:
                return value
        raise argparse.ArgumentTypeError(
            f"invalid number value: {shown(text)} (a number from {low:g} to {high:g})"
        )

    return number


def add_rules(
    parser: argparse.ArgumentParser,
    many: str | None = None,
    one: str = "rule set: BASE+MOD+... e.g. yatzy+all-rolls (default: yahtzee; see: yahtzee rules)",
) -> None:
    """``--rules SPEC`` (``one`` its help text, for a command whose default is not yahtzee's);
    with ``many`` (the help text) ``--rules SPEC [SPEC ...]``."""
    if many:
        parser.add_argument("--rules", nargs="+", metavar="SPEC", help=many)
    else:
        parser.add_argument("--rules", default=None, metavar="SPEC", help=one)


def add_seed_and_threads(
    parser: argparse.ArgumentParser, threads_help: str = "worker threads (default: all cores)"
) -> None:
    """``--seed S`` (:func:`add_seed`) and ``--threads N`` of a batch command."""
    add_seed(parser)
    parser.add_argument("--threads", type=whole(), default=None, metavar="N", help=threads_help)


def add_seed(parser: argparse.ArgumentParser) -> None:
    """``--seed S``: the dice streams' whole range, default 0."""
    from ..core.streams import MAX_SEED

    parser.add_argument(
        "--seed",
        type=whole(0, MAX_SEED),
        default=0,
        metavar="S",
        help=f"dice seed, 0 to {MAX_SEED} (default 0)",
    )


def check_threads(threads: int | None) -> None:
    """``--threads`` of :func:`add_seed_and_threads` (or of ``tables build``): 1 or more, or unset."""
    from ..core.errors import UsageError

    if threads is not None and threads < 1:
        raise UsageError(f"--threads must be 1 or more, got {threads}")


def add_tables(parser: argparse.ArgumentParser) -> None:
    """``--tables DIR``: where the table files are read (and built)."""
    parser.add_argument(
        "--tables",
        metavar="DIR",
        default=None,
        type=tables_folder,
        help="folder of table files (default: $YAHTZEE_TABLES, tables/ of a checkout, or the user cache)",
    )


def tables_folder(text: str) -> str:
    """The argparse ``type`` of ``--tables``: a folder, or a path not there yet (a build makes it)."""
    from pathlib import Path

    from ..core.bounded import shown

    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a folder")
    return text


def add_data(
    parser: argparse.ArgumentParser,
    help: str = "folder for saved games and records (default $YAHTZEE_DATA, else $XDG_DATA_HOME/yahtzee-solver)",
) -> None:
    """``--data DIR``: the folder of saved games and the records database (:mod:`solver.play.records`)."""
    parser.add_argument("--data", metavar="DIR", default=None, help=help)


def add_json(parser: argparse.ArgumentParser, help: str = "print one JSON object") -> None:
    """``--json``: the result as JSON on stdout instead of text."""
    parser.add_argument("--json", action="store_true", help=help)


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress bar on stderr."""
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_target(parser: argparse.ArgumentParser, help: str) -> None:
    """``--target T``, a final score to reach (what the command does with it is ``help``)."""
    parser.add_argument("--target", type=whole(), default=None, metavar="T", help=help)


def bot_descriptions() -> str:
    """The bots by name, each with its one line, as the descriptions of simulate and match list them."""
    from ..play.bots import BOT_DESCRIPTIONS

    return "; ".join(f"{name}: {text}" for name, text in BOT_DESCRIPTIONS.items())


#: how to get matplotlib, which draws the PNG files: in the options' help and the error without it
PLOT_EXTRA = "pip install 'yahtzee-solver[plot]'"


def add_worst(parser: argparse.ArgumentParser, help: str, default: int, most: int, each: str = "") -> None:
    """``--worst FILE`` (the costliest graded decisions as JSON lines, ``help``) and
    ``--worst-count N`` (how many: ``default``, at most ``most``; ``each``: " per bot" ...)."""
    parser.add_argument("--worst", metavar="FILE", default=None, help=help)
    parser.add_argument(
        "--worst-count",
        type=whole(1, most),
        default=default,
        metavar="N",
        help=f"how many decisions --worst writes{each} (default {default})",
    )


def add_png(parser: argparse.ArgumentParser, option: str, help: str) -> None:
    """``option PNG``: a picture to draw (``help``, then what it needs)."""
    parser.add_argument(option, metavar="PNG", default=None, help=f"{help} (needs matplotlib: {PLOT_EXTRA})")


def check_png(option: str, path: str) -> None:
    """Before the work: a PNG can be drawn (matplotlib is installed) and written (its folder exists),
    so a long computation never ends in "cannot write"."""
    import os

    from ..core.errors import UsageError

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(f"{option} needs matplotlib, which is not installed: {PLOT_EXTRA}") from None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{option} {path!r}: folder {folder} does not exist")


def write_png(option: str, path: str, draw) -> None:
    """Draw a figure with matplotlib's Agg backend (``draw(pyplot)`` returns it) and write it to
    ``path`` as a PNG, atomically; a folder, ``/dev/full`` or a FIFO is never replaced, and a file
    that cannot be written is one :class:`~solver.core.errors.SolverError` naming ``option``."""
    import os

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..core.errors import SolverError
    from ..core.fileio import atomic_write

    fig = draw(plt)
    try:
        if os.path.lexists(path) and not os.path.isfile(path):
            raise SolverError(f"cannot write {option} {path!r}: not a regular file")
        atomic_write(path, lambda fh: fig.savefig(fh, format="png"))
    except OSError as exc:
        raise SolverError(f"cannot write {option} {path!r}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)


def write_png_after_report(option: str, path: str, draw, what: str, json_output: bool) -> None:
    """The PNG, once the report is on stdout (a picture that cannot be written, a full disk, must
    not lose the report); the text report then says where it went (``what`` written to ``path``),
    a JSON one keeps stdout to its one object."""
    import sys

    sys.stdout.flush()
    write_png(option, path, draw)
    if not json_output:
        print(f"{what} written to {path}")


from .entry import build_parser, main  # noqa: E402  (the helpers above are what the commands import)

__all__ = ["build_parser", "main"]
