"""MCTS agent: search results, budgets, strength against RandomBot, pass and resign."""

from __future__ import annotations

import threading

import pytest

from dlgo.agent.naive import RandomBot
from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.mcts import MCTSAgent
from dlgo.search import SearchBudget


def play_game(black, white, size: int, komi: float = 7.5, max_moves: int = 400) -> GameState:
    game = GameState.new_game(size, komi=komi)
    agents = {Player.black: black, Player.white: white}
    while not game.is_over() and game.move_number < max_moves:
        move = agents[game.next_player].select_move(game)
        assert game.is_valid_move(move), f"illegal move {move} at move {game.move_number + 1}"
        game = game.apply_move(move)
    return game


def test_search_counts_every_round_and_reports_candidates():
    agent = MCTSAgent(seed=3)
    result = agent.search(GameState.new_game(5), SearchBudget(max_visits=500))
    assert result.visits == 500
    assert sum(c.visits for c in result.candidates) == 500
    assert all(0.0 <= c.winrate <= 1.0 and c.lcb <= c.winrate for c in result.candidates)
    visits = [c.visits for c in result.candidates]
    assert visits == sorted(visits, reverse=True)
    for cand in result.candidates:
        assert cand.pv[0] == cand.move


def test_search_stops_on_event_and_on_time():
    agent = MCTSAgent(seed=1)
    stop = threading.Event()
    stop.set()
    assert agent.search(GameState.new_game(9), SearchBudget(stop=stop)).visits <= 16
    result = agent.search(GameState.new_game(9), SearchBudget(max_seconds=0.2))
    # Stops on the clock, not on a visit count: it used the time and did not run on. The upper
    # bound is loose because CI machines are shared (a slow scheduler is not a search bug).
    assert 0.15 <= result.elapsed < 2.0
    assert result.visits > 100
    long = agent.search(GameState.new_game(9), SearchBudget(max_seconds=1.0))
    # It searched for its whole second (visit counts of the two searches are not compared: on a
    # loaded machine a short search can get more CPU than a long one).
    assert long.elapsed >= 0.95 and long.visits > 100


def test_progress_callback_is_called_during_long_search():
    seen = []
    agent = MCTSAgent(seed=1)
    # Kernels compiled first, the timed and reporting path's too: in a fresh clone (a cold numba
    # cache) the first search spent its whole budget compiling and reported once, and in a full
    # run a warm-up without the clock once left the timed search a single report.
    warm_up = SearchBudget(max_seconds=0.3)
    agent.search(GameState.new_game(9), warm_up, on_progress=lambda _: None, progress_interval=0.1)
    # 2 s: a full run once stalled this search for most of a 1 s budget (one report, at 0.97 s)
    agent.search(GameState.new_game(9), SearchBudget(max_seconds=2.0), on_progress=seen.append, progress_interval=0.1)
    assert len(seen) >= 2
    assert seen[-1].visits >= seen[0].visits


@pytest.mark.parametrize("size,rounds,games", [(5, 300, 4), (9, 400, 4)])
def test_beats_random_bot_clearly(size, rounds, games):
    wins = 0
    for i in range(games):
        mcts = MCTSAgent(num_rounds=rounds, seed=i)
        rand = RandomBot(seed=100 + i)
        mcts_color = Player.black if i % 2 == 0 else Player.white
        black, white = (mcts, rand) if mcts_color is Player.black else (rand, mcts)
        game = play_game(black, white, size, komi=0.5 if size == 5 else 7.5)
        wins += game.winner() == mcts_color
    assert wins == games


def _finished_position(to_move: Player) -> GameState:
    """9x9: black wall on E, white wall on F, a dead white stone at B2 and a dead black one at H5.

    Black 9 + 36 = 45 points, White 9 + 27 = 36 + 7.5 komi: B+1.5 once the dead stones are removed.
    """
    board = Board(9, 9)
    for row in range(1, 10):
        board.place_stone(Player.black, Point(row, 5))
        board.place_stone(Player.white, Point(row, 6))
    board.place_stone(Player.white, Point(2, 2))
    board.place_stone(Player.black, Point(5, 8))
    game = GameState.from_position(board, to_move.other, komi=7.5)
    return game.apply_move(Move.pass_turn())


def test_passes_after_opponent_pass_when_winning_the_count():
    game = _finished_position(Player.black)
    assert game.next_player is Player.black and game.last_move.is_pass
    assert MCTSAgent(num_rounds=200, seed=1).select_move(game).is_pass


def test_does_not_pass_into_a_lost_count():
    game = _finished_position(Player.white)
    assert game.next_player is Player.white
    assert not MCTSAgent(num_rounds=500, seed=1, resign_threshold=0.0).select_move(game).is_pass


def test_resigns_only_when_clearly_lost_and_late_enough():
    agent = MCTSAgent(num_rounds=10, seed=1, resign_threshold=0.1, resign_min_move=30)
    game = GameState.new_game(9)
    assert not agent._should_resign(game, 0.01)  # move 0: never
    for _ in range(40):
        game = game.apply_move(RandomBot(seed=game.move_number).select_move(game))
    assert agent._should_resign(game, 0.05)
    assert not agent._should_resign(game, 0.2)


def test_white_in_handicap_game_is_more_patient():
    from dlgo.handicap import fixed_handicap_points, handicap_game

    game = handicap_game(9, fixed_handicap_points(9, 4))
    for _ in range(40):
        game = game.apply_move(RandomBot(seed=game.move_number).select_move(game))
    assert game.next_player is Player.white
    agent = MCTSAgent(resign_threshold=0.1, handicap_resign_threshold=0.02, resign_min_move=10)
    assert not agent._should_resign(game, 0.05)
    assert agent._should_resign(game, 0.01)


def test_invalid_select_by_is_rejected():
    with pytest.raises(ValueError):
        MCTSAgent(select_by="best")
