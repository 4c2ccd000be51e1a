"""The ladder reader answers exactly as the reader it replaced, plane for plane.

``tests/data/ladder_golden.npz`` holds the earlier reader's answers (``dlgo/encoders/ladder.py``
before its one-workspace rewrite, commit e09588a) on every position of seeded random games:
7x7 (30 games), 9x9 (20), 13x13 (4) and 19x19 (6), with a pass now and then so both colours
read. Per size: the padded int8 boards, the colour to move and the three ladder planes (bit
packed); for 9x9 also every single read of a string with one or two liberties, defender first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dlgo.encoders import kernels as K
from dlgo.encoders import ladder
from dlgo.encoders.features import zobrist_array
from dlgo.goboard import GameState

GOLDEN = np.load(Path(__file__).parent / "data" / "ladder_golden.npz")


def _positions(size: int):
    """(colors, width, colour to move, chain label, liberties, legal) of each stored position."""
    width = GameState.new_game(size).board.geometry.width
    zob, _ = zobrist_array(size, size)
    for colors, color in zip(GOLDEN[f"colors_{size}"], GOLDEN[f"to_move_{size}"], strict=True):
        colors = colors.copy()
        info, _ = K.analyse(colors, width, int(color), zob, np.uint64(0), False)
        yield colors, width, int(color), info[0], info[2], info[4]


@pytest.mark.parametrize("size", [7, 9, 13, pytest.param(19, marks=pytest.mark.slow)])
def test_ladder_features_equal_the_earlier_reader(size: int) -> None:
    expected = GOLDEN[f"planes_{size}"]
    reads = 0
    for i, args in enumerate(_positions(size)):
        new = ladder.ladder_features(*args, True, True)
        assert set(np.unique(new)) <= {0, 1}
        old = np.unpackbits(expected[i], count=new.size).reshape(new.shape)
        assert np.array_equal(new, old), f"position {i}"
        reads += int(old.any())
    assert reads > len(expected) // 10  # the games reached positions with ladder planes set


def test_single_reads_equal_the_earlier_reader() -> None:
    found = []
    for colors, w, _, label, libs, _ in _positions(9):
        for r in np.flatnonzero((label == np.arange(len(label))) & (libs <= 2)):
            for attacker in (False, True):
                found.append(bool(ladder.ladder_captured(colors, w, int(r), attacker)))
    expected = GOLDEN["captured_9"]
    assert len(found) == len(expected) and np.any(expected)
    assert np.array_equal(np.array(found), expected)
