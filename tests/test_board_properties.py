"""Property tests: the fast incremental board agrees with from-scratch recomputation.

Random games are drawn move by move from ``legal_moves()``. After every move the board's strings,
liberties, Zobrist hash, situation hash, superko history and ko point are rebuilt from the plain
colour array and compared; a tiny dictionary-based reference implementation of the rules (below)
replays the same game and decides legality, superko included, independently. The compiled playout
kernel is checked against the Python rules and the Python scorer.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dlgo.agent.helpers import is_point_an_eye
from dlgo.geometry import Geometry, geometry
from dlgo.goboard import BLACK, BORDER, EMPTY, WHITE, Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.playout import kernel
from dlgo.scoring import area_ownership, compute_game_result
from dlgo.zobrist import zobrist_table

PROPERTY_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Small boards most of the time (captures and kos are frequent there), 19x19 now and then.
SIZES = st.one_of(
    st.tuples(st.integers(2, 9), st.integers(2, 9)),
    st.sampled_from([(9, 9), (5, 5), (3, 3), (19, 19)]),
)


# --- an independent reference implementation over {Point: Player} ---------------------------
def ref_neighbors(p: Point, rows: int, cols: int) -> list[Point]:
    return [n for n in p.neighbors() if 1 <= n.row <= rows and 1 <= n.col <= cols]


def ref_group(grid: dict, p: Point, rows: int, cols: int) -> tuple[set[Point], set[Point]]:
    color = grid[p]
    stones, libs, todo = {p}, set(), [p]
    while todo:
        q = todo.pop()
        for n in ref_neighbors(q, rows, cols):
            c = grid.get(n)
            if c is None:
                libs.add(n)
            elif c is color and n not in stones:
                stones.add(n)
                todo.append(n)
    return stones, libs


def ref_play(grid: dict, rows: int, cols: int, player: Player, p: Point) -> tuple[dict, set[Point]] | None:
    """(new grid, captured points), or None when the play is suicide. ``p`` must be empty."""
    new = dict(grid)
    new[p] = player
    captured: set[Point] = set()
    for n in ref_neighbors(p, rows, cols):
        if new.get(n) is player.other and n not in captured:
            stones, libs = ref_group(new, n, rows, cols)
            if not libs:
                captured |= stones
    for q in captured:
        del new[q]
    if not ref_group(new, p, rows, cols)[1]:
        return None
    return new, captured


def situation_key(grid: dict, to_move: Player) -> tuple:
    return frozenset(grid.items()), to_move


class RefGame:
    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self.grid: dict[Point, Player] = {}
        self.to_move = Player.black
        self.history = {situation_key(self.grid, self.to_move)}
        self.last_captured: set[Point] = set()

    def all_points(self):
        return (Point(r, c) for r in range(1, self.rows + 1) for c in range(1, self.cols + 1))

    def legal_plays(self) -> set[Point]:
        """Empty, not suicide, and not repeating any earlier (board, player to move)."""
        out = set()
        for p in self.all_points():
            if p in self.grid:
                continue
            result = ref_play(self.grid, self.rows, self.cols, self.to_move, p)
            if result is not None and situation_key(result[0], self.to_move.other) not in self.history:
                out.add(p)
        return out

    def apply(self, move: Move) -> None:
        self.last_captured = set()
        if move.is_play:
            result = ref_play(self.grid, self.rows, self.cols, self.to_move, move.point)
            assert result is not None, f"core played suicide {move}"
            self.grid, self.last_captured = result
        self.to_move = self.to_move.other
        self.history.add(situation_key(self.grid, self.to_move))


# --- invariants of one GameState ----------------------------------------------------------------
def flood_strings(board: Board) -> dict[int, tuple[frozenset[int], frozenset[int]]]:
    """Padded index -> (stone indices, liberty indices), recomputed from ``board.padded_colors``."""
    colors, geo = board.padded_colors, board.geometry
    width = geo.width
    out: dict[int, tuple[frozenset[int], frozenset[int]]] = {}
    for start in geo.on_board:
        if colors[start] == EMPTY or start in out:
            continue
        color = colors[start]
        stones, libs, todo = {start}, set(), [start]
        while todo:
            i = todo.pop()
            for n in (i - width, i + width, i - 1, i + 1):
                if colors[n] == EMPTY:
                    libs.add(n)
                elif colors[n] == color and n not in stones:
                    stones.add(n)
                    todo.append(n)
        entry = (frozenset(stones), frozenset(libs))
        for i in stones:
            out[i] = entry
    return out


def check_board(board: Board) -> None:
    geo = board.geometry
    colors = board.padded_colors
    assert len(colors) == (board.num_rows + 2) * (board.num_cols + 2)
    on_board = set(geo.on_board)
    for idx, c in enumerate(colors):
        if idx in on_board:
            assert c in (EMPTY, BLACK, WHITE)
        else:
            assert c == BORDER, f"border cell {idx} holds {c}"
    strings = flood_strings(board)
    table = zobrist_table(board.num_rows, board.num_cols)
    expected_hash = 0
    for idx in geo.on_board:
        point = geo.points[idx]
        c = colors[idx]
        string = board.get_go_string(point)
        if c == EMPTY:
            assert string is None, f"empty {point} has a string"
            assert board.get(point) is None
            continue
        expected_hash ^= table.stone[c][idx]
        player = Player(c)
        assert board.get(point) is player
        stones, libs = strings[idx]
        assert libs, f"string at {point} has no liberties"
        assert string is not None and string.color is player
        assert string.stones == {geo.points[i] for i in stones}, f"stones of the string at {point}"
        assert string.liberties == {geo.points[i] for i in libs}, f"liberties of the string at {point}"
        assert string.num_liberties == len(libs)
    assert board.zobrist_hash() == expected_hash


def check_state(state: GameState, ref: RefGame, check_legality: bool) -> None:
    board = state.board
    check_board(board)
    # The same stones as the reference implementation.
    assert dict(board.stones()) == ref.grid
    assert state.next_player is ref.to_move
    # Situation hash: the board hash, plus a fixed code when White is to move.
    table = zobrist_table(board.num_rows, board.num_cols)
    turn = table.white_to_move if state.next_player is Player.white else 0
    assert state.situation_hash() == board.zobrist_hash() ^ turn
    # Superko history: exactly the situations of the earlier states.
    earlier = set()
    s = state.previous_state
    while s is not None:
        earlier.add(s.situation_hash())
        s = s.previous_state
    assert state.previous_states == earlier
    # Simple ko point: set exactly when a single stone was just taken by a single stone that is
    # left with one liberty (the captured point).
    expected_ko = 0
    last = state.last_move
    if last is not None and last.is_play and len(ref.last_captured) == 1:
        stones, libs = ref_group(ref.grid, last.point, ref.rows, ref.cols)
        if len(stones) == 1 and len(libs) == 1:
            expected_ko = board.geometry.index(next(iter(ref.last_captured)))
    assert state.ko_point == expected_ko
    if state.is_over():
        assert state.legal_moves() == []
        assert not any(state.is_valid_move(Move.play(p)) for p in ref.all_points())
    elif check_legality:
        plays = {m.point for m in state.legal_moves() if m.is_play}
        assert plays == ref.legal_plays()
        for p in ref.all_points():
            assert state.is_valid_move(Move.play(p)) == (p in plays), f"is_valid_move({p}) disagrees"
        assert state.is_valid_move(Move.pass_turn())


def draw_length(data, num_points: int) -> int:
    """A game length: often a long game (3 moves a point), sometimes a short one."""
    return data.draw(st.one_of(st.just(3 * num_points), st.integers(1, 3 * num_points)), label="length")


def draw_game(data, rows: int, cols: int, max_moves: int, on_state) -> GameState:
    """Play a random game choosing among ``legal_moves()``; ``on_state`` sees every state.

    The choices come from a Random that Hypothesis draws (and replays on failure); plain
    Hypothesis integers would pass far too often to reach the long fights and kos that matter.
    """
    rng = data.draw(st.randoms(use_true_random=True), label="rng")
    pass_rate = data.draw(st.sampled_from([0.0, 0.02, 0.1]), label="pass rate")
    state = GameState.new_game((rows, cols))
    on_state(state, None)
    for _ in range(max_moves):
        if state.is_over():
            break
        moves = state.legal_moves()
        plays = [m for m in moves if m.is_play]
        assert moves[-1] == Move.pass_turn() and len(plays) == len(moves) - 1
        if not plays or rng.random() < pass_rate:
            move = Move.pass_turn()
        else:
            move = rng.choice(plays)
        state = state.apply_move(move)
        on_state(state, move)
    return state


# --- properties -----------------------------------------------------------------------------
@PROPERTY_SETTINGS
@given(size=SIZES, data=st.data())
def test_incremental_board_matches_rebuild(size, data):
    rows, cols = size
    ref = RefGame(rows, cols)
    small = rows * cols <= 36
    max_moves = 40 if rows * cols > 100 else draw_length(data, rows * cols)

    def on_state(state, move):
        if move is not None:
            ref.apply(move)
        check_state(state, ref, check_legality=small)

    final = draw_game(data, rows, cols, max_moves, on_state)
    check_state(final, ref, check_legality=True)
    # Copies are independent of the original.
    before, before_hash = final.board.padded_colors, final.board.zobrist_hash()
    copy = final.board.copy()
    assert copy == final.board and copy.zobrist_hash() == before_hash
    for p in ref.all_points():
        if final.board.get(p) is None and ref_play(ref.grid, rows, cols, Player.black, p) is not None:
            copy.place_stone(Player.black, p)
            check_board(copy)
            break
    assert final.board.padded_colors == before and final.board.zobrist_hash() == before_hash
    check_board(final.board)


def kernel_candidates(state: GameState) -> set[int]:
    board = state.board
    arr = np.frombuffer(board.padded_colors, dtype=np.int8).copy()
    out = kernel.candidate_moves(arr, board.geometry.width, state.next_player.value, state.ko_point)
    result = [int(i) for i in out]
    assert result == sorted(result), "candidate_moves must be ascending"
    assert np.array_equal(arr, np.frombuffer(board.padded_colors, dtype=np.int8)), "candidate_moves changed its input"
    return set(result)


def python_candidates(state: GameState) -> set[int]:
    board = state.board
    geo = board.geometry
    color = state.next_player.value
    return {
        idx
        for idx in geo.on_board
        if board.padded_colors[idx] == EMPTY
        and not board.is_suicide_at(color, idx)
        and idx != state.ko_point
        and not is_point_an_eye(board, geo.points[idx], state.next_player)
    }


@PROPERTY_SETTINGS
@given(size=SIZES, data=st.data())
def test_kernel_candidates_match_python_rules(size, data):
    rows, cols = size
    max_moves = 30 if rows * cols > 100 else draw_length(data, rows * cols)

    def on_state(state, move):
        expected = python_candidates(state)
        candidates = kernel_candidates(state)
        assert candidates == expected
        if state.is_over():
            return
        # Against the full rules: every legal non-eye play is a candidate, and a candidate that
        # is not legal is forbidden by superko only.
        board = state.board
        geo = board.geometry
        legal = {geo.index(m.point) for m in state.legal_moves() if m.is_play}
        non_eye = {i for i in legal if not is_point_an_eye(board, geo.points[i], state.next_player)}
        assert non_eye <= candidates
        for idx in candidates - non_eye:
            assert state.does_move_violate_ko(state.next_player, Move.play(geo.points[idx]))

    draw_game(data, rows, cols, max_moves, on_state)


def reference_area(board: Board | Colouring) -> tuple[int, int]:
    """Tromp-Taylor area from scratch with the dictionary reference: (black, white)."""
    rows, cols = board.num_rows, board.num_cols
    grid = dict(board.stones())
    b = sum(1 for c in grid.values() if c is Player.black)
    w = len(grid) - b
    seen: set[Point] = set()
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            p = Point(r, c)
            if p in grid or p in seen:
                continue
            region, borders, todo = {p}, set(), [p]
            while todo:
                q = todo.pop()
                for n in ref_neighbors(q, rows, cols):
                    if n in grid:
                        borders.add(grid[n])
                    elif n not in region:
                        region.add(n)
                        todo.append(n)
            seen |= region
            if borders == {Player.black}:
                b += len(region)
            elif borders == {Player.white}:
                w += len(region)
    return b, w


def check_area(board: Board | Colouring, komi: float) -> None:
    result = compute_game_result(SimpleNamespace(board=board, komi=komi))
    assert (result.b, result.w) == reference_area(board)
    owner = np.empty(board.geometry.padded_size, np.int8)
    arr = np.frombuffer(board.padded_colors, dtype=np.int8).copy()
    diff = kernel.area_owner(arr, board.geometry.width, owner)
    assert diff == result.b - result.w
    assert [int(o) for o in owner] == area_ownership(board)


@dataclass(frozen=True)
class Colouring:
    """Any colouring of a board, legal or not: scoring reads only the padded arrays."""

    num_rows: int
    num_cols: int
    geometry: Geometry
    padded_colors: bytes

    def stones(self):
        return ((self.geometry.points[i], Player(c)) for i, c in enumerate(self.padded_colors) if c in (BLACK, WHITE))


def arbitrary_board(rows: int, cols: int, cells: list[int]) -> Colouring:
    geo = geometry(rows, cols)
    colors = list(geo.template)
    for idx, c in zip(geo.on_board, cells):
        colors[idx] = c
    return Colouring(rows, cols, geo, bytes(colors))


@PROPERTY_SETTINGS
@given(
    size=st.tuples(st.integers(2, 9), st.integers(2, 9)),
    cells=st.lists(st.sampled_from([EMPTY, EMPTY, BLACK, WHITE]), min_size=81, max_size=81),
    komi=st.sampled_from([0, 0.5, 7.5, -3]),
)
def test_kernel_area_matches_scoring_on_any_colouring(size, cells, komi):
    check_area(arbitrary_board(*size, cells), komi)


@PROPERTY_SETTINGS
@given(size=SIZES, data=st.data())
def test_kernel_area_matches_scoring_on_game_positions(size, data):
    rows, cols = size
    max_moves = 60 if rows * cols > 100 else draw_length(data, rows * cols)
    final = draw_game(data, rows, cols, max_moves, lambda state, move: None)
    check_area(final.board, final.komi)
    # The kernel's playout winner rule agrees with GameResult.winner on a finished count.
    result = compute_game_result(final)
    diff = kernel.area_owner(
        np.frombuffer(final.board.padded_colors, dtype=np.int8).copy(),
        final.board.geometry.width,
        np.empty(final.board.geometry.padded_size, np.int8),
    )
    score = diff - final.komi
    expected = None if score == 0 else (Player.black if score > 0 else Player.white)
    assert result.winner is expected
