"""The win rates of our own generated moves in the current game line, for the resign rule.

The engine resigns only when the position stays lost for ``resign.consecutive_moves`` of our
moves in a row, each generated after a real search (``decision.resign_value``). A move undone,
or one the controller played for us with ``play``, breaks the run.
"""

from __future__ import annotations

from collections.abc import Iterator

from dlgo.goboard import GameState
from dlgo.gotypes import Player
from dlgo.play.decision import MoveChoice, resign_value

__all__ = ["ResignHistory"]


def _line(state: GameState) -> Iterator[tuple[GameState, Player]]:
    """(state, player who moved into it) of each move of ``state``'s line, latest first."""
    s: GameState | None = state
    while s is not None and s.previous_state is not None:
        if s.last_move is not None:  # position_for nodes (a player to move set) are no moves
            yield s, s.previous_state.next_player
        s = s.previous_state


class ResignHistory:
    """``resign_value`` of each move we generated and played, keyed by the GameState it made.

    GameState hashes by identity and every move (genmove, play, undo+replay, loadsgf,
    clear_board) makes new state objects, so walking back from the current position finds
    exactly our own generated moves of the current line, with no bookkeeping in the other
    commands; entries off the current line are dropped at the next record.
    """

    def __init__(self) -> None:
        self._values: dict[GameState, float | None] = {}

    def previous(self, state: GameState, player: Player, n: int) -> list[float | None]:
        """resign_value of ``player``'s last ``n`` moves in ``state``'s line (None: not generated)."""
        values: list[float | None] = []
        if n <= 0:
            return values
        for s, who in _line(state):
            if who is player:
                values.append(self._values.get(s))
                if len(values) == n:
                    break
        return values

    def record(self, state: GameState, choice: MoveChoice) -> None:
        """``choice`` was just played, making ``state``."""
        line = {s for s, _ in _line(state)}
        self._values = {s: v for s, v in self._values.items() if s in line}
        self._values[state] = resign_value(choice)
