"""Board, moves and game state with the book's API (book 3.1-3.5), fast inside.

Inside, a board is a flat list over a padded grid (one border ring of off-board cells), so
neighbours are index arithmetic and copying a board is two list copies. Strings are immutable
(as in the book's fast board), so copies share them. Superko uses 64-bit Zobrist hashes of
(position, player to move); the hash of a candidate move is computed without copying the board.
"""

from __future__ import annotations

from collections.abc import Iterable

from dlgo.geometry import BLACK, BORDER, EMPTY, MAX_SIZE, MIN_SIZE, WHITE, Geometry, geometry
from dlgo.gostring import GoString
from dlgo.gotypes import Player, Point
from dlgo.scoring import compute_game_result
from dlgo.zobrist import zobrist_table

# The point codes and sizes are part of the board's API (they live in dlgo.geometry so that
# dlgo.scoring needs no goboard import); so are the strings (dlgo.gostring).
__all__ = [
    "Move",
    "GoString",
    "Board",
    "GameState",
    "Geometry",
    "EMPTY",
    "BLACK",
    "WHITE",
    "BORDER",
    "MIN_SIZE",
    "MAX_SIZE",
]


class Move:
    """Exactly one of: a play of a stone, a pass, a resignation (book listing 3.3)."""

    __slots__ = ("point", "is_play", "is_pass", "is_resign")

    def __init__(self, point: Point | None = None, is_pass: bool = False, is_resign: bool = False):
        assert (point is not None) ^ is_pass ^ is_resign
        self.point = point
        self.is_play = point is not None
        self.is_pass = is_pass
        self.is_resign = is_resign

    @classmethod
    def play(cls, point: Point) -> Move:
        return cls(point=point)

    @classmethod
    def pass_turn(cls) -> Move:
        return cls(is_pass=True)

    @classmethod
    def resign(cls) -> Move:
        return cls(is_resign=True)

    def _key(self) -> tuple:
        return (self.is_play, self.is_pass, self.is_resign, self.point)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        if self.is_pass:
            return "pass"
        if self.is_resign:
            return "resign"
        return f"(r {self.point.row}, c {self.point.col})"

    __repr__ = __str__


_PLAYERS = (None, Player.black, Player.white)


class Board:
    """A board of any size from 2x2 to 25x25 (``Board(19, 19)``)."""

    __slots__ = ("num_rows", "num_cols", "_geo", "_colors", "_strings", "_hash", "_zobrist")

    def __init__(self, num_rows: int, num_cols: int) -> None:
        self.num_rows = num_rows
        self.num_cols = num_cols
        self._geo = geometry(num_rows, num_cols)
        self._colors: list[int] = list(self._geo.template)
        self._strings: list[GoString | None] = [None] * self._geo.padded_size
        self._hash = 0
        self._zobrist = zobrist_table(num_rows, num_cols)

    # --- the padded arrays, read only (for kernels, encoders, counting, fast bots) ------------
    @property
    def geometry(self) -> Geometry:
        """Index tables of this board size (padded index <-> Point, neighbours); shared, do not change."""
        return self._geo

    @property
    def padded_colors(self) -> bytes:
        """A snapshot of the point codes (EMPTY, BLACK, WHITE, BORDER) by padded index.

        ``bytes`` so callers cannot change the board through it; ``np.frombuffer(..., np.int8)``
        turns it into an array without a Python loop.
        """
        return bytes(self._colors)

    def go_string_at_index(self, idx: int) -> GoString | None:
        """The string on padded index ``idx`` (None: empty or off the board); ``get_go_string`` by index."""
        return self._strings[idx]

    def stone_counts(self) -> tuple[int, int]:
        """(black stones, white stones) on the board, counted in C (cheap at every leaf of a search)."""
        return self._colors.count(BLACK), self._colors.count(WHITE)

    def is_suicide_at(self, color: int, idx: int) -> bool:
        """True when ``color`` (a point code) on the empty padded index ``idx`` has no liberty after captures."""
        colors, strings = self._colors, self._strings
        for n in self._geo.neighbors[idx]:
            c = colors[n]
            if c == EMPTY:
                return False
            libs = len(strings[n].liberty_indices)
            if c == color:
                if libs > 1:
                    return False
            elif libs == 1:
                return False  # captures
        return True

    # --- the book's API -------------------------------------------------------------------
    def is_on_grid(self, point: Point) -> bool:
        return 1 <= point.row <= self.num_rows and 1 <= point.col <= self.num_cols

    def get(self, point: Point) -> Player | None:
        if not self.is_on_grid(point):
            return None
        return _PLAYERS[self._colors[self._geo.index(point)]]

    def get_go_string(self, point: Point) -> GoString | None:
        if not self.is_on_grid(point):
            return None
        return self._strings[self._geo.index(point)]

    def zobrist_hash(self) -> int:
        return self._hash

    def place_stone(self, player: Player, point: Point) -> list[int]:
        """Put a stone on an empty point and remove captured strings (no legality check).

        Returns the padded indices of the captured stones.
        """
        assert self.is_on_grid(point), f"{point} is off the board"
        idx = self._geo.index(point)
        assert self._colors[idx] == EMPTY, f"{point} is occupied"
        return self._place(player, idx)

    # --- internals ------------------------------------------------------------------------
    def _place(self, player: Player, idx: int) -> list[int]:
        colors, strings, geo = self._colors, self._strings, self._geo
        color = player.value
        libs = []
        friends: list[GoString] = []
        enemies: list[GoString] = []
        for n in geo.neighbors[idx]:
            c = colors[n]
            if c == EMPTY:
                libs.append(n)
            else:
                s = strings[n]
                group = friends if c == color else enemies
                if all(s is not g for g in group):
                    group.append(s)
        new = GoString(player, frozenset((idx,)), frozenset(libs), geo)
        for f in friends:
            new = new.merged_with(f)
        for st in new.stone_indices:
            strings[st] = new
        colors[idx] = color
        self._hash ^= self._zobrist.stone[color][idx]
        captured: list[int] = []
        for e in enemies:
            reduced = e.without_liberty(idx)
            if reduced.liberty_indices:
                for st in reduced.stone_indices:
                    strings[st] = reduced
            else:
                captured.extend(e.stone_indices)
                self._remove_string(e)
        return captured

    def _remove_string(self, string: GoString) -> None:
        colors, strings, geo = self._colors, self._strings, self._geo
        codes = self._zobrist.stone[string.color.value]
        for idx in string.stone_indices:
            colors[idx] = EMPTY
            strings[idx] = None
            self._hash ^= codes[idx]
        for idx in string.stone_indices:
            for n in geo.neighbors[idx]:
                s = strings[n]
                if s is not None and idx not in s.liberty_indices:
                    grown = s.with_liberty(idx)
                    for st in grown.stone_indices:
                        strings[st] = grown

    def _hash_after(self, color: int, idx: int) -> int:
        """The board hash after ``color`` plays at ``idx`` (captures included), without copying."""
        colors, strings = self._colors, self._strings
        h = self._hash ^ self._zobrist.stone[color][idx]
        seen: list[GoString] = []
        enemy_codes = self._zobrist.stone[3 - color]
        for n in self._geo.neighbors[idx]:
            c = colors[n]
            if c != EMPTY and c != color:
                s = strings[n]
                if len(s.liberty_indices) == 1 and all(s is not g for g in seen):
                    seen.append(s)
                    for st in s.stone_indices:
                        h ^= enemy_codes[st]
        return h

    def copy(self) -> Board:
        b = Board.__new__(Board)
        b.num_rows = self.num_rows
        b.num_cols = self.num_cols
        b._geo = self._geo
        b._colors = self._colors[:]
        b._strings = self._strings[:]
        b._hash = self._hash
        b._zobrist = self._zobrist
        return b

    def without(self, points: Iterable[Point]) -> Board:
        """A copy with the whole string at each of ``points`` taken off (empty points ignored)."""
        board = self.copy()
        for point in points:
            string = board.get_go_string(point)
            if string is not None:
                board._remove_string(string)
        return board

    def __deepcopy__(self, memo: dict) -> Board:
        return self.copy()  # strings are immutable, so a shallow copy is a deep one

    def stones(self) -> Iterable[tuple[Point, Player]]:
        """Every stone on the board as (point, player)."""
        pts = self._geo.points
        for idx in self._geo.on_board:
            c = self._colors[idx]
            if c != EMPTY:
                yield pts[idx], _PLAYERS[c]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Board)
            and self.num_rows == other.num_rows
            and self.num_cols == other.num_cols
            and self._colors == other._colors
        )

    def __hash__(self) -> int:
        return self._hash


class GameState:
    """A position in a game plus its history; ``apply_move`` returns a new state (book 3.2)."""

    __slots__ = (
        "board",
        "next_player",
        "previous_state",
        "last_move",
        "komi",
        "previous_states",
        "ko_point",
        "move_number",
        "_situation",
    )

    def __init__(
        self,
        board: Board,
        next_player: Player,
        previous: GameState | None,
        move: Move | None,
        komi: float = 7.5,
        ko_point: int = 0,
    ) -> None:
        self.board = board
        self.next_player = next_player
        self.previous_state = previous
        self.last_move = move
        self.komi = komi
        # Padded index of the point a simple ko forbids right now (0: none); playouts use it.
        self.ko_point = ko_point
        self._situation = board._hash ^ (board._zobrist.white_to_move if next_player is Player.white else 0)
        if previous is None:
            self.previous_states: frozenset[int] = frozenset()
            self.move_number = 0
        else:
            self.previous_states = previous.previous_states | {previous._situation}
            self.move_number = previous.move_number + 1

    @classmethod
    def new_game(cls, board_size: int | tuple[int, int], komi: float = 7.5) -> GameState:
        if isinstance(board_size, int):
            board_size = (board_size, board_size)
        return cls(Board(*board_size), Player.black, None, None, komi)

    @classmethod
    def from_position(
        cls,
        board: Board,
        next_player: Player,
        komi: float = 7.5,
    ) -> GameState:
        """A game that starts from a set-up position (handicap stones, SGF setup, tsumego)."""
        return cls(board.copy(), next_player, None, None, komi)

    # --- moves ----------------------------------------------------------------------------
    def apply_move(self, move: Move) -> GameState:
        """The state after ``move`` by the player to move (legality is the caller's job)."""
        ko = 0
        if move.is_play:
            board = self.board.copy()
            idx = board._geo.index(move.point)
            captured = board._place(self.next_player, idx)
            if len(captured) == 1:
                s = board._strings[idx]
                if len(s.stone_indices) == 1 and len(s.liberty_indices) == 1:
                    ko = captured[0]
        else:
            board = self.board
        return GameState(board, self.next_player.other, self, move, self.komi, ko)

    def play_as(self, player: Player, move: Move) -> GameState:
        """The state after ``player`` plays ``move``, even when it is not ``player``'s turn.

        For the player to move this is ``apply_move``. Otherwise (an SGF record or a GTP
        controller may have a colour move twice) the stone goes on a copy of the board, the other
        colour is to move next, and the history (``previous_state``, superko hashes) stays one
        chain. A suicide (which records may hold) takes its own string off the board. Legality
        is the caller's job (:meth:`illegal_reason`).
        """
        if move.is_play and self.is_move_self_capture(player, move):
            board = self.board.copy()
            idx = board._geo.index(move.point)
            board._place(player, idx)
            board._remove_string(board._strings[idx])
            return GameState(board, player.other, self, move, self.komi)
        if player is self.next_player:
            return self.apply_move(move)
        if not move.is_play:
            return GameState(self.board, player.other, self, move, self.komi)
        board = self.board.copy()
        idx = board._geo.index(move.point)
        captured = board._place(player, idx)
        ko = 0
        if len(captured) == 1:
            string = board._strings[idx]
            if len(string.stone_indices) == 1 and len(string.liberty_indices) == 1:
                ko = captured[0]
        return GameState(board, player.other, self, move, self.komi, ko)

    def illegal_reason(self, player: Player, move: Move) -> str | None:
        """Why ``player`` may not play ``move`` here (None: legal), whoever is to move.

        The rules of the position only (no suicide, situational superko, book 3.4): a pass or a
        resignation is always allowed, and so is a play after the game ended with two passes.
        """
        if not move.is_play:
            return None
        board = self.board
        if not board.is_on_grid(move.point):
            return f"off the {board.num_rows}x{board.num_cols} board"
        if board.get(move.point) is not None:
            return "the point is occupied"
        if self.is_move_self_capture(player, move):
            return "suicide"
        if self.does_move_violate_ko(player, move):
            previous = self.previous_state
            if previous is not None:
                after = self.play_as(player, move)
                if after.situation_hash() == previous.situation_hash():
                    return "ko (retakes at once)"
            return "superko (repeats an earlier position)"
        return None

    def with_komi(self, komi: float) -> GameState:
        """This position and history with ``komi`` (states are never changed in place).

        States from the root down that already have ``komi`` are shared; the rest of the chain is
        rebuilt, so every ``previous_state`` of the result has ``komi`` too.
        """
        chain: list[GameState] = []
        state: GameState | None = self
        while state is not None and state.komi != komi:
            chain.append(state)
            state = state.previous_state
        for old in reversed(chain):
            state = GameState(old.board, old.next_player, state, old.last_move, komi, old.ko_point)
        return state if chain else self

    def is_over(self) -> bool:
        if self.last_move is None:
            return False
        if self.last_move.is_resign:
            return True
        second_last = self.previous_state.last_move if self.previous_state else None
        if second_last is None:
            return False
        return self.last_move.is_pass and second_last.is_pass

    def is_move_self_capture(self, player: Player, move: Move) -> bool:
        if not move.is_play:
            return False
        board = self.board
        return board.is_suicide_at(player.value, board._geo.index(move.point))

    def does_move_violate_ko(self, player: Player, move: Move) -> bool:
        if not move.is_play:
            return False
        board = self.board
        next_hash = board._hash_after(player.value, board._geo.index(move.point))
        if player is Player.black:  # after black's move white is to move
            next_hash ^= board._zobrist.white_to_move
        return next_hash in self.previous_states or next_hash == self._situation

    def is_valid_move(self, move: Move) -> bool:
        if self.is_over():
            return False
        if not move.is_play:
            return True
        board = self.board
        point = move.point
        if not board.is_on_grid(point):
            return False
        idx = board._geo.index(point)
        if board._colors[idx] != EMPTY:
            return False
        color = self.next_player.value
        if board.is_suicide_at(color, idx):
            return False
        return not self.violates_superko_at(color, idx)

    def violates_superko_at(self, color: int, idx: int) -> bool:
        """Whether ``color`` (a point code) on padded index ``idx`` repeats an earlier situation."""
        board = self.board
        next_hash = board._hash_after(color, idx)
        if color == BLACK:
            next_hash ^= board._zobrist.white_to_move
        return next_hash in self.previous_states

    def legal_moves(self, include_resign: bool = False) -> list[Move]:
        """Every valid play in row-major order, then pass (resign only when asked).

        The book listed resign among the legal moves, which made every generic search consider
        resigning at every node (docs/book-differences.md, 4); resignation is a decision for the agent.
        """
        if self.is_over():
            return []
        board = self.board
        colors = board._colors
        color = self.next_player.value
        pts = board._geo.points
        moves = [
            Move(pts[idx])
            for idx in board._geo.on_board
            if colors[idx] == EMPTY and not board.is_suicide_at(color, idx) and not self.violates_superko_at(color, idx)
        ]
        moves.append(Move.pass_turn())
        if include_resign:
            moves.append(Move.resign())
        return moves

    def winner(self) -> Player | None:
        if not self.is_over():
            return None
        if self.last_move.is_resign:
            return self.next_player
        return compute_game_result(self).winner

    @property
    def situation(self) -> tuple[Player, Board]:
        return (self.next_player, self.board)

    def situation_hash(self) -> int:
        """Zobrist hash of (position, player to move)."""
        return self._situation

    def moves(self) -> list[Move]:
        """Moves from the root of this game to here, oldest first."""
        out = []
        state: GameState | None = self
        while state is not None and state.last_move is not None:
            out.append(state.last_move)
            state = state.previous_state
        out.reverse()
        return out

    def root(self) -> GameState:
        state = self
        while state.previous_state is not None:
            state = state.previous_state
        return state
