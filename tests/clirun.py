"""The command line run in-process, as the tests drive it: ``yahtzee ARGS`` with what it printed,
and a reduced rule set cut down to a few boxes."""

from __future__ import annotations

import io
import sys

from solver.core.rules import RuleSet, get_rules


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``yahtzee ARGV`` in this process: its exit status, stdout and stderr (only what it printed)."""
    from solver.cli.entry import main

    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def typed(monkeypatch, capsys, argv, lines=(), stdin=None) -> tuple[int, str, str]:
    """``yahtzee ARGV`` reading ``lines`` (or the file ``stdin``) as what a player types (``main``
    returns argparse's ``--help`` and usage errors as a status too: a ``SystemExit`` fails the test)."""
    from solver.cli.entry import main

    monkeypatch.setattr(sys, "stdin", stdin or io.StringIO("".join(line + "\n" for line in lines)))
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def only(spec: str, keep: str) -> RuleSet:
    """``spec`` cut down to the boxes named in ``keep`` (through the ``without`` modifier)."""
    names = get_rules(spec).box_names
    drop = [n for n in names if n not in keep.split(",")]
    assert len(drop) + len(keep.split(",")) == len(names), keep
    return get_rules(f"{spec}+without={','.join(drop)}")
