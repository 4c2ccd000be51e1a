"""The end-of-game policy (``dlgo.agent.termination``): handicap games, resigning, passing, cleanup."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from dlgo.agent.settling import settling_moves
from dlgo.agent.termination import (
    EndOfGamePolicy,
    ResignPolicy,
    capture_in_atari,
    cleanup_move,
    clear_pass_or_best_play,
    decide_after_search,
    is_handicap_game,
    pass_when_opponent_passed,
    resign_score_lead,
    resign_signal,
    settle_after_pass,
)
from dlgo.deadstones import GroupStatus, count
from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.handicap import fixed_handicap_points, handicap_game
from dlgo.mcts import MCTSAgent
from dlgo.play.game import position_for
from dlgo.scoring import GameResult
from dlgo.search import CandidateInfo, SearchResult
from dlgo.zero.selfplay import SelfPlaySettings


def _setup(black: list[tuple[int, int]], white: list[tuple[int, int]], to_move: Player) -> GameState:
    board = Board(9, 9)
    for r, c in black:
        board.place_stone(Player.black, Point(r, c))
    for r, c in white:
        board.place_stone(Player.white, Point(r, c))
    return GameState.from_position(board, to_move, komi=0.5)


# --- the one handicap-game test -----------------------------------------------------------------


def test_a_handicap_game_is_white_to_move_on_two_or_more_black_stones() -> None:
    assert is_handicap_game(handicap_game(9, fixed_handicap_points(9, 2)))
    assert is_handicap_game(_setup([(3, 3), (7, 7)], [], Player.white))
    assert not is_handicap_game(GameState.new_game(9))
    assert not is_handicap_game(_setup([(3, 3)], [], Player.white))  # one stone: a setup position
    assert not is_handicap_game(_setup([(3, 3), (7, 7)], [(5, 5)], Player.white))  # White stones too
    assert not is_handicap_game(_setup([(3, 3), (7, 7)], [], Player.black))  # Black to move


def test_black_moves_before_whites_first_are_a_handicap_game() -> None:
    """gtp2ogs sends OGS's fixed handicap as ``play black`` moves on an empty board; two or more
    before White's first make a handicap game for the rest of the line, one does not."""
    game = GameState.new_game(9).apply_move(Move.play(Point(3, 3)))
    assert not is_handicap_game(game)
    assert not is_handicap_game(game.apply_move(Move.play(Point(5, 5))))  # an even game's reply
    black_again = position_for(game, Player.black).apply_move(Move.play(Point(7, 7)))
    assert is_handicap_game(black_again) and black_again.next_player is Player.white
    later = black_again.apply_move(Move.play(Point(5, 5))).apply_move(Move.play(Point(4, 4)))
    assert is_handicap_game(later)


def test_a_handicap_game_stays_one_for_the_whole_game_line() -> None:
    game = handicap_game(9, fixed_handicap_points(9, 4))
    for move in (Move.play(Point(5, 5)), Move.play(Point(4, 6)), Move.pass_turn()):
        game = game.apply_move(move)
        assert is_handicap_game(game)


def test_engine_and_mcts_agree_on_a_one_stone_setup() -> None:
    """MCTSAgent once took any setup with White to move for a handicap game; the engine's
    definition (two or more Black stones) is the one rule now."""
    game = _setup([(3, 3)], [], Player.white)
    for _ in range(40):
        game = game.apply_move(_first_play(game))
    assert game.next_player is Player.white and game.move_number == 40
    agent = MCTSAgent(resign_threshold=0.1, handicap_resign_threshold=0.02, resign_min_move=10)
    assert agent._should_resign(game, 0.05)  # the ordinary threshold: not a handicap game


def _first_play(game: GameState) -> Move:
    board = game.board
    return next(
        Move.play(Point(r, c))
        for r in range(1, board.num_rows + 1)
        for c in range(1, board.num_cols + 1)
        if game.is_valid_move(Move.play(Point(r, c)))
    )


# --- resigning ----------------------------------------------------------------------------------


def test_first_resign_move_is_a_quarter_of_the_board_and_half_for_white_in_handicap() -> None:
    policy = ResignPolicy()
    assert policy.first_move_for(GameState.new_game(9)) == 20
    assert policy.first_move_for(GameState.new_game(19)) == 90
    handicap = handicap_game(9, fixed_handicap_points(9, 2))
    assert policy.first_move_for(handicap) == 40
    assert policy.threshold_for(handicap) == pytest.approx(0.02)
    assert ResignPolicy(min_move=50).first_move_for(handicap) == 50  # the later of the two
    assert ResignPolicy(handicap_min_move=30).first_move_for(handicap) == 30
    assert ResignPolicy(min_move=0).first_move_for(GameState.new_game(9)) == 0
    assert ResignPolicy(threshold=0.01, handicap_threshold=0.02).threshold_for(handicap) == pytest.approx(0.01)
    black_to_move = handicap.apply_move(Move.play(Point(5, 5)))
    assert policy.threshold_for(black_to_move) == pytest.approx(0.1)  # Black is not the patient one


def _lost(value, previous, state: GameState | None = None, move_number: int = 80, **settings) -> bool:
    return ResignPolicy(**settings).should_resign(state or GameState.new_game(9), move_number, value, previous)


def test_resigns_only_after_consecutive_lost_moves() -> None:
    assert ResignPolicy().consecutive_moves == 3
    assert not _lost(0.05, [])
    assert not _lost(0.05, [0.05])  # two lost moves in a row: not yet
    assert _lost(0.05, [0.05, 0.04])  # the third one resigns
    assert _lost(0.05, [0.05, 0.04, 0.9])  # only the last two count
    assert not _lost(0.05, [0.05, 0.5])  # a hopeful move in between resets the run
    assert not _lost(0.05, [0.5, 0.05])
    assert not _lost(0.05, [None, 0.05])  # a move with no search of its own breaks it
    assert not _lost(0.5, [0.05, 0.05])  # this move must be lost too
    assert not _lost(None, [0.05, 0.05])  # and backed by a real search
    assert _lost(0.05, [0.05, 0.05, 0.05], consecutive_moves=4)
    assert not _lost(0.05, [0.05, 0.05], consecutive_moves=4)
    assert not _lost(0.05, [0.05, 0.05], enabled=False)
    assert ResignPolicy(enabled=False).is_lost(GameState.new_game(9), 80, 0.05, [0.05, 0.05])


def test_one_consecutive_move_resigns_on_a_single_search() -> None:
    assert _lost(0.05, [], consecutive_moves=1)
    assert _lost(0.05, [0.9, None], consecutive_moves=1)
    assert not _lost(0.2, [], consecutive_moves=1)


def test_never_before_the_first_resign_move() -> None:
    assert not _lost(0.01, [0.01, 0.01], move_number=19)
    assert _lost(0.01, [0.01, 0.01], move_number=20)


def test_earlier_moves_compared_with_the_threshold_that_applies_now() -> None:
    handicap = _setup([(3, 3), (7, 7)], [], Player.white)
    # White in a handicap game: threshold min(0.1, 0.02), minimum move half the board (40).
    assert not _lost(0.01, [0.05, 0.05], handicap)
    assert _lost(0.01, [0.01, 0.015], handicap)
    assert not _lost(0.01, [0.01, 0.015], handicap, move_number=39)


def test_resign_signal_is_the_larger_win_rate_of_a_real_search() -> None:
    best = CandidateInfo(move=Move.play(Point(5, 5)), visits=500, winrate=0.3)
    assert resign_signal(SearchResult([best], visits=500, winrate=0.2, elapsed=0.0)) == pytest.approx(0.3)
    best.winrate = 0.1
    assert resign_signal(SearchResult([best], visits=500, winrate=0.2, elapsed=0.0)) == pytest.approx(0.2)
    assert resign_signal(SearchResult([best], visits=99, winrate=0.01, elapsed=0.0)) is None  # too small
    assert resign_signal(SearchResult([], visits=500, winrate=0.01, elapsed=0.0)) is None


def test_resign_score_lead_is_the_larger_score_of_best_move_and_root() -> None:
    best = CandidateInfo(move=Move.play(Point(5, 5)), visits=500, winrate=0.1, score_lead=-6.0)
    assert resign_score_lead(SearchResult([best], visits=500, winrate=0.1, elapsed=0.0, score_lead=-4.0)) == -4.0
    best.score_lead = -1.5
    assert resign_score_lead(SearchResult([best], visits=500, winrate=0.1, elapsed=0.0, score_lead=-4.0)) == -1.5
    best.score_lead = None
    assert resign_score_lead(SearchResult([best], visits=500, winrate=0.1, elapsed=0.0)) is None  # no score head


def test_a_close_score_is_never_lost_whatever_the_win_rate() -> None:
    policy = ResignPolicy(min_score_difference=3.0)
    state = GameState.new_game(9)
    assert not policy.is_lost(state, 80, 0.01, [0.01, 0.01], score_lead=-2.9)
    assert policy.is_lost(state, 80, 0.01, [0.01, 0.01], score_lead=-3.1)
    assert policy.is_lost(state, 80, 0.01, [0.01, 0.01], score_lead=None)  # no score: the win rate decides
    assert not policy.is_lost(state, 80, 0.5, [0.01, 0.01], score_lead=-30.0)  # the win rate must say lost too
    assert ResignPolicy().is_lost(state, 80, 0.01, [0.01, 0.01], score_lead=-0.5)  # 0: off


def test_self_play_uses_the_policy_in_value_units() -> None:
    settings = SelfPlaySettings(board_size=9, resign_threshold=-0.8, resign_consecutive=2, resign_min_move=0)
    policy = settings.resign_policy()
    assert policy == ResignPolicy(threshold=-0.8, min_move=None, consecutive_moves=2)
    assert settings.resign_start() == 20
    assert SelfPlaySettings(board_size=5, resign_min_move=4).resign_start() == 4


# --- passing ------------------------------------------------------------------------------------


def test_a_lucky_pass_with_few_visits_is_not_played() -> None:
    lucky = CandidateInfo(move=Move.pass_turn(), visits=1, winrate=1.0)
    play = CandidateInfo(move=Move.play(Point(5, 5)), visits=1, winrate=0.0)
    assert clear_pass_or_best_play([lucky, play], root_visits=30) is play
    clear = CandidateInfo(move=Move.pass_turn(), visits=400, winrate=0.9)
    worse = CandidateInfo(move=Move.play(Point(5, 5)), visits=300, winrate=0.6)
    assert clear_pass_or_best_play([clear, worse], root_visits=1000) is clear
    assert clear_pass_or_best_play([lucky], root_visits=1) is lucky


@dataclass
class FakeCount:
    winner: Player | None = None
    dead: list[list[Point]] = field(default_factory=list)
    margin: float = 1.0  # the count's margin (its winner is ``winner``, whatever the sign)

    @property
    def result(self) -> GameResult:
        return GameResult(b=40.0, w=40.0 + self.margin, komi=0.0)

    def wins(self, player: Player) -> bool:
        return self.winner is player

    def dead_of(self, player: Player, state: GameState) -> list[list[Point]]:
        return [g for g in self.dead if state.board.get(g[0]) is player]

    @property
    def status(self) -> GroupStatus:
        return GroupStatus(alive=[], dead=self.dead, seki=[])


@dataclass
class FakeReferee:
    counted: FakeCount
    neutral: bool = False
    counts: int = 0

    def count(self, state: GameState) -> FakeCount:
        self.counts += 1
        return self.counted

    def has_neutral_points(self, state: GameState) -> bool:
        return self.neutral


def _result(*cands: tuple[Move, float], visits: int = 500) -> SearchResult:
    infos = [CandidateInfo(move=m, visits=visits // len(cands), winrate=w) for m, w in cands]
    return SearchResult(infos, visits=visits, winrate=infos[0].winrate, elapsed=0.0)


PASS = Move.pass_turn()
E5 = Move.play(Point(5, 5))


def test_passes_after_the_opponent_only_when_winning_the_count() -> None:
    state = GameState.new_game(9).apply_move(Move.play(Point(3, 3))).apply_move(PASS)
    assert state.next_player is Player.black
    decision = pass_when_opponent_passed(state, FakeCount(winner=Player.black))
    assert decision is not None and decision.move.is_pass
    assert pass_when_opponent_passed(state, FakeCount(winner=Player.white)) is None


def test_captures_a_living_string_in_atari_before_passing() -> None:
    state = _setup([(1, 1)], [(1, 2)], Player.white)  # Black's corner stone has one liberty, A2
    assert capture_in_atari(state) == Move.play(Point(2, 1))
    # a margin no open point can reverse (with 1, the almost empty board leaves the count open)
    decision = pass_when_opponent_passed(state, FakeCount(winner=Player.white, margin=100))
    assert decision is not None and decision.move == Move.play(Point(2, 1))


def test_a_dead_string_in_atari_is_left_for_the_count() -> None:
    # Taking it would be a move inside our own territory (GNU Go's territory lists in the OGS games).
    state = _setup([(1, 1)], [(1, 2)], Player.white)
    assert capture_in_atari(state, {Point(1, 1)}) is None
    decision = pass_when_opponent_passed(state, FakeCount(winner=Player.white, dead=[[Point(1, 1)]], margin=100))
    assert decision is not None and decision.move.is_pass


def test_an_early_pass_on_an_open_board_is_not_accepted() -> None:
    """GNU Go level 1 as Black plays E5 and passes when White answers in a corner. Our count of
    that board is W+7 (two stones, every other point neutral, the komi), while GNU Go's, J9 dead,
    is B+74: a pass would end a game that a referee removing dead stones scores the other way.
    White settles the open points instead, never resigning a count it wins."""
    state = GameState.new_game(9, 7.0)
    for move in (E5, Move.play(Point(9, 9)), PASS):
        state = state.apply_move(move)
    counted = count(state, 400)
    assert counted.wins(Player.white), counted.result
    assert pass_when_opponent_passed(state, counted) is None
    decision = settle_after_pass(state, [], EndOfGamePolicy(), counted)
    assert decision.move.is_play and decision.move.point in settling_moves(state, counted.status).points


def test_no_pass_while_neutral_points_are_left() -> None:
    state = GameState.new_game(9)
    policy = EndOfGamePolicy(resign=ResignPolicy(enabled=False))
    result = _result((PASS, 0.6), (E5, 0.5))
    assert decide_after_search(state, result, policy, FakeReferee(FakeCount(), neutral=True), 80, False).move == E5
    assert decide_after_search(state, result, policy, FakeReferee(FakeCount()), 80, False).move.is_pass
    unsettled = EndOfGamePolicy(resign=ResignPolicy(enabled=False), only_when_settled=False)
    assert decide_after_search(state, result, unsettled, FakeReferee(FakeCount(), neutral=True), 80, False).move.is_pass


def test_a_lucky_pass_of_a_small_search_is_not_played_on_an_open_board() -> None:
    # One stone on a 9x13 board: the area count has no neutral point (every empty point touches
    # only Black), so only the visit count stops a pass that won its four rollouts by chance.
    state = GameState.new_game((13, 9)).apply_move(Move.play(Point(13, 9)))
    policy = EndOfGamePolicy(resign=ResignPolicy(enabled=False))
    lucky = CandidateInfo(move=PASS, visits=4, winrate=1.0)
    play = CandidateInfo(move=E5, visits=3, winrate=1.0)
    result = SearchResult([lucky, play], visits=300, winrate=1.0, elapsed=0.0)
    decision = decide_after_search(state, result, policy, FakeReferee(FakeCount()), 1, False)
    assert decision.move == E5 and "too few visits" in decision.reason
    trusted = _result((PASS, 0.6), (E5, 0.5), visits=300)  # 150 visits each
    assert decide_after_search(state, trusted, policy, FakeReferee(FakeCount()), 1, False).move.is_pass


def test_after_a_pass_into_a_lost_count_plays_on_while_a_move_has_hope() -> None:
    state = GameState.new_game(9)  # every point is dame: each can still change the count
    referee = FakeReferee(FakeCount())
    lost = FakeCount()
    hopeful = _result((PASS, 0.05), (E5, 0.2))
    policy = EndOfGamePolicy()
    assert decide_after_search(state, hopeful, policy, referee, 5, True, counted=lost).move == E5
    hopeless = _result((PASS, 0.05), (E5, 0.05))
    assert decide_after_search(state, hopeless, policy, referee, 5, True, counted=lost).move.is_resign
    no_resign = EndOfGamePolicy(resign=ResignPolicy(enabled=False))
    assert decide_after_search(state, hopeless, no_resign, referee, 5, True, counted=lost).move == E5
    # no move searched: a dame by the rules' order, not a pass into the lost count
    assert decide_after_search(state, _result((PASS, 0.05)), no_resign, referee, 5, True, counted=lost).move == (
        Move.play(Point(1, 1))
    )
    assert referee.counts == 0  # the pass rules after a pass count once, before the search


def test_resigns_on_a_lost_run_of_real_searches() -> None:
    state = GameState.new_game(9)
    referee = FakeReferee(FakeCount())
    lost = _result((E5, 0.05))
    assert decide_after_search(state, lost, EndOfGamePolicy(), referee, 80, False, False, [0.05, 0.05]).move.is_resign
    assert not decide_after_search(state, lost, EndOfGamePolicy(), referee, 80, False, False, [0.05]).move.is_resign
    small = _result((E5, 0.05), visits=50)
    assert decide_after_search(state, small, EndOfGamePolicy(), referee, 80, False, False, [0.05, 0.05]).move == E5


def test_cleanup_captures_dead_stones_before_passing() -> None:
    state = _setup([(1, 1), (1, 2)], [(2, 1), (2, 2), (1, 4)], Player.white)
    dead = FakeCount(dead=[[Point(1, 1), Point(1, 2)]])
    decision = cleanup_move(state, [], dead)
    assert decision is not None and decision.move == Move.play(Point(1, 3))  # their last liberty
    on_target = CandidateInfo(move=Move.play(Point(1, 3)), visits=10, winrate=0.5)
    assert cleanup_move(state, [on_target], dead).candidate is on_target
    assert cleanup_move(state, [], FakeCount()) is None  # nothing dead: no cleanup move
    policy = EndOfGamePolicy()
    result = _result((PASS, 0.9), (E5, 0.5))
    assert decide_after_search(state, result, policy, FakeReferee(dead), 80, False, cleanup=True).move.is_play
    nothing = FakeReferee(FakeCount())
    assert decide_after_search(state, result, policy, nothing, 80, False, cleanup=True).move.is_pass
    dame = FakeReferee(FakeCount(), neutral=True)
    assert decide_after_search(state, result, policy, dame, 80, False, cleanup=True).move == E5
