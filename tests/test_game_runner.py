"""The one game runner (dlgo.game_runner): the end of a game by the engine's rules (resign policy,
cleanup of dead stones before a pass, move cap, count), the hook every loop records through, and
gating on it (the engine's move selection and resign rule)."""

from __future__ import annotations

import dataclasses

import numpy as np

from dlgo.agent.termination import ResignPolicy
from dlgo.game_runner import AgentPlayer, EndPolicy, MoveEvent, play_game
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point


class Scripted:
    """Plays ``moves`` in turn (then passes), giving ``signal`` to the resign rule."""

    def __init__(self, moves: list[Move], signal: float | None = None) -> None:
        self.moves = list(moves)
        self.signal = signal
        self.selected = 0

    def evaluate(self, state: GameState, index: int) -> float | None:
        return self.signal

    def select(self, state: GameState, index: int) -> Move | None:
        self.selected += 1
        return self.moves.pop(0) if self.moves else Move.pass_turn()


def _plays(*points: tuple[int, int]) -> list[Move]:
    return [Move.play(Point(r, c)) for r, c in points]


def test_two_passes_end_the_game_and_the_count_is_by_area_with_every_stone_alive():
    events: list[MoveEvent] = []
    black, white = Scripted(_plays((3, 3))), Scripted([])
    outcome = play_game(black, white, GameState.new_game(5, komi=0.5), max_moves=50, on_move=events.append)
    assert outcome.reason == "score" and outcome.final_state.is_over()
    assert [e.index for e in events] == [0, 1, 2] and [e.mover for e in events] == [Player.black, Player.white] * 1 + [
        Player.black
    ]
    assert outcome.winner is Player.black and outcome.result_text == "B+24.5"


def test_the_move_cap_counts_the_position_it_stops_on():
    outcome = play_game(Scripted(_plays((1, 1), (1, 2))), Scripted(_plays((5, 5))), GameState.new_game(5), max_moves=2)
    assert outcome.reason == "move-limit" and len(outcome.moves) == 2 and not outcome.final_state.is_over()
    assert outcome.counted is not None


def test_resign_policy_needs_a_run_of_lost_moves_from_its_first_move():
    policy = ResignPolicy(threshold=-0.5, min_move=4, consecutive_moves=2)
    loser = Scripted(_plays((1, 1), (1, 3), (1, 5), (3, 1), (3, 3)), signal=-0.9)
    winner = Scripted(_plays((5, 1), (5, 3), (5, 5), (4, 2)), signal=0.9)
    events: list[MoveEvent] = []
    outcome = play_game(
        loser, winner, GameState.new_game(5), max_moves=50, end=EndPolicy(resign=policy), on_move=events.append
    )
    # Black moves 0, 2, 4, 6: lost from move 4 on; its second such move is move 6
    assert outcome.resigned is Player.black and outcome.reason == "resign" and outcome.result_text == "W+R"
    assert len(outcome.moves) == 6 and events[-1].move.is_resign and events[-1].lost
    assert loser.selected == 3  # the resigning move is never drawn
    played_out = play_game(
        Scripted(_plays((1, 1)), signal=-0.9), Scripted([], signal=0.9), GameState.new_game(5), max_moves=50,
        end=EndPolicy(resign=dataclasses.replace(policy, enabled=False)),
    )  # fmt: skip
    assert played_out.resigned is None and played_out.first_lost is None  # two passes before move 4
    long = play_game(
        Scripted(_plays((1, 1), (1, 3), (1, 5), (3, 1)), signal=-0.9), Scripted(_plays((5, 1), (5, 3), (5, 5))),
        GameState.new_game(5), max_moves=50, end=EndPolicy(resign=dataclasses.replace(policy, enabled=False)),
    )  # fmt: skip
    assert long.resigned is None and long.first_lost is Player.black and long.reason == "score"


def test_a_players_own_resignation_ends_the_game():
    outcome = play_game(Scripted([Move.resign()]), Scripted([]), GameState.new_game(5), max_moves=10)
    assert outcome.resigned is Player.black and outcome.winner is Player.white and outcome.moves == []


def test_a_pass_before_dead_stones_are_taken_becomes_a_capture():
    # White's two lone stones in Black's area are dead; Black would pass
    state = GameState.new_game(7, komi=0.5)
    for move in _plays((3, 3), (4, 4), (3, 5), (1, 1), (5, 3)) + [Move.pass_turn()] + _plays((5, 5)):
        state = state.apply_move(move)
    state = state.apply_move(Move.pass_turn())
    events: list[MoveEvent] = []
    outcome = play_game(
        Scripted([]), Scripted([]), state, max_moves=1, end=EndPolicy(cleanup_playouts=200), on_move=events.append
    )
    assert outcome.cleanup_moves == 1 and events[0].cleanup and events[0].move.is_play
    dead = state.board.get_go_string(Point(4, 4)).liberties | state.board.get_go_string(Point(1, 1)).liberties
    assert events[0].move.point in dead


def test_any_agent_plays_through_the_runner():
    from dlgo.agent.naive import RandomBot

    bot = AgentPlayer(RandomBot(seed=1))
    outcome = play_game(bot, bot, GameState.new_game(5), max_moves=None)
    assert outcome.final_state.is_over() and outcome.reason == "score" and outcome.result_text[0] in "BW0"


def test_gating_resigns_by_the_engines_resign_policy(monkeypatch):
    from dlgo.search.zero_agent import ZeroAgent
    from dlgo.zero import workers
    from dlgo.zero.workers import GatingTask, play_gating_task

    class BlackLost:
        def evaluate(self, states):
            n = states[0].board.num_rows * states[0].board.num_cols + 1
            p = np.full((len(states), n), 1.0 / (n - 1))
            p[:, -1] = 1e-6
            return p, np.array([-0.99 if s.next_player is Player.black else 0.99 for s in states])

    agent = ZeroAgent(BlackLost(), batch_size=4, seed=1, pipeline=False)
    monkeypatch.setattr(workers, "_agent", lambda *args, **kwargs: agent)
    resign = ResignPolicy(threshold=-0.95, min_move=6, consecutive_moves=2)
    task = GatingTask(0, 0, 3, None, None, 5, 0.5, 16, 2, resign=resign)
    game = play_gating_task(task)[1]
    # Black (the candidate) is lost from move 6 and resigns on its second lost move, move 8
    # (the old inline rule resigned on one move after 2 * size moves: move 12)
    assert game.result == "W+R" and game.moves == 8 and game.winner == -1 and game.candidate_black
