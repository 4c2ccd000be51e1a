"""Tic-tac-toe board, moves and game state with the same API as the Go classes (book 4.2).

The searches of book chapter 4 only use ``legal_moves``, ``apply_move``, ``is_over``,
``winner`` and ``next_player``, so the same code plays tic-tac-toe and Go. Game states compare
equal by position and player to move, so a search can memoize them.
"""

from __future__ import annotations

from dlgo.ttt.ttttypes import Player, Point

__all__ = ["BOARD_SIZE", "Board", "Move", "GameState"]

BOARD_SIZE = 3
ALL_POINTS: tuple[Point, ...] = tuple(Point(r, c) for r in range(1, BOARD_SIZE + 1) for c in range(1, BOARD_SIZE + 1))

# The eight lines of three: rows, columns, the two diagonals.
LINES: tuple[tuple[Point, ...], ...] = (
    tuple(tuple(Point(r, c) for c in range(1, BOARD_SIZE + 1)) for r in range(1, BOARD_SIZE + 1))
    + tuple(tuple(Point(r, c) for r in range(1, BOARD_SIZE + 1)) for c in range(1, BOARD_SIZE + 1))
    + (
        tuple(Point(i, i) for i in range(1, BOARD_SIZE + 1)),
        tuple(Point(i, BOARD_SIZE + 1 - i) for i in range(1, BOARD_SIZE + 1)),
    )
)


class Board:
    """A 3x3 grid of cells, each empty or holding one player's mark."""

    __slots__ = ("_grid",)

    def __init__(self) -> None:
        self._grid: dict[Point, Player] = {}

    @staticmethod
    def is_on_grid(point: Point) -> bool:
        return 1 <= point.row <= BOARD_SIZE and 1 <= point.col <= BOARD_SIZE

    def get(self, point: Point) -> Player | None:
        return self._grid.get(point)

    def place(self, player: Player, point: Point) -> None:
        assert self.is_on_grid(point), f"{point} is off the board"
        assert self._grid.get(point) is None, f"{point} is occupied"
        self._grid[point] = player

    def copy(self) -> Board:
        board = Board()
        board._grid = dict(self._grid)
        return board

    def key(self) -> tuple[Player | None, ...]:
        """The cells in row-major order: equal boards have equal keys."""
        return tuple(self._grid.get(p) for p in ALL_POINTS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self._grid == other._grid

    def __hash__(self) -> int:
        return hash(self.key())

    def __str__(self) -> str:
        marks = {None: ".", Player.x: "x", Player.o: "o"}
        rows = []
        for r in range(BOARD_SIZE, 0, -1):  # row 1 at the bottom, as on the Go board
            rows.append("".join(marks[self.get(Point(r, c))] for c in range(1, BOARD_SIZE + 1)))
        return "\n".join(rows)


class Move:
    """A mark on one cell; tic-tac-toe has no pass and no resignation."""

    __slots__ = ("point",)

    def __init__(self, point: Point) -> None:
        self.point = point

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self.point == other.point

    def __hash__(self) -> int:
        return hash(self.point)

    def __repr__(self) -> str:
        return f"Move({self.point.row}, {self.point.col})"


class GameState:
    """A position and the player to move; ``apply_move`` returns a new state."""

    __slots__ = ("board", "next_player", "last_move", "_winner", "_over")

    def __init__(self, board: Board, next_player: Player, move: Move | None) -> None:
        self.board = board
        self.next_player = next_player
        self.last_move = move
        self._winner = _three_in_a_row(board)
        self._over = self._winner is not None or all(board.get(p) is not None for p in ALL_POINTS)

    @classmethod
    def new_game(cls) -> GameState:
        return cls(Board(), Player.x, None)

    def apply_move(self, move: Move) -> GameState:
        """The state after ``move`` by the player to move (legality is the caller's job)."""
        board = self.board.copy()
        board.place(self.next_player, move.point)
        return GameState(board, self.next_player.other, move)

    def is_valid_move(self, move: Move) -> bool:
        return not self._over and Board.is_on_grid(move.point) and self.board.get(move.point) is None

    def legal_moves(self) -> list[Move]:
        """Every empty cell in row-major order; none once the game is over."""
        if self._over:
            return []
        return [Move(p) for p in ALL_POINTS if self.board.get(p) is None]

    def is_over(self) -> bool:
        return self._over

    def winner(self) -> Player | None:
        """The player with three in a row; None while the game goes on or after a draw."""
        return self._winner

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.next_player == other.next_player and self.board == other.board

    def __hash__(self) -> int:
        return hash((self.next_player, self.board.key()))


def _three_in_a_row(board: Board) -> Player | None:
    for line in LINES:
        first = board.get(line[0])
        if first is not None and all(board.get(p) is first for p in line[1:]):
            return first
    return None
