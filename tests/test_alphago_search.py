"""AlphaGo-style search (dlgo.alphago): fast rollouts, the leaf value mix, signs per ply, tree
reuse, and the agent on tiny policy and value networks through the GTP engine."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import position

from dlgo.alphago import AlphaGoEvaluator, AlphaGoMCTS, rollout_value
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.playout import kernel
from dlgo.playout.tactics import big_self_atari, urgent_move
from dlgo.search import SearchBudget


class UniformPolicy:
    """Policy over the points only, like the AlphaGo policy network (no pass output)."""

    def __init__(self) -> None:
        self.calls = 0

    def policy(self, states):
        self.calls += 1
        n = states[0].board.num_rows * states[0].board.num_cols
        return np.full((len(states), n), 1.0 / n)


class MaterialValue:
    def value(self, states):
        out = []
        for s in states:
            stones = [c for _, c in s.board.stones()]
            own = sum(1 for c in stones if c is s.next_player)
            out.append(math.tanh(0.3 * (own - (len(stones) - own))))
        return np.array(out)


class FixedValue:
    def __init__(self, v: float) -> None:
        self.v = v

    def value(self, states):
        return np.full(len(states), self.v)


# Black walls off columns 1-4 of a 5x5 board: 20 points against 5.
BLACK_WALL = [(r, 4) for r in range(1, 6)]
WHITE_WALL = [(r, 5) for r in range(1, 6)]


# --- rollouts -------------------------------------------------------------------------------------


# Black fills the board but for four one-point eyes: White cannot play, Black will not fill its eyes.
EYES = {(1, 1), (3, 3), (5, 5), (1, 5)}
BLACK_EVERYWHERE = [(r, c) for r in range(1, 6) for c in range(1, 6) if (r, c) not in EYES]


def test_rollouts_are_seen_from_the_leaf_player():
    kernel.seed(1)
    black_to_move = position(5, BLACK_EVERYWHERE, [], Player.black)
    white_to_move = position(5, BLACK_EVERYWHERE, [], Player.white)
    for policy in ("fast", "random"):
        assert rollout_value(black_to_move, policy=policy, count=20) == 1.0
        assert rollout_value(white_to_move, policy=policy, count=20) == -1.0
    # Cut short before the game ends: undecided (the book's 0).
    assert rollout_value(GameState.new_game(9), max_moves=3) == 0.0


def test_fast_rollout_captures_and_escapes_first():
    # White B1 between Black A1 and B2 has one liberty left, C1.
    state = position(5, [(1, 1), (2, 2)], [(1, 2)], Player.black)
    board = state.board
    colors = np.frombuffer(board.padded_colors, dtype=np.int8).copy()
    w = board.geometry.width
    n = colors.shape[0]
    head, nxt, libs, size, empties, epos = kernel.work_arrays(n)
    kernel.init_strings(colors, w, head, nxt, libs, size, empties, epos)
    last = board.geometry.index(Point(1, 2))  # as if White just played B1
    capture = urgent_move(colors, w, head, nxt, libs, last, Player.black.value, 0)
    assert capture == board.geometry.index(Point(1, 3))
    # White to move: its B1 stone is in atari, and so is Black's A1 beside it: taking A1 (at A2)
    # saves B1 better than running.
    escape = urgent_move(colors, w, head, nxt, libs, board.geometry.index(Point(2, 2)), Player.white.value, 0)
    assert escape == board.geometry.index(Point(2, 1))


def test_fast_rollout_extends_out_of_atari_with_room():
    # White B1 in atari (liberty C1) beside Black's A1-A2-B2, which has three liberties: extend.
    state = position(5, [(1, 1), (2, 1), (2, 2)], [(1, 2)], Player.white)
    board = state.board
    colors = np.frombuffer(board.padded_colors, dtype=np.int8).copy()
    w = board.geometry.width
    head, nxt, libs, size, empties, epos = kernel.work_arrays(colors.shape[0])
    kernel.init_strings(colors, w, head, nxt, libs, size, empties, epos)
    escape = urgent_move(colors, w, head, nxt, libs, board.geometry.index(Point(2, 2)), Player.white.value, 0)
    assert escape == board.geometry.index(Point(1, 3))


def _kernel_strings(state):
    board = state.board
    colors = np.frombuffer(board.padded_colors, dtype=np.int8).copy()
    work = kernel.work_arrays(colors.shape[0])
    kernel.init_strings(colors, board.geometry.width, *work)
    return colors, work


def test_big_self_atari_is_refused_but_a_small_one_is_not():
    # White's eleven stones A2-F2, B1-F1 have two liberties, A1 and G1 (Black walls them in).
    white = [(2, c) for c in range(1, 7)] + [(1, c) for c in range(2, 7)]
    black = [(3, c) for c in range(1, 8)] + [(2, 7), (1, 8)]
    state = position(9, black, white, Player.white)
    colors, (head, nxt, libs, size, empties, epos) = _kernel_strings(state)
    w = state.board.geometry.width
    for vertex in (Point(1, 1), Point(1, 7)):  # either fill leaves twelve stones in atari
        p = state.board.geometry.index(vertex)
        assert big_self_atari(colors, w, head, nxt, libs, size, p, Player.white.value)
    # Black's G1 joins its wall: no atari at all.
    g1 = state.board.geometry.index(Point(1, 7))
    assert not big_self_atari(colors, w, head, nxt, libs, size, g1, Player.black.value)
    # Two stones in atari (nakade size) are allowed: White E5 extends to D5, liberty C5 only.
    small = position(9, [(6, 5), (5, 6), (4, 5), (6, 4), (4, 4)], [(5, 5)], Player.white)
    colors, (head, nxt, libs, size, empties, epos) = _kernel_strings(small)
    d5 = small.board.geometry.index(Point(5, 4))
    assert not big_self_atari(colors, small.board.geometry.width, head, nxt, libs, size, d5, 2)
    # A move that captures is no self-atari: Black's A1-F1 takes White H1 at G1 (its last liberty).
    black = [(1, c) for c in range(1, 7)] + [(1, 9), (2, 8)]
    white = [(2, c) for c in range(1, 8)] + [(1, 8)]
    taken = position(9, black, white, Player.black)
    colors, (head, nxt, libs, size, empties, epos) = _kernel_strings(taken)
    g1 = taken.board.geometry.index(Point(1, 7))
    assert not big_self_atari(colors, taken.board.geometry.width, head, nxt, libs, size, g1, 1)


# --- the leaf value ---------------------------------------------------------------------------------


def test_leaf_value_mixes_value_network_and_rollouts():
    won = position(5, BLACK_EVERYWHERE, [], Player.black)
    states = [won, won]
    only_net = AlphaGoEvaluator(UniformPolicy(), FixedValue(-0.4), lambda_value=1.0)
    assert only_net.evaluate(states)[1].tolist() == pytest.approx([-0.4, -0.4])
    assert only_net.rollouts_played == 0
    only_rollouts = AlphaGoEvaluator(UniformPolicy(), None, lambda_value=0.5, rollouts=20)
    assert only_rollouts.lambda_value == 0.0
    assert only_rollouts.evaluate(states)[1].tolist() == [1.0, 1.0]
    mixed = AlphaGoEvaluator(UniformPolicy(), FixedValue(-0.4), lambda_value=0.5, rollouts=3)
    assert mixed.evaluate(states)[1].tolist() == pytest.approx([0.3, 0.3])  # 0.5 * -0.4 + 0.5 * 1
    assert mixed.rollouts_played == 6
    lost = position(5, BLACK_EVERYWHERE, [], Player.white)
    assert mixed.evaluate([lost])[1].tolist() == pytest.approx([-0.7])  # 0.5 * -0.4 + 0.5 * -1
    with pytest.raises(ValueError):
        AlphaGoEvaluator(UniformPolicy(), FixedValue(0.0), lambda_value=1.5)


def test_pass_gets_the_prior_of_an_average_move():
    state = position(5, BLACK_WALL, WHITE_WALL, Player.black)
    priors = AlphaGoEvaluator(UniformPolicy(), FixedValue(0.0), 1.0).priors([state])
    assert priors.shape == (1, 26)
    assert priors[0, 25] == pytest.approx(1.0 / (15 + 1))  # 15 empty points


# --- the search -------------------------------------------------------------------------------------


def test_search_takes_the_capture_and_reuses_its_tree():
    # White's three stones on the first line have one liberty left (D1).
    state = position(5, [(2, 1), (2, 2), (2, 3), (3, 4)], [(1, 1), (1, 2), (1, 3)], Player.black)
    policy = UniformPolicy()
    agent = AlphaGoMCTS(AlphaGoEvaluator(policy, MaterialValue(), lambda_value=1.0), num_simulations=300, seed=3)
    result = agent.search(state, SearchBudget(max_visits=300))
    assert result.best.move == Move.play(Point(1, 4)) and result.best.winrate > 0.6
    assert agent.settings.exploration == 5.0 and agent.num_simulations == agent.settings.rounds == 300
    after = state.apply_move(result.best.move)
    again = agent.search(after, SearchBudget(max_visits=1))
    assert again.visits == result.best.visits  # the subtree of the move played was kept
    calls = policy.calls
    move = agent.select_move(after)
    assert after.is_valid_move(move) and policy.calls > calls


def test_rollout_only_search_finds_the_won_pass():
    # White passed; Black leads by area (komi 0.5): passing wins at once, and rollouts agree.
    state = position(5, BLACK_WALL, WHITE_WALL, Player.white, komi=0.5).apply_move(Move.pass_turn())
    agent = AlphaGoMCTS(AlphaGoEvaluator(UniformPolicy(), None, rollouts=2), seed=4)
    result = agent.search(state, SearchBudget(max_visits=200))
    by_move = {c.move: c for c in result.candidates}
    assert by_move[Move.pass_turn()].winrate == 1.0
    assert result.winrate > 0.7


# --- tiny real networks -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_alphago(tmp_path_factory):
    pytest.importorskip("keras")
    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import save_model
    from dlgo.networks.alphago import policy_network, value_network

    folder = tmp_path_factory.mktemp("alphago")
    enc_p = get_encoder_by_name("alphago", 9)
    enc_v = get_encoder_by_name("alphago_value", 9)
    save_model(policy_network((None, None, enc_p.num_planes), num_filters=4), folder / "policy.keras", enc_p, [9])
    save_model(value_network(enc_v.shape(), num_filters=4), folder / "value.keras", enc_v, [9])
    return folder / "policy.keras", folder / "value.keras"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_engine_plays_with_the_alphago_agent(tiny_alphago):
    from gtp_client import InProcessEngine

    policy, value = tiny_alphago
    eng = InProcessEngine(
        "agent=alphago",
        f"alphago.policy_model={policy}",
        f"alphago.value_model={value}",
        "alphago.rounds=40",
        "engine.board_size=9",
        "time.default_seconds=0",  # visits only: the first move waits for the agent to be built
        config=None,
    )
    try:
        move = eng.ok("genmove b")
        assert move and move not in ("resign", "pass")
        explained = eng.ok("gomill-explain_last_move")
        assert "visits" in explained
        eng.ok("play w e5" if move.lower() != "e5" else "play w d4")
        assert eng.ok("genmove b")
    finally:
        eng.close()
