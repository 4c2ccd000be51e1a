"""What a game record read from SGF holds: :class:`SgfGame`, its setups and repairs, and errors.

Also the small SGF conventions the reader, the replay and the writer share (colour letters,
point letters, setup properties, vertex text for messages).
"""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field

from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.utils import COLS, coords_from_point

__all__ = [
    "REPAIR_KINDS",
    "Repair",
    "Setup",
    "SgfError",
    "SgfGame",
    "COLOUR_LETTER",
    "SGF_LETTERS",
    "SETUP_PROPERTIES",
    "vertex_text",
    "move_text",
    "default_first_player",
]

REPAIR_KINDS = ("truncated", "setup", "both_colours", "rules", "stopped")

SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"
COLOUR_LETTER = {Player.black: "B", Player.white: "W"}
SETUP_PROPERTIES = ("AB", "AW", "AE")


class SgfError(ValueError):
    """A record that cannot be read: not SGF, not Go, no such file, an unsupported board.

    ``str(error)`` starts with the file's label; ``reason`` is the message without it.
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason if reason is not None else message


@dataclass(frozen=True)
class Repair:
    """Something a strict reader would reject and what was done instead (see the module doc)."""

    kind: str  # one of REPAIR_KINDS
    message: str  # names the move number, colour and vertex where there is one

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Setup:
    """Setup stones after a move: points made Black, White or empty, and a new player to move."""

    black: tuple[Point, ...] = ()
    white: tuple[Point, ...] = ()
    empty: tuple[Point, ...] = ()
    player: Player | None = None  # PL in the setup node; None keeps the player to move

    def apply(self, state: GameState) -> GameState:
        """The state after this setup, one step after ``state`` in its history (no move)."""
        stones = dict(state.board.stones())
        for p in self.empty:
            stones.pop(p, None)
        for p in self.black:
            stones[p] = Player.black
        for p in self.white:
            stones[p] = Player.white
        board = Board(state.board.num_rows, state.board.num_cols)
        for p, colour in stones.items():
            board.place_stone(colour, p)  # no captures when every string has a liberty at the end
        player = self.player or state.next_player
        return GameState(board, player, state, None, state.komi)


@dataclass
class SgfGame:
    """One game read from SGF: metadata, the position after setup and the main line."""

    board_size: tuple[int, int]  # (rows, cols)
    komi: float
    handicap: int
    result: str | None  # RE as given
    winner: Player | None
    black_name: str | None
    white_name: str | None
    rules: str | None
    date: str | None
    initial_state: GameState
    moves: list[tuple[Player, Move]]
    comments: list[str | None] = field(default_factory=list)  # C[] of each move node
    name: str | None = None  # file name, for messages
    # Setup after move i (1 <= i <= len(moves)), applied before move i + 1.
    setups: dict[int, Setup] = field(default_factory=dict)
    repairs: list[Repair] = field(default_factory=list)  # what was repaired, in order
    notes: list[str] = field(default_factory=list)  # legal under the record's rules, worth a word
    # The states a reader already replayed (the initial one, then one per move), so that
    # ``states()`` need not play the game again; recomputed whenever they no longer fit.
    replayed_states: InitVar[list[GameState] | None] = None
    _states: list[GameState] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self, replayed_states: list[GameState] | None) -> None:
        self._states = list(replayed_states or [])

    def states(self) -> list[GameState]:
        """The initial state and the state after every move (and any setup after it), in order."""
        if len(self._states) != len(self.moves) + 1:
            states = [self.initial_state]
            for i, (player, move) in enumerate(self.moves, 1):
                state = states[-1].play_as(player, move)
                if i in self.setups:
                    state = self.setups[i].apply(state)
                states.append(state)
            self._states = states
        return list(self._states)

    @property
    def final_state(self) -> GameState:
        """The state after the last move of the main line."""
        return self.states()[-1]

    def repaired(self, *kinds: str) -> bool:
        """Was anything of these kinds repaired (any kind when none is named)?"""
        return any(not kinds or r.kind in kinds for r in self.repairs)


# --- the record's rules ----------------------------------------------------------------------


def vertex_text(point: Point) -> str:
    """GTP letters where they exist (A-Z without I, rows from 1), else (row, col)."""
    if 1 <= point.col <= len(COLS) and point.row >= 1:
        return coords_from_point(point)
    return f"(row {point.row}, col {point.col})"


def move_text(move: Move) -> str:
    if move.is_pass:
        return "pass"
    if move.is_resign:
        return "resign"
    return vertex_text(move.point)


def default_first_player(handicap: int, has_black_setup: bool) -> Player:
    return Player.white if handicap >= 2 and has_black_setup else Player.black


# --- applying moves --------------------------------------------------------------------------
