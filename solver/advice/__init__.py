"""Advice: every option of a position ranked by an objective -- expected score and P(final >= T)
(:mod:`.advisor`, in bulk :mod:`.batch`), P(win) against the opponents' cards (:mod:`.win`), the
triple card's lookahead (:mod:`.triple`).  Imports the engine and the core."""
