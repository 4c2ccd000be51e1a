"""Game-tree search (book chapter 4): minimax solves tic-tac-toe, depth pruning and alpha-beta
agree on Go positions and alpha-beta visits fewer of them, and every agent plays legal moves."""

from __future__ import annotations

import json
import random

import pytest

from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.minimax import (
    MAX_SCORE,
    MIN_SCORE,
    AlphaBetaAgent,
    DepthPrunedAgent,
    MinimaxAgent,
    MinimaxResult,
    SearchStats,
    alpha_beta_result,
    best_result,
    build_agent,
    capture_diff,
    depth_pruned_result,
    supports_size,
)
from dlgo.minimax.minimax import reverse_game_result
from dlgo.minimax.nodes import main as nodes_main
from dlgo.minimax.nodes import parse_depths, random_position
from dlgo.minimax.scores import terminal_score
from dlgo.ttt import GameState as TttState
from dlgo.ttt import Player as TttPlayer

B, W = Player.black, Player.white


@pytest.fixture(scope="module")
def ttt_memo() -> dict:
    """Solved tic-tac-toe positions, shared so the tree is searched once for the module."""
    memo: dict = {}
    best_result(TttState.new_game(), memo)
    return memo


def minimax_agent(memo: dict, seed: int) -> MinimaxAgent:
    agent = MinimaxAgent(seed=seed)
    agent._memo = memo  # the same solved positions; a fresh agent would solve them again
    return agent


def play_out(state: TttState, agents: dict) -> TttState:
    while not state.is_over():
        move = agents[state.next_player].select_move(state)
        assert state.is_valid_move(move)
        state = state.apply_move(move)
    return state


class RandomTttPlayer:
    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def select_move(self, state: TttState):
        return self._rng.choice(state.legal_moves())


# --- full-tree minimax on tic-tac-toe (book 4.3) ---------------------------------------------
def test_reverse_game_result_and_ordering():
    assert reverse_game_result(MinimaxResult.win) is MinimaxResult.loss
    assert reverse_game_result(MinimaxResult.loss) is MinimaxResult.win
    assert reverse_game_result(MinimaxResult.draw) is MinimaxResult.draw
    assert MinimaxResult.loss.value < MinimaxResult.draw.value < MinimaxResult.win.value


def test_tic_tac_toe_is_a_draw_and_memo_agrees_with_the_plain_search(ttt_memo):
    assert ttt_memo[TttState.new_game()] is MinimaxResult.draw
    # A few plies in, the unmemoized search (small here) gives the same results.
    rng = random.Random(3)
    for _ in range(20):
        state = TttState.new_game()
        for _ in range(rng.randint(2, 6)):
            if state.is_over():
                break
            state = state.apply_move(rng.choice(state.legal_moves()))
        assert best_result(state) is ttt_memo.get(state, best_result(state, {}))


def test_best_result_sees_a_win_in_one_and_a_forced_loss():
    from dlgo.ttt import Move as TttMove
    from dlgo.ttt import Point as TttPoint

    state = TttState.new_game()
    for row, col in [(1, 1), (2, 1), (1, 2), (2, 2)]:
        state = state.apply_move(TttMove(TttPoint(row, col)))
    assert best_result(state) is MinimaxResult.win  # x completes the bottom row
    agent = MinimaxAgent(seed=0)
    assert agent.select_move(state) == TttMove(TttPoint(1, 3))
    assert agent.diagnostics()["result"] == "win"
    # x threatens both the bottom row and the diagonal: o to move has lost.
    state = TttState.new_game()
    for row, col in [(1, 1), (2, 1), (2, 2), (3, 2), (1, 2)]:
        state = state.apply_move(TttMove(TttPoint(row, col)))
    assert best_result(state) is MinimaxResult.loss


@pytest.mark.parametrize("minimax_plays", [TttPlayer.x, TttPlayer.o])
def test_minimax_never_loses_to_a_random_player(ttt_memo, minimax_plays):
    results = {"win": 0, "draw": 0}
    for game in range(100):
        agents = {minimax_plays: minimax_agent(ttt_memo, game), minimax_plays.other: RandomTttPlayer(1000 + game)}
        winner = play_out(TttState.new_game(), agents).winner()
        assert winner in (None, minimax_plays), f"game {game}: minimax lost as {minimax_plays.name}"
        results["draw" if winner is None else "win"] += 1
    assert results["win"] > 50  # a random player blunders; minimax takes the win


def test_minimax_draws_against_itself_after_every_first_move(ttt_memo):
    for opening in TttState.new_game().legal_moves():
        for seed in range(3):
            agents = {TttPlayer.x: minimax_agent(ttt_memo, seed), TttPlayer.o: minimax_agent(ttt_memo, seed + 10)}
            final = play_out(TttState.new_game().apply_move(opening), agents)
            assert final.winner() is None, f"after {opening} one side lost"


@pytest.mark.parametrize("minimax_plays", [TttPlayer.x, TttPlayer.o])
def test_minimax_never_loses_whatever_the_opponent_plays(ttt_memo, minimax_plays):
    """Every line of opponent moves against the agent's replies: no loss anywhere."""
    agent = minimax_agent(ttt_memo, 7)
    games = 0

    def explore(state: TttState) -> None:
        nonlocal games
        if state.is_over():
            assert state.winner() in (None, minimax_plays)
            games += 1
        elif state.next_player == minimax_plays:
            explore(state.apply_move(agent.select_move(state)))
        else:
            for move in state.legal_moves():
                explore(state.apply_move(move))

    explore(TttState.new_game())
    assert games > 50


def test_minimax_agent_counts_nodes_and_refuses_a_finished_game():
    agent = MinimaxAgent(seed=1, memoize=False)
    state = TttState.new_game()
    for move in state.legal_moves()[:2]:  # not from the empty board: unmemoized, that takes seconds
        state = state.apply_move(move)
    for _ in range(3):
        state = state.apply_move(agent.select_move(state))
    assert agent.nodes > 0
    with pytest.raises(ValueError):
        agent.select_move(play_out(state, {TttPlayer.x: agent, TttPlayer.o: agent}))


# --- depth pruning and alpha-beta on Go (book 4.4) -----------------------------------------
def go_position(diagram: str, to_move: Player = B, komi: float = 0.5) -> GameState:
    """A position from a diagram, top row first: ``X`` black, ``O`` white, ``.`` empty."""
    rows = [line.replace(" ", "") for line in diagram.strip().splitlines()]
    board = Board(len(rows), len(rows[0]))
    for i, line in enumerate(rows):
        for col, ch in enumerate(line, start=1):
            if ch in "XO":
                board.place_stone(B if ch == "X" else W, Point(len(rows) - i, col))
    return GameState.from_position(board, to_move, komi)


ATARI = """
.....
..X..
.XO..
..X..
.....
"""


def test_capture_diff_is_stones_from_the_view_of_the_player_to_move():
    assert capture_diff(go_position(ATARI, B)) == 2
    assert capture_diff(go_position(ATARI, W)) == -2
    assert capture_diff(GameState.new_game(5)) == 0


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("agent_class", [DepthPrunedAgent, AlphaBetaAgent])
def test_agent_captures_a_stone_in_atari(agent_class, depth):
    state = go_position(ATARI, B)
    capture = Move.play(Point(3, 4))
    best, value = agent_class(depth, capture_diff, seed=0).best_moves(state)
    assert capture in best
    if depth <= 2:
        assert best == [capture]
    assert agent_class(depth, seed=5).select_move(state) in best


def test_terminal_positions_score_a_win_or_a_loss():
    state = GameState.new_game(5, komi=0.5).apply_move(Move.pass_turn()).apply_move(Move.pass_turn())
    assert state.is_over() and state.winner() is W and state.next_player is B
    assert terminal_score(state) == MIN_SCORE
    assert depth_pruned_result(state, 3, capture_diff) == MIN_SCORE
    assert alpha_beta_result(state, 3, MIN_SCORE, MIN_SCORE, capture_diff) == MIN_SCORE
    # White to move after black passed: passing ends the game on the komi, which depth 1 sees.
    state = GameState.new_game(5, komi=0.5).apply_move(Move.pass_turn())
    assert DepthPrunedAgent(1, seed=0).best_moves(state) == ([Move.pass_turn()], MAX_SCORE)


POSITIONS = [(seed, moves) for seed, moves in [(0, 4), (1, 8), (2, 12), (3, 16)]]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alpha_beta_gives_the_minimax_value_with_fewer_nodes(depth):
    mm_total = ab_total = 0
    for seed, moves in POSITIONS:
        state = random_position(5, moves, seed)
        mm, ab = SearchStats(), SearchStats()
        mm_value = depth_pruned_result(state, depth, capture_diff, mm)
        ab_value = alpha_beta_result(state, depth, MIN_SCORE, MIN_SCORE, capture_diff, ab)
        assert ab_value == mm_value, f"position {seed}/{moves} at depth {depth}"
        assert ab.nodes <= mm.nodes
        mm_total += mm.nodes
        ab_total += ab.nodes
    if depth >= 2:
        assert ab_total < mm_total / 2


@pytest.mark.parametrize("depth", [1, 2])
def test_both_agents_choose_among_the_same_moves(depth):
    for seed, moves in POSITIONS:
        state = random_position(5, moves, seed)
        minimax = DepthPrunedAgent(depth, seed=0)
        alphabeta = AlphaBetaAgent(depth, seed=0)
        assert alphabeta.best_moves(state) == minimax.best_moves(state)
        if depth >= 2:
            assert alphabeta.nodes < minimax.nodes


def test_both_agents_choose_among_the_same_moves_at_depth_3():
    state = random_position(5, 14, 5)
    assert AlphaBetaAgent(3).best_moves(state) == DepthPrunedAgent(3).best_moves(state)


@pytest.mark.parametrize("name", ["minimax", "alphabeta"])
def test_agents_play_legal_moves_through_a_game(name):
    agents = {B: build_agent(name, depth=2, seed=1), W: build_agent(name, depth=1, seed=2)}
    state = GameState.new_game(4, komi=0.5)
    for _ in range(30):
        if state.is_over():
            break
        move = agents[state.next_player].select_move(state)
        assert state.is_valid_move(move), f"{name} played {move}"
        assert agents[state.next_player.other].diagnostics().keys() >= {"nodes"}
        state = state.apply_move(move)


def test_a_seed_makes_the_choice_reproducible():
    state = random_position(5, 6, 4)
    for name in ("minimax", "alphabeta"):
        moves = [build_agent(name, depth=1, seed=9).select_move(state) for _ in range(3)]
        assert moves[0] == moves[1] == moves[2]
    spread = {DepthPrunedAgent(1, seed=s).select_move(GameState.new_game(5)) for s in range(10)}
    assert len(spread) > 1  # on the empty board every move ties, so seeds pick differently


def test_build_agent_checks_its_arguments():
    assert isinstance(build_agent("minimax", 2, 0), DepthPrunedAgent)
    assert isinstance(build_agent("alphabeta", 3, None), AlphaBetaAgent)
    assert build_agent("alphabeta", 3).max_depth == 3
    with pytest.raises(ValueError):
        build_agent("minimax", 0)
    with pytest.raises(ValueError):
        build_agent("alphabeta", 9)
    with pytest.raises(ValueError):
        build_agent("mcts", 2)
    with pytest.raises(ValueError):
        DepthPrunedAgent(0)
    assert supports_size(5) and supports_size(7) and not supports_size(9)


# --- the benchmark command -------------------------------------------------------------------
def test_parse_depths():
    assert parse_depths("1-4") == [1, 2, 3, 4]
    assert parse_depths("2") == [2]
    assert parse_depths("1,3") == [1, 3]


def test_nodes_command_prints_json_and_a_table(capsys):
    assert nodes_main(["--size", "4", "--depths", "1-2", "--positions", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [row["depth"] for row in result["rows"]] == [1, 2]
    depth2 = result["rows"][1]
    assert depth2["alphabeta_nodes"] < depth2["minimax_nodes"]
    assert nodes_main(["--size", "4", "--depths", "1", "--positions", "1"]) == 0
    assert "| depth | minimax nodes |" in capsys.readouterr().out


def test_the_engine_plays_the_game_tree_agents_on_small_boards_only():
    """Through the agent registry: both agents answer genmove on 5x5 and refuse 9x9 as a size."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for name in ("minimax", "alphabeta"):
        out = subprocess.run(
            [sys.executable, "-m", "gtp_engine", "--config", "configs/engine/mcts.toml", "--set", f"agent={name}"],
            input="boardsize 5\nclear_board\ngenmove b\ngenmove w\nboardsize 9\nquit\n",
            capture_output=True,
            text=True,
            cwd=root,
            timeout=120,
        ).stdout
        answers = [a.strip() for a in out.split("\n\n") if a.strip()]
        assert answers[0] == "=" and answers[1] == "="
        assert answers[2].startswith("= ") and answers[2][2:] not in ("pass", "resign")
        assert answers[3].startswith("= ") and answers[3] != answers[2]
        assert answers[4] == "? unacceptable size"
