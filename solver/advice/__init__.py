"""Advice: every option of a position ranked by an objective -- expected score and P(final >= T)
(:mod:`.advisor`, in bulk :mod:`.batch`), P(win) against the opponents' cards (:mod:`.win`), the
triple card's lookahead (:mod:`.triple`).  Imports the engine and the core."""


def load_advisor(
    rules, tables_dir=None, *, build_if_missing: bool = True, progress: bool = True, light: bool = False
):
    """The advisor of a rule set's positions by expected score: the exact
    :class:`~solver.advice.advisor.Advisor` of a single card, the triple card's best-known
    :class:`~solver.advice.triple.TripleAdvisor` (its ``note`` says so).  Both answer
    ``advise(position)`` with an :class:`~solver.advice.advisor.Advice`."""
    from ..core.rules import get_rules

    rules = get_rules(rules)
    if rules.triple:
        from .triple import TripleAdvisor

        return TripleAdvisor.load(
            rules, tables_dir, build_if_missing=build_if_missing, progress=progress, light=True
        )
    from .advisor import Advisor

    return Advisor.load(rules, tables_dir, build_if_missing=build_if_missing, progress=progress, light=light)
