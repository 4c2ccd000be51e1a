"""The count an ownership head implies, believed where it settles the game
(``dlgo.search.settled``, ``SearchSettings.settled_count``): the komi a value head trained at one
komi does not read, read from the board in both PUCT trees."""

from __future__ import annotations

import numpy as np
import pytest
from test_compiled_search import AuxProjectionEvaluator, EncodedAuxProjectionEvaluator

from dlgo.encoders.zero import PLANES
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.search import PUCTSearch, SearchBudget, SearchSettings
from dlgo.search.compiled import CompiledPUCTSearch
from dlgo.search.settled import mover_komi, settled_values

BLIND_VALUE = 0.4  # a value head that likes every position for the mover, whatever the komi


def test_a_count_that_holds_whatever_the_unsure_points_do_settles_the_leaf() -> None:
    ownership = np.array(
        [
            [1.0, 1.0, 1.0, -1.0, 0.2],  # mover 3, opponent 1, one unsure: +2 at best, +1 the worst
            [1.0, -1.0, -1.0, -1.0, 0.0],  # -2 and one unsure
            [1.0, 1.0, -1.0, -1.0, 0.5],  # 0 and one unsure: either way
        ]
    )
    values = np.array([0.1, 0.2, 0.3])
    komi = np.zeros(3)
    assert settled_values(values, ownership, komi, 0.9).tolist() == [1.0, -1.0, 0.3]
    # White to move at komi 1.5 gets +1.5: the third row is a sure win, the second no sure loss
    assert settled_values(values, ownership, mover_komi(1.5, np.array([True] * 3)), 0.9).tolist() == [1.0, 0.2, 1.0]
    # Black to move gives it: the first row's worst case, +1 - 1.5, is no longer sure
    assert settled_values(values, ownership, mover_komi(1.5, np.array([False] * 3)), 0.9).tolist() == [0.1, -1.0, -1.0]


def test_a_lower_threshold_counts_more_points_and_zero_turns_it_off() -> None:
    ownership = np.array([[0.6, 0.6, 0.6, -0.95]])
    assert settled_values(np.array([0.0]), ownership, np.zeros(1), 0.9).tolist() == [0.0]
    assert settled_values(np.array([0.0]), ownership, np.zeros(1), 0.5).tolist() == [1.0]
    assert settled_values(np.array([0.0]), ownership, np.zeros(1), 0.0).tolist() == [0.0]


def test_the_setting_is_a_share_of_ownership() -> None:
    with pytest.raises(ValueError):
        SearchSettings(settled_count=1.5)
    with pytest.raises(ValueError):
        SearchSettings(settled_count=-0.1)


def _area_ownership(planes: np.ndarray) -> np.ndarray:
    """A perfect ownership head for settled boards: stones are their owner's, an empty region is
    the one colour's that borders it, else nobody's (mover's view, +1 the mover's)."""
    mine, theirs = PLANES.index("own_stones"), PLANES.index("opponent_stones")
    out = np.zeros((len(planes), planes.shape[1] * planes.shape[2]), np.float32)
    for n, x in enumerate(planes):
        rows, cols = x.shape[:2]
        colour = np.where(x[:, :, mine] > 0, 1, np.where(x[:, :, theirs] > 0, -1, 0))
        owner = colour.astype(np.float32)
        seen = np.zeros((rows, cols), bool)
        for r0 in range(rows):
            for c0 in range(cols):
                if colour[r0, c0] or seen[r0, c0]:
                    continue
                region, borders, stack = [], set(), [(r0, c0)]
                seen[r0, c0] = True
                while stack:
                    r, c = stack.pop()
                    region.append((r, c))
                    for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                        if 0 <= rr < rows and 0 <= cc < cols:
                            if colour[rr, cc]:
                                borders.add(int(colour[rr, cc]))
                            elif not seen[rr, cc]:
                                seen[rr, cc] = True
                                stack.append((rr, cc))
                region_owner = borders.pop() if len(borders) == 1 else 0.0
                for r, c in region:
                    owner[r, c] = region_owner
        out[n] = owner.reshape(-1)
    return out


class _BlindPython(AuxProjectionEvaluator):
    def evaluate(self, states):
        n = len(states)
        return np.full((n, self.encoder.num_moves()), 1.0 / self.encoder.num_moves()), np.full(n, BLIND_VALUE)

    def aux(self, x):
        ownership = _area_ownership(np.asarray(x))
        return ownership, ownership.sum(axis=1)


class _BlindCompiled(EncodedAuxProjectionEvaluator):
    def _answer(self, planes):
        n, moves = len(planes), planes.shape[1] * planes.shape[2] + 1
        return np.full((n, moves), 1.0 / moves), np.full(n, BLIND_VALUE)

    def encoded_aux(self, planes):
        ownership = _area_ownership(np.asarray(planes))
        return ownership, ownership.sum(axis=1)


def _walls(komi: float) -> GameState:
    """5x5: Black's wall on the middle column, White's on the next; Black to move. Black owns 15
    points, White 10: Black wins by area at komi 4.5 and loses at 5.5."""
    state = GameState.new_game(5, komi=komi)
    for row in range(1, 6):
        state = state.apply_move(Move.play(Point(row, 3)))
        state = state.apply_move(Move.play(Point(row, 4)))
    assert state.next_player is Player.black
    return state


@pytest.mark.parametrize("tree", ["python", "compiled"])
def test_the_search_reads_the_komi_from_the_count_where_the_value_cannot(tree: str) -> None:
    def search(komi: float, settled: float):
        settings = SearchSettings(batch_size=4, early_stop=False, pipeline=False, settled_count=settled)
        if tree == "python":
            searcher = PUCTSearch(_BlindPython(5), settings)
        else:
            searcher = CompiledPUCTSearch(_BlindCompiled(5), settings)
        result = searcher.search(_walls(komi), SearchBudget(max_visits=40))
        return searcher.statistics().network_value, result.candidates

    # the root: a sure win at komi 4.5, a sure loss at 5.5; the value head alone says 0.4 to both
    assert search(4.5, 0.9)[0] == 1.0
    assert search(5.5, 0.9)[0] == -1.0
    assert search(4.5, 0.0)[0] == search(5.5, 0.0)[0] == pytest.approx(BLIND_VALUE)
    # the leaves: a move inside Black's own area keeps the count, a sure loss at komi 5.5
    inside = {Point(row, col) for row in range(1, 6) for col in (1, 2)}
    for settled, winrate in ((0.9, 0.0), (0.0, (1 - BLIND_VALUE) / 2)):
        looked_at_once = [c for c in search(5.5, settled)[1] if c.visits == 1 and c.move.point in inside]
        assert len(looked_at_once) >= 5
        assert all(c.winrate == pytest.approx(winrate) for c in looked_at_once)
