"""GNU Go as a rules referee: random games played on our core and mirrored to GNU Go over GTP.

After every move of many seeded random games:

(a) legality agrees: the move we play GNU Go accepts (``play`` succeeds), and for a sample of
    points (random empty points, the ko point, an occupied point, and the candidates our random
    player tried and our core refused: own-eye fills are allowed now and then, so suicides are
    tried) ``is_legal`` answers what ``GameState.is_valid_move`` says, in both directions;
(b) the stones agree: GNU Go's ``list_stones black``/``white`` equal ours.

GNU Go's ``is_legal`` knows simple ko only, so a point our core refuses only by superko (empty,
not suicide, not the simple-ko point) is not compared; it is counted instead.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from gnugo import GtpClientError, parse_vertices

from dlgo.agent.helpers import is_point_an_eye
from dlgo.goboard import EMPTY, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.utils import board_to_text, coords_from_point, point_from_coords

pytestmark = pytest.mark.gnugo

SAMPLE_EMPTY = 5  # random empty points checked per move
MAX_REJECTS_CHECKED = 5  # refused candidates of the random player checked per move
EYE_FILL_RATE = 0.1  # how often the random player is willing to fill its own eye
PASS_RATE = 0.01


def _gtp_color(player: Player) -> str:
    return "black" if player is Player.black else "white"


class Referee:
    """Plays random games on a GameState and on GNU Go side by side and compares them."""

    def __init__(self, gnugo) -> None:
        self.gnugo = gnugo
        self.stats: Counter[str] = Counter()

    # --- one comparison -----------------------------------------------------------------
    def _reason(self, state: GameState, point: Point, ours: bool) -> str:
        board = state.board
        idx = board.geometry.index(point)
        if board.padded_colors[idx] != EMPTY:
            return "occupied"
        if ours:
            return "legal"
        if idx == state.ko_point:
            return "ko"
        if board.is_suicide_at(state.next_player.value, idx):
            return "suicide"
        return "superko"

    def compare_point(self, state: GameState, point: Point, context) -> None:
        ours = state.is_valid_move(Move.play(point))
        reason = self._reason(state, point, ours)
        theirs = self.gnugo.is_legal(_gtp_color(state.next_player), point)
        if reason == "superko":
            # Refused by superko alone: GNU Go's is_legal does not know superko.
            self.stats["superko (not compared)"] += 1
            assert theirs, context(f"GNU Go refuses {coords_from_point(point)}, which only superko forbids")
            return
        self.stats[f"{reason} agreed"] += 1
        assert ours == theirs, context(
            f"{_gtp_color(state.next_player)} {coords_from_point(point)}: ours says "
            f"{'legal' if ours else 'illegal'} ({reason}), GNU Go says {'legal' if theirs else 'illegal'}"
        )

    # --- one game -----------------------------------------------------------------------
    def play_game(self, size: int, seed: int, max_moves: int, komi: float = 7.5) -> GameState:
        rng = random.Random(seed)
        self.gnugo.new_game(size, komi)
        state = GameState.new_game(size, komi)
        history: list[str] = []

        def context(message: str) -> str:
            return (
                f"{message}\n{size}x{size} game seed {seed}, move {len(history) + 1}, "
                f"{state.next_player.name} to move\nmoves: {' '.join(history)}\n{board_to_text(state.board)}"
            )

        while not state.is_over() and len(history) < max_moves:
            board = state.board
            geo = board.geometry
            player = state.next_player
            empties = [idx for idx in geo.on_board if board.padded_colors[idx] == EMPTY]
            occupied = [idx for idx in geo.on_board if board.padded_colors[idx] != EMPTY]
            # (a) legality on a sample of points.
            sample = rng.sample(empties, min(SAMPLE_EMPTY, len(empties)))
            if state.ko_point and state.ko_point not in sample:
                sample.append(state.ko_point)
            if occupied:
                sample.append(rng.choice(occupied))
            for idx in sample:
                self.compare_point(state, geo.points[idx], context)
            # A random move: mostly not into its own eyes, but sometimes, and whatever our core
            # refuses on the way (suicide, ko, superko) is checked against GNU Go too.
            move = Move.pass_turn()
            if rng.random() >= PASS_RATE:
                rng.shuffle(empties)
                rejects = 0
                for idx in empties:
                    point = geo.points[idx]
                    if is_point_an_eye(board, point, player) and rng.random() >= EYE_FILL_RATE:
                        continue
                    candidate = Move.play(point)
                    if state.is_valid_move(candidate):
                        move = candidate
                        break
                    if rejects < MAX_REJECTS_CHECKED:
                        rejects += 1
                        self.compare_point(state, point, context)
            # (b) play it on both sides and compare the stones.
            ok, answer = self.gnugo.ask(
                f"play {_gtp_color(player)} {'pass' if move.is_pass else coords_from_point(move.point)}"
            )
            text = "pass" if move.is_pass else coords_from_point(move.point)
            assert ok, context(f"GNU Go refuses our move {_gtp_color(player)} {text}: {answer}")
            history.append(f"{player.name[0].upper()}:{text}")
            state = state.apply_move(move)
            self.stats["moves"] += 1
            self.stats["passes"] += move.is_pass
            ours = {Player.black: set(), Player.white: set()}
            for point, color in state.board.stones():
                ours[color].add(point)
            for color in (Player.black, Player.white):
                theirs = self.gnugo.list_stones(_gtp_color(color))
                if theirs != ours[color]:
                    only_ours = sorted(coords_from_point(p) for p in ours[color] - theirs)
                    only_theirs = sorted(coords_from_point(p) for p in theirs - ours[color])
                    pytest.fail(
                        context(f"{color.name} stones differ: only ours {only_ours}, only GNU Go's {only_theirs}")
                    )
        self.stats["games"] += 1
        return state

    def check_coverage(self, need_ko: bool = True) -> None:
        """The run really compared refusals of each kind, not just easy legal points."""
        stats = self.stats
        print(dict(stats))
        assert stats["legal agreed"] > 0
        assert stats["occupied agreed"] > 0
        assert stats["suicide agreed"] > 0, "no suicide was ever compared"
        if need_ko:
            assert stats["ko agreed"] > 0, "no simple-ko refusal was ever compared"


def _run(gnugo, size: int, games: int, base_seed: int, max_moves: int, need_ko: bool = True) -> None:
    referee = Referee(gnugo)
    for game in range(games):
        referee.play_game(size, base_seed + game, max_moves)
    referee.check_coverage(need_ko)


# --- the GTP client itself --------------------------------------------------------------------
def test_gtp_client_answers_failures_and_multiline(gnugo):
    gnugo.new_game(9)
    assert gnugo.send("name") == "GNU Go"
    ok, text = gnugo.ask("play white Z99")
    assert not ok and text
    with pytest.raises(GtpClientError):
        gnugo.send("no_such_command")
    board = gnugo.send("showboard")  # a multi-line answer, read up to its blank line
    assert len(board.splitlines()) >= 11 and "A B C D E F G H J" in board
    gnugo.play("black", point_from_coords("E5"))
    gnugo.play("white", None)
    assert gnugo.list_stones("black") == {Point(5, 5)} and gnugo.list_stones("white") == set()
    assert not gnugo.is_legal("white", point_from_coords("E5"))
    assert gnugo.is_legal("white", point_from_coords("J9"))  # still in step after all of that
    assert parse_vertices("C7 g7 PASS") == [Point(7, 3), Point(7, 7)]


# --- the default suite (about a minute) -------------------------------------------------------
def test_referee_9x9(gnugo):
    _run(gnugo, 9, games=120, base_seed=9_000, max_moves=3 * 81)


def test_referee_small_boards(gnugo):
    # Small boards are all fights: many captures, kos and suicide attempts per game.
    for size, games in ((5, 60), (7, 40)):
        _run(gnugo, size, games=games, base_seed=5_000 + size * 100, max_moves=3 * size * size)


def test_referee_19x19(gnugo):
    _run(gnugo, 19, games=3, base_seed=19_000, max_moves=2 * 361, need_ko=False)


# --- larger runs: pytest -m slow ----------------------------------------------------------------
@pytest.mark.slow
def test_referee_9x9_many(gnugo):
    _run(gnugo, 9, games=400, base_seed=90_000, max_moves=3 * 81)


@pytest.mark.slow
@pytest.mark.parametrize("size", [11, 13])
def test_referee_mid_boards_many(gnugo, size):
    _run(gnugo, size, games=40, base_seed=size * 10_000, max_moves=3 * size * size)


@pytest.mark.slow
def test_referee_19x19_many(gnugo):
    _run(gnugo, 19, games=20, base_seed=190_000, max_moves=3 * 361)
