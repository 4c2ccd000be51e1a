"""The game an engine session plays: position, move history for ``undo``, setup and handicap.

GTP lets a controller play either colour at any time (``play b`` twice sets up a position,
``genmove w`` when Black is to move). :func:`position_for` gives the position with a chosen
player to move while keeping the whole history (superko), and moves are applied on top of it.
Setup stones (handicap, SGF setup) form the initial position, so ``undo`` never goes past them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.handicap import handicap_compensation as handicap_compensation_points
from dlgo.play.errors import BadSetup, BoardNotEmpty, CannotUndo, IllegalMove

__all__ = ["Game", "position_for"]


def position_for(state: GameState, player: Player) -> GameState:
    """``state`` with ``player`` to move and the same history.

    The state itself when it is ``player``'s turn and the game goes on; else a new node after
    ``state`` with no move (``last_move`` None), so the history (superko) stays one chain, a
    game ended by two passes can go on, and no ko ban carries over to the other player.
    """
    if state.next_player is player and not state.is_over():
        return state
    return GameState(state.board, player, state, None, state.komi)


class Game:
    """Board size, komi, the initial (setup) position and the moves played since."""

    def __init__(
        self, rows: int = 19, cols: int | None = None, komi: float = 7.5, handicap_compensation: str = "chinese"
    ) -> None:
        handicap_compensation_points(0, handicap_compensation)  # rejects an unknown rule
        self.rows = rows
        self.cols = cols if cols is not None else rows
        self.komi = komi
        self.handicap = 0
        self.handicap_compensation = handicap_compensation
        self.initial = GameState.new_game((self.rows, self.cols), komi)
        self._states: list[GameState] = []  # the state after each move
        self._moves: list[tuple[Player, Move]] = []

    # --- queries ---------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        return self._states[-1] if self._states else self.initial

    @property
    def scoring_komi(self) -> float:
        """Komi plus White's compensation for handicap stones: what the count and the agents use."""
        return self.komi + handicap_compensation_points(self.handicap, self.handicap_compensation)

    @property
    def moves(self) -> list[tuple[Player, Move]]:
        return list(self._moves)

    @property
    def num_moves(self) -> int:
        return len(self._moves)

    @property
    def board(self) -> Board:
        return self.state.board

    def is_empty(self) -> bool:
        """No stone on the board and no move played (``board not empty`` otherwise)."""
        return not self._moves and next(iter(self.initial.board.stones()), None) is None

    def last_move_by(self, player: Player) -> Move | None:
        for who, move in reversed(self._moves):
            if who is player:
                return move
        return None

    def opponent_passed(self, player: Player) -> bool:
        """Did the last move come from the other player, and was it a pass?"""
        if not self._moves:
            return False
        who, move = self._moves[-1]
        return who is not player and move.is_pass

    def copy(self) -> Game:
        """An independent copy (states are immutable, so only the lists are copied)."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._states = list(self._states)
        other._moves = list(self._moves)
        return other

    def captures(self, player: Player) -> int:
        """Stones of ``player`` taken off the board so far (by the other player)."""
        placed = sum(1 for who, move in self._moves if who is player and move.is_play)
        placed += sum(1 for _, c in self.initial.board.stones() if c is player)
        on_board = sum(1 for _, c in self.state.board.stones() if c is player)
        return placed - on_board

    # --- changes ---------------------------------------------------------------------------
    def clear(self, rows: int | None = None, cols: int | None = None) -> None:
        self.__init__(rows or self.rows, cols or (rows or self.cols), self.komi, self.handicap_compensation)

    def set_komi(self, komi: float) -> None:
        self.komi = komi
        self._renew_scoring_komi()

    def _renew_scoring_komi(self) -> None:
        """Replace the initial state and every state played by copies with the scoring komi."""
        komi = self.scoring_komi
        renewed: dict[int, GameState] = {}  # id(old state) -> its copy with ``komi``
        for state in reversed([self.initial, *self._states]):
            if id(state) in renewed:
                continue
            old: GameState | None = state
            new: GameState | None = state.with_komi(komi)
            while old is not None and old is not new and id(old) not in renewed:
                renewed[id(old)] = new
                old, new = old.previous_state, new.previous_state
        self.initial = renewed.get(id(self.initial), self.initial)
        self._states = [renewed.get(id(s), s) for s in self._states]

    def is_legal(self, player: Player, move: Move) -> bool:
        """GTP's rule on top of the board's: resign is no move for ``play``."""
        return not move.is_resign and self.state.illegal_reason(player, move) is None

    def play(self, player: Player, move: Move) -> GameState:
        """Play ``move`` for ``player``; IllegalMove leaves everything unchanged."""
        if not self.is_legal(player, move):
            raise IllegalMove(f"illegal move for {player.name}")
        new = position_for(self.state, player).apply_move(move)
        self._states.append(new)
        self._moves.append((player, move))
        return new

    def undo(self) -> None:
        if not self._moves:
            raise CannotUndo("no move to undo")
        self._states.pop()
        self._moves.pop()

    def set_handicap(self, points: Iterable[Point], count_as_handicap: bool = True) -> None:
        """Black stones on an empty board, White to move; they are setup, not moves."""
        points = list(points)
        if not self.is_empty():
            raise BoardNotEmpty("the board already has stones")
        if len(set(points)) != len(points) or len(points) >= self.rows * self.cols:
            raise BadSetup("setup points repeated, off the board or without liberties")
        board = Board(self.rows, self.cols)
        for p in points:
            if not board.is_on_grid(p):
                raise BadSetup("setup points repeated, off the board or without liberties")
            board.place_stone(Player.black, p)
        if any(board.get(p) is None for p in points):
            raise BadSetup("a setup stone without liberties")
        self.initial = GameState.from_position(board, Player.white, self.komi)
        self.handicap = len(points) if count_as_handicap else 0
        self._renew_scoring_komi()

    def load(
        self,
        initial: GameState,
        moves: Iterable[tuple[Player, Move]],
        handicap: int = 0,
        states: Sequence[GameState] | None = None,
    ) -> None:
        """Replace the game by ``initial`` plus ``moves`` (IllegalMove if one is not legal).

        ``states`` (the state after each move) takes the moves as history, unchecked: a record
        replayed under its own rules (``dlgo.sgf``: simple ko, say) may break this engine's superko.
        """
        moves = list(moves)
        if states is not None and len(states) != len(moves):
            raise ValueError(f"{len(states)} states for {len(moves)} moves")
        self.rows, self.cols = initial.board.num_rows, initial.board.num_cols
        self.komi = initial.komi
        self.handicap = handicap
        self.initial = initial
        self._states, self._moves = [], []
        if states is not None:
            self._states, self._moves = list(states), moves
        self._renew_scoring_komi()
        if states is None:
            for player, move in moves:
                self.play(player, move)
