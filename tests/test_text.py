"""solver.core.text: columns as a terminal counts them, and wrapping to columns."""

from __future__ import annotations

import textwrap

from hypothesis import given
from hypothesis import strategies as st

from solver.core.text import clip, columns, fill, pad

WORDS = st.lists(st.text("abcdefghij", min_size=1, max_size=14), min_size=1, max_size=30)


def test_wide_characters_take_two_columns_colour_codes_none():
    assert columns("Ann") == 3 and columns("山田") == 4 and columns("\x1b[1mAnn\x1b[0m") == 3
    assert columns("e\u0301") == 1  # a combining accent
    assert pad("山田", 6, ">") == "  山田" and pad("Ann", 5) == "Ann  "
    assert clip("山田太郎さん", 7) == "山田太~" and columns(clip("山田太郎さん", 7)) == 7
    assert clip("Ann", 3) == "Ann"


@given(WORDS, st.integers(10, 40), st.sampled_from([" ", "  ", "   "]))
def test_ascii_wraps_as_textwrap_does(words, width, sep):
    text = sep.join(words)
    assert fill(text, width, subsequent_indent="  ") == textwrap.fill(
        text, width, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
    )


@given(st.lists(st.sampled_from(["山田", "太郎さん", "Ann", "Bartholomew", "😀"]), min_size=1, max_size=30))
def test_wide_words_wrap_to_columns(words):
    for line in fill(" ".join(words), 20, subsequent_indent="  ").split("\n"):
        assert columns(line) <= 20
