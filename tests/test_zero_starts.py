"""Self-play games started from corner positions (``dlgo.zero.starts``): sparse set-up
positions whose one fight is local, the kind of position life-and-death problems are."""

from __future__ import annotations

import numpy as np
import pytest
from test_compiled_search import EncodedProjectionEvaluator

from dlgo.gotypes import Player
from dlgo.search import PUCTAgent
from dlgo.sgf import read_game
from dlgo.zero.selfplay import SelfPlaySettings, play_game
from dlgo.zero.starts import corner_box, corner_start


@pytest.mark.parametrize("size", [9, 13, 19])
def test_corner_boxes_sit_in_a_corner_and_stay_small(size):
    rng = np.random.default_rng(size)
    for _ in range(50):
        box = corner_box(size, rng)
        rows = {p.row for p in box}
        cols = {p.col for p in box}
        assert 4 <= len(rows) <= min(6, size // 2 + 1) and 4 <= len(cols) <= min(6, size // 2 + 1)
        assert (1 in rows or size in rows) and (1 in cols or size in cols)
        assert len(box) == len(rows) * len(cols)


def test_a_corner_start_is_a_set_up_position_with_stones_in_one_corner_only():
    evaluator = EncodedProjectionEvaluator(9)
    movers = set()
    for seed in range(12):
        state = corner_start(evaluator, 9, 7.0, np.random.default_rng(seed))
        stones = dict(state.board.stones())
        assert len(stones) >= 4
        assert state.previous_state is None and state.last_move is None  # no history, as AB/AW
        rows = [p.row for p in stones]
        cols = [p.col for p in stones]
        assert max(rows) - min(rows) < 5 and max(cols) - min(cols) < 5
        for point in stones:  # a legal position: every string keeps a liberty
            assert state.board.get_go_string(point).num_liberties > 0
        movers.add(state.next_player)
    assert movers == {Player.black, Player.white}


def test_self_play_from_corner_starts_records_the_start_as_setup():
    agent = PUCTAgent(EncodedProjectionEvaluator(9), batch_size=8, seed=2, self_play=True)
    settings = SelfPlaySettings(
        board_size=9, full_visits=16, fast_visits=4, full_search_fraction=0.5, max_moves=30, corner_start_fraction=1.0
    )
    game = play_game(agent, settings, np.random.default_rng(6), resign_allowed=False)
    assert game.corner_start and game.summary()["corner_start"]
    record = read_game(game.sgf)
    start = record.initial_state
    assert len(dict(start.board.stones())) >= 4
    assert len(record.moves) == len(game.moves)
    assert len(game.experience) == game.full_searches
    plain = play_game(
        agent, SelfPlaySettings(board_size=9, full_visits=8, fast_visits=4, max_moves=6), np.random.default_rng(6)
    )
    assert not plain.corner_start


def test_komi_spread_varies_each_games_komi_and_the_network_sees_it():
    """``komi_spread``: each game's komi is komi plus a whole number in [-spread, spread], in its
    record, its count and every position's komi plane; 0 keeps every game at komi."""
    from dlgo.encoders.zero import KOMI_SCALE

    agent = PUCTAgent(EncodedProjectionEvaluator(9), batch_size=8, seed=2, self_play=True)
    seen = set()
    for seed in range(8):
        settings = SelfPlaySettings(board_size=9, full_visits=8, fast_visits=4, max_moves=6, komi_spread=3)
        game = play_game(agent, settings, np.random.default_rng(seed), resign_allowed=False)
        komi = read_game(game.sgf).initial_state.komi
        assert 4.0 <= komi <= 10.0 and komi == int(komi) and game.summary()["komi"] == komi
        seen.add(komi)
        planes = game.experience.states.astype(np.float32)[:, :, :, 14]
        magnitudes = np.unique(np.abs(planes))
        assert np.allclose(magnitudes, komi / KOMI_SCALE, atol=1e-3)  # float16 planes
    assert len(seen) >= 3
    plain = SelfPlaySettings(board_size=9, full_visits=8, fast_visits=4, max_moves=6)
    game = play_game(agent, plain, np.random.default_rng(0), resign_allowed=False)
    assert read_game(game.sgf).initial_state.komi == 7.0
    with pytest.raises(ValueError):
        SelfPlaySettings(komi_spread=-1)
