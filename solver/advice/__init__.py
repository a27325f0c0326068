"""Advice: every option of a position ranked by an objective.  Imports the engine and the core.

One protocol (:class:`~.advisor.Advising`): ``advisor.advise(position, objective)`` returns
an :class:`~.advisor.Advice` -- the options best first, each with the objective's ``value``, its
``loss`` against the best and its ``expected_final``.  The objectives (:mod:`.objectives`) are
small frozen values with a text form: ``ExpectedScore()`` (``ev``), ``AtLeast(T)``
(``target:T``, P(final >= T)), ``Win(cards)`` (``win:CARD|CARD``, P(win) + P(tie) / 2).  The
advisors: :class:`~.advisor.Advisor` (expected score, a single card), :class:`~.advisor.
TargetAdvisor` (and P(final >= T)), :class:`~.win.WinAdvisor` (and P(win)),
:class:`~.triple.TripleAdvisor` (expected score on the triple card, estimated by its lookahead:
best-known, its ``note`` says so); in bulk :mod:`.batch`.  The ``hint --json`` object is built
once (:func:`~.advisor.advice_json`); the batch writer is made of the same pieces.

To add an objective:

1. a frozen dataclass in :mod:`.objectives` with ``__str__``, a branch of
   :func:`~.objectives.parse_objective`, and ``field``, the :class:`~.advisor.Option` field
   (and ``hint --json`` key) that holds its value -- add that field to ``Option`` (written by
   ``Option.to_json``, read by ``Option.value``) and the type to the ``Objective`` union;
2. an advisor whose ``objectives`` name it, its ``advise`` ranking the expected-score options by
   the within-turn values of playing for it (an object with ``e0``/``e1``/``placement_value``
   in the objective's units, as :class:`~solver.engine.turn.TargetTurnValues`) through
   :func:`~.advisor.ranked_by_objective`, which fills ``value``, ``loss`` and ``best``;
3. the surfaces (``hint``, ``/api/hint``, the session) pass it to ``advise``; a test in
   ``tests/test_objectives.py`` (the protocol test runs over every objective it is given).
"""


def load_advisor(
    rules, tables_dir=None, *, build_if_missing: bool = True, progress: bool = True, light: bool = False
):
    """The advisor of a rule set's positions by expected score: the exact
    :class:`~solver.advice.advisor.Advisor` of a single card, the triple card's best-known
    :class:`~solver.advice.triple.TripleAdvisor` (its ``note`` says so).  Both answer
    ``advise(position, objective)`` (by :class:`~solver.advice.objectives.ExpectedScore`, the
    default) with an :class:`~solver.advice.advisor.Advice`."""
    from ..core.rules import get_rules

    rules = get_rules(rules)
    if rules.triple:
        from .triple import TripleAdvisor

        return TripleAdvisor.load(
            rules, tables_dir, build_if_missing=build_if_missing, progress=progress, light=True
        )
    from .advisor import Advisor

    return Advisor.load(rules, tables_dir, build_if_missing=build_if_missing, progress=progress, light=light)
