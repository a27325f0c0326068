"""Packed value tables: one value per state the dynamic program computes, for six dice.

Maxi Yatzy's dense table (``2**20`` cards x 76 upper totals, float64) would be 638 MB, most of it
states that cannot occur (an upper total the filled upper boxes cannot make) or copies (every
total from which the bonus is out of reach has the value of the smallest: see
:func:`solver.engine.dp.level_lanes`; totals at the threshold are capped to one already).  On disk
the table keeps only the values the DP solves, 36,864,000 float64 (295 MB), card after card in
mask order; the values of one card are its *slots*, which depend on its filled upper boxes only.

* :func:`slots` -- per set of filled upper boxes (bits ``face - 1``): the upper totals stored,
  in order, and for every total ``0 .. cap`` the slot it reads (-1: cannot occur);
* :func:`packed_length` -- the number of values of a packed table (plain Python: the store
  checks a file's shape with it before numpy is imported);
* :func:`pack` / :func:`unpack` -- a dense table to its packed values and back, bit for bit on
  every state the DP computes (NaN elsewhere).

Only rule sets of six dice are packed (:func:`is_packed`); five-dice tables keep their dense
layout, byte for byte.  A packed table has one flag (Maxi Yatzy has no five-of-a-kind bonus).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from ..core.rules import RuleSet


def is_packed(rules: RuleSet) -> bool:
    """Whether the value table of ``rules`` is stored packed (six dice)."""
    return rules.n_dice == 6


def _face_bits(rules: RuleSet, mask: int) -> int:
    return sum(1 << (rules.boxes[b].face - 1) for b in rules.upper_indices if mask >> b & 1)


@lru_cache(maxsize=16)
def slots(rules: RuleSet) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Per set of filled upper faces ``bits`` (0..63): ``(stored, slot_of)`` -- the upper totals
    whose values are stored, ascending, and for each total ``0 .. upper_cap`` the index into
    ``stored`` of the value it has (a hopeless total: the smallest hopeless one's; -1: the total
    cannot occur).  Plain Python; the same reachability and hopeless rule as the DP's."""
    cap, n = rules.upper_cap, rules.n_dice
    thr = rules.upper_threshold if rules.has_upper_bonus else 0
    faces_on_card = {rules.boxes[b].face for b in rules.upper_indices}
    out = []
    for bits in range(64):
        totals = {0}
        for face in range(1, 7):
            if bits >> (face - 1) & 1:
                totals = {min(cap, t + c * face) for t in totals for c in range(n + 1)}
        still = sum(n * f for f in faces_on_card if not bits >> (f - 1) & 1)
        hopeless = sorted(t for t in totals if t + still < thr)
        stored = sorted((totals - set(hopeless)) | set(hopeless[:1]))
        slot_of = [-1] * (cap + 1)
        for i, t in enumerate(stored):
            slot_of[t] = i
        for t in hopeless[1:]:
            slot_of[t] = slot_of[hopeless[0]]
        out.append((tuple(stored), tuple(slot_of)))
    return tuple(out)


def packed_length(rules: RuleSet) -> int:
    """The number of values in the packed table of ``rules`` (every card, in mask order)."""
    per_bits = [len(stored) for stored, _ in slots(rules)]
    upper = rules.upper_indices
    n_lower = rules.n_boxes - len(upper)
    total = 0
    for sub in range(1 << len(upper)):
        bits = sum(1 << (rules.boxes[b].face - 1) for i, b in enumerate(upper) if sub >> i & 1)
        total += per_bits[bits]
    return total << n_lower


def _layout(rules: RuleSet):
    """``(bits, offset)``: each card's filled upper faces and the index of its first value."""
    import numpy as np

    masks = np.arange(1 << rules.n_boxes, dtype=np.int64)
    bits = np.zeros(len(masks), dtype=np.int64)
    for b in rules.upper_indices:
        bits |= ((masks >> b) & 1) << (rules.boxes[b].face - 1)
    count = np.array([len(stored) for stored, _ in slots(rules)], dtype=np.int64)[bits]
    offset = np.zeros(len(masks) + 1, dtype=np.int64)
    np.cumsum(count, out=offset[1:])
    return bits, offset


def pack(rules: RuleSet, dense: np.ndarray) -> np.ndarray:
    """The packed values (``(packed_length,)`` float64) of a dense table ``(2**n_boxes, cap + 1, 1)``."""
    import numpy as np

    if rules.n_flags != 1:
        raise ValueError(f"{rules.id}: a packed table has one flag")
    bits, offset = _layout(rules)
    out = np.empty(int(offset[-1]), dtype=np.float64)
    for b, (stored, _) in enumerate(slots(rules)):
        cards = np.flatnonzero(bits == b)
        if len(cards) == 0 or not stored:
            continue
        at = offset[cards][:, None] + np.arange(len(stored))[None, :]
        out[at] = dense[cards[:, None], np.array(stored)[None, :], 0]
    return out


def unpack(rules: RuleSet, packed: np.ndarray) -> np.ndarray:
    """The dense table ``(2**n_boxes, cap + 1, 1)`` float64 of packed values (NaN where a total
    cannot occur; the full card all 0.0), read-only: the DP's table, bit for bit."""
    import numpy as np

    from ..core.threads import Workers, default_threads

    bits, offset = _layout(rules)
    packed = np.asarray(packed)
    # every entry written once, a card's row at a time (a NaN fill first and a scatter after would
    # go over the 638 MB of Maxi Yatzy's table twice)
    dense = np.empty((1 << rules.n_boxes, rules.upper_cap + 1, 1))
    rows = dense.reshape(dense.shape[0], dense.shape[1])
    slot = np.array([slot_of for _, slot_of in slots(rules)], dtype=np.int64)  # (64, cap + 1)
    empty = slot < 0
    slot[empty] = 0  # read a stored value of the card, then NaN over it

    def fill(lo: int, hi: int) -> None:
        for m0 in range(lo, hi, 8192):  # a few MB of indices at a time, the cards in order
            m1 = min(m0 + 8192, hi)
            part = bits[m0:m1]
            np.take(packed, offset[m0:m1, None] + slot[part], out=rows[m0:m1], mode="clip")
            np.putmask(rows[m0:m1], empty[part], np.nan)

    # numpy's take and putmask leave the GIL: the cores share the 638 MB's first writes
    with Workers(default_threads()) as workers:
        workers.run(fill, 0, len(rows))
    dense[rules.full_mask] = 0.0  # the full card's row is all 0, as the DP writes it
    dense.setflags(write=False)
    return dense


def packed_problem(rules: RuleSet, packed: np.ndarray) -> str | None:
    """What is wrong with packed values, or None: every card a game can reach holds values from
    2**-15 to 2**17 (the DP's range, see :mod:`solver.engine.tables`), the full card 0.0, a card
    the fill order cannot reach NaN."""
    import numpy as np

    _, offset = _layout(rules)
    full = rules.full_mask
    ok = np.ones(len(packed), dtype=bool)
    reachable = np.ones(1 << rules.n_boxes, dtype=bool)
    if rules.order != "free":
        reachable[:] = [rules.is_reachable_mask(m) for m in range(1 << rules.n_boxes)]
    reachable[full] = False
    per_value = np.repeat(reachable, np.diff(offset))
    finite = (packed >= 2.0**-15) & (packed < 2.0**17)
    ok &= np.where(per_value, finite, np.isnan(packed))
    ok[offset[full] : offset[full + 1]] = packed[offset[full] : offset[full + 1]] == 0.0
    bad = np.flatnonzero(~ok)
    if len(bad) == 0:
        return None
    i = int(bad[0])
    mask = int(np.searchsorted(offset, i, side="right") - 1)
    return f"{len(bad)} values hold impossible values (the first, of card {mask}, holds {float(packed[i])!r})"


class PackedValues:
    """``values[mask, u, f]`` of a packed table read in place, one entry at a time, without numpy
    (what a single hint reads: a few hundred entries); ``numpy.asarray`` of it is the dense table
    (:func:`unpack`, made once).  ``stored``: the packed values, a
    :class:`~solver.engine.store.ValueFile` (or any 1-D sequence of floats).  ``damaged``: when
    given, each value read is checked to be in the DP's range (2**-15 to 2**17, see
    :func:`packed_problem`), and one out of it raises ``damaged(problem)`` (an exception: the
    table's :class:`~solver.core.errors.TableError`) -- what a reader that has not checked every
    value byte by byte relies on."""

    def __init__(self, rules: RuleSet, stored, damaged=None) -> None:
        self.rules, self.stored, self._damaged = rules, stored, damaged
        self.shape = (1 << rules.n_boxes, rules.upper_cap + 1, 1)
        self._slots = slots(rules)
        n = rules.n_boxes
        face = [rules.boxes[b].face if b in rules.upper_indices else 0 for b in range(n)]
        self._face = face
        counts = [len(stored_totals) for stored_totals, _ in self._slots]
        # below[i][p]: the values of all cards whose boxes i.. are as given (upper faces p among
        # them) and whose boxes below i are anything -- a card's offset sums these over its set bits
        below = [[0] * 64 for _ in range(n + 1)]
        below[0] = counts[:]
        for i in range(n):
            for p in range(64):
                with_i = p | (1 << (face[i] - 1)) if face[i] else p
                below[i + 1][p] = below[i][p] + below[i][with_i]
        self._below = below
        self._cards: dict[int, tuple[int, tuple[int, ...]]] = {}  # mask -> (offset, slot of each total)
        self._dense = None
        self._layout = None

    def _bits(self, mask: int) -> int:
        return sum(1 << (f - 1) for b, f in enumerate(self._face) if f and mask >> b & 1)

    def offset(self, mask: int) -> int:
        """Index of card ``mask``'s first stored value: the values of every card before it."""
        total, p = 0, 0
        for i in range(self.rules.n_boxes - 1, -1, -1):
            if mask >> i & 1:
                total += self._below[i][p]  # the cards with bit i clear, the bits above as in mask
                if self._face[i]:
                    p |= 1 << (self._face[i] - 1)
        return total

    def __getitem__(self, index) -> float:
        mask, u, f = index
        if not (0 <= mask < self.shape[0] and 0 <= u < self.shape[1] and f == 0):
            raise IndexError(f"index {index} is out of bounds for shape {self.shape}")
        if mask == self.rules.full_mask:
            return 0.0
        card = self._cards.get(mask)
        if card is None:  # a hint reads a few hundred cards, most of them several times
            card = self._cards[mask] = (self.offset(mask), self._slots[self._bits(mask)][1])
        slot = card[1][u]
        if slot < 0:
            return float("nan")
        at = card[0] + slot
        value = float(self.stored[at])
        if self._damaged is not None and not 2.0**-15 <= value < 2.0**17:  # NaN fails it too
            raise self._damaged(f"stored value {at} (card {mask}, upper total {u}) is impossible ({value!r})")
        return value

    def card_rows(self, masks) -> np.ndarray:
        """``(len(masks), upper_cap + 1)`` float64: the dense table's rows of the cards ``masks``
        (int64), read in place without unpacking the whole table (NaN where a total cannot
        occur; the full card 0.0) -- what a distribution from a late position reads: the cards
        still reachable from it, a few thousand.  With ``damaged``, every value read is
        range-checked as :meth:`__getitem__` checks it."""
        import numpy as np

        if self._layout is None:
            self._layout = _layout(self.rules)
        bits, offset = self._layout
        masks = np.asarray(masks, dtype=np.int64)
        slot = np.array([slot_of for _, slot_of in self._slots], dtype=np.int64)[bits[masks]]
        stored = np.asarray(self.stored)
        out = np.take(stored, offset[masks][:, None] + np.maximum(slot, 0), mode="clip").astype(np.float64)
        full = masks == self.rules.full_mask
        out[slot < 0] = np.nan
        out[full] = 0.0
        if self._damaged is not None:
            read = (slot >= 0) & ~full[:, None]
            bad = read & ~((out >= 2.0**-15) & (out < 2.0**17))
            if bad.any():
                i, u = (int(a[0]) for a in np.nonzero(bad))
                raise self._damaged(
                    f"a stored value of card {int(masks[i])}, upper total {u} is impossible ({float(out[i, u])!r})"
                )
        return out

    def __array__(self, dtype=None, copy=None):
        import numpy as np

        if self._dense is None:
            self._dense = unpack(self.rules, np.asarray(self.stored))
        return self._dense if dtype is None else self._dense.astype(dtype, copy=False)
