"""The boxes of a score card: :class:`Box` (its name, its :class:`Scorer` and the points it pays
a Joker) and what each kind of box scores a roll (dice counted per face)."""

from __future__ import annotations

from dataclasses import dataclass

from .dice import DICE_COUNTS, N_DICE, N_FACES

Counts = tuple[int, ...]  # dice per face 1..6
MAX_DICE = max(DICE_COUNTS)


def _total(c: Counts) -> int:
    return sum((f + 1) * n for f, n in enumerate(c))


def _full_house_faces(c: Counts) -> tuple[int, int] | None:
    """The best three of one face and two of another, ``(triple face, pair face)``, or None.

    With five dice that is exactly the counts 3 + 2; with six a four of a kind and a pair, two
    triples or a triple and a pair qualify too (highest-scoring selection: the largest
    ``3 a + 2 b``)."""
    best = None
    for a in range(N_FACES, 0, -1):
        if c[a - 1] < 3:
            continue
        for b in range(N_FACES, 0, -1):
            if b != a and c[b - 1] >= 2 and (best is None or 3 * a + 2 * b > 3 * best[0] + 2 * best[1]):
                best = (a, b)
    return best


def _pair_faces(c: Counts) -> list[int]:
    """The faces shown by at least two dice, highest first."""
    return [f + 1 for f in range(N_FACES - 1, -1, -1) if c[f] >= 2]


def _longest_run(c: Counts) -> int:
    best = run = 0
    for k in c:
        run = run + 1 if k else 0
        best = max(best, run)
    return best


@dataclass(frozen=True)
class Scorer:
    """How a box scores a roll: a kind and its parameters (validated on creation).

    ========================  ==========================================================
    ``upper(face)``           face x the dice showing it
    ``n_kind_sum(n)``         the sum of all five dice if at least ``n`` show one face
    ``n_kind_face(n)``        ``n`` x the highest face shown by at least ``n`` dice
    ``two_pairs``             two different faces on at least two dice each: those four
                              (the two highest pairs)
    ``three_pairs``           three different faces on two dice each: all the dice
    ``full_house(points)``    three of one face and two of another: ``points`` (None: those
                              five dice, the best such selection)
    ``villa``                 two triples of different faces: all the dice
    ``tower``                 four of one face and two of another: all the dice
    ``straight(n, points)``   ``n`` consecutive faces present
    ``exact_straight(n, p)``  exactly the five faces ``n .. n+4``
    ``straight_among(n, p)``  the five faces ``n .. n+4`` among the dice (six dice)
    ``chance``                the sum of the dice
    ``five_kind(points)``     five dice the same
    ``all_same(points)``      every die the same (six dice: Maxi Yatzy)
    ========================  ==========================================================
    """

    kind: str
    n: int = 0
    points: int | None = None

    def __post_init__(self) -> None:
        limits = {
            "upper": (1, N_FACES),
            "n_kind_sum": (2, MAX_DICE),
            "n_kind_face": (2, MAX_DICE),
            "straight": (4, N_FACES),
            "exact_straight": (1, 2),
            "straight_among": (1, 2),
        }
        fixed = {"full_house", "straight", "exact_straight", "straight_among", "five_kind", "all_same"}
        plain = {"two_pairs", "three_pairs", "villa", "tower", "chance"}
        if self.kind not in limits and self.kind not in fixed | plain:
            raise ValueError(f"unknown scorer kind {self.kind!r}")
        if self.kind in limits and not limits[self.kind][0] <= self.n <= limits[self.kind][1]:
            raise ValueError(f"scorer {self.kind} needs n in {limits[self.kind]}, got {self.n}")
        if self.kind in fixed - {"full_house"} and not (self.points and self.points > 0):
            raise ValueError(f"scorer {self.kind} needs positive points, got {self.points}")

    def __call__(self, c: Counts) -> int:
        kind, n = self.kind, self.n
        if kind == "upper":
            return n * c[n - 1]
        if kind == "n_kind_sum":
            return _total(c) if max(c) >= n else 0
        if kind == "n_kind_face":
            faces = [f + 1 for f, k in enumerate(c) if k >= n]
            return n * max(faces) if faces else 0
        if kind == "two_pairs":
            faces = _pair_faces(c)
            return 2 * sum(faces[:2]) if len(faces) >= 2 else 0
        if kind == "three_pairs":
            return _total(c) if sorted(c) == [0, 0, 0, 2, 2, 2] else 0
        if kind == "full_house":
            faces = _full_house_faces(c)
            if faces is None:
                return 0
            return self.points or 3 * faces[0] + 2 * faces[1]
        if kind == "villa":
            return _total(c) if sorted(c) == [0, 0, 0, 0, 3, 3] else 0
        if kind == "tower":
            return _total(c) if sorted(c) == [0, 0, 0, 0, 2, 4] else 0
        if kind == "straight":
            return self.points if _longest_run(c) >= n else 0
        if kind == "exact_straight":
            return self.points if all(c[f] == 1 for f in range(n - 1, n + 4)) else 0
        if kind == "straight_among":
            return self.points if all(c[f] >= 1 for f in range(n - 1, n + 4)) else 0
        if kind == "chance":
            return _total(c)
        if kind == "all_same":
            return self.points if max(c) == sum(c) else 0
        return self.points if max(c) == N_DICE else 0  # five_kind

    def describe(self) -> str:
        """The scoring rule in words (``yahtzee rules SPEC``)."""
        kind, n, p = self.kind, self.n, self.points
        if kind == "upper":
            return f"{n} x the dice showing {n}"
        if kind == "n_kind_sum":
            return f"sum of all dice, with at least {n} the same"
        if kind == "n_kind_face":
            return f"{n} x the face of {n} dice the same" + (" (the highest pair)" if n == 2 else "")
        if kind == "two_pairs":
            return "sum of two pairs of different faces"
        if kind == "three_pairs":
            return "sum of three pairs of different faces"
        if kind == "full_house":
            return f"{p if p else 'sum of the dice'} for three of one face and two of another"
        if kind == "villa":
            return "sum of two triples of different faces"
        if kind == "tower":
            return "sum of four of one face and two of another"
        if kind == "straight":
            if n == N_FACES:
                return f"{p} for all six faces (1-2-3-4-5-6)"
            return f"{p} for {n} faces in a row"
        if kind == "exact_straight":
            return f"{p} for exactly {'-'.join(str(f) for f in range(n, n + 5))}"
        if kind == "straight_among":
            return f"{p} for {'-'.join(str(f) for f in range(n, n + 5))} among the dice"
        if kind == "chance":
            return "sum of the dice"
        if kind == "all_same":
            return f"{p} for all dice the same"
        return f"{p} for five of a kind"


@dataclass(frozen=True)
class Box:
    """One box of the score card: its name, its scorer and the fixed score it pays for a
    five of a kind played as a Joker (``None``: it scores a Joker as usual)."""

    name: str
    scorer: Scorer
    joker_score: int | None = None

    @property
    def face(self) -> int:
        """1..6 for an upper box, 0 for a lower one."""
        return self.scorer.n if self.scorer.kind == "upper" else 0

    @property
    def is_upper(self) -> bool:
        return self.face > 0

    @property
    def is_five_kind(self) -> bool:
        return self.scorer.kind == "five_kind"

    def score(self, counts: Counts) -> int:
        return self.scorer(counts)
