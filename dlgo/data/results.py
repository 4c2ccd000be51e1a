"""Game results (SGF ``RE``) as value targets: who won, and whether the result says anything about
the position.

A game decided on the board (``B+3.5``, ``W+R``, ``W+Resign``) or drawn (``0``, ``Draw``, ``Jigo``)
gives a value target. A game lost on time, by forfeit or by leaving (``B+Time``, ``W+Forfeit``,
``B+Offline``), a void game and a missing or unknown result do not: their moves are still good
policy samples, but the final position says nothing about who was winning, so their value targets
are masked (``value_ok`` false).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dlgo.gotypes import Player

__all__ = ["RecordedResult", "parse_result"]

_NOT_ON_BOARD = {
    "T": "time",
    "TIME": "time",
    "F": "forfeit",
    "FORFEIT": "forfeit",
    "OFFLINE": "forfeit",
    "DISCONNECT": "forfeit",
    "DISQUALIFIED": "forfeit",
}
_RESIGN = {"R", "RESIGN", "RESIGNATION"}
_DRAWS = {"0", "DRAW", "JIGO", "D"}
_SCORE = re.compile(r"^\d+(?:[.,]\d+)?$")


@dataclass(frozen=True)
class RecordedResult:
    """The result a game record states (its RE property), not a count of the board (that is the
    book's :class:`dlgo.scoring.GameResult`).

    ``winner``: the colour that won (None: draw, void or unknown). ``kind``: "score", "resign",
    "draw", "time", "forfeit", "void" or "unknown". ``value_ok``: usable as a value target."""

    winner: Player | None
    kind: str
    value_ok: bool

    def value_for(self, player: Player) -> int:
        """+1 if ``player`` won, -1 if it lost, 0 for a draw (or a result without a winner)."""
        if self.winner is None:
            return 0
        return 1 if self.winner is player else -1


def parse_result(text: str | None) -> RecordedResult:
    """Classify an SGF ``RE`` value (case and white space do not matter)."""
    if text is None or not text.strip():
        return RecordedResult(None, "unknown", False)
    value = text.strip().upper()
    if value in _DRAWS:
        return RecordedResult(None, "draw", True)
    if value in ("VOID", "?"):
        return RecordedResult(None, "void" if value == "VOID" else "unknown", False)
    if len(value) >= 2 and value[0] in "BW" and value[1] == "+":
        winner = Player.black if value[0] == "B" else Player.white
        how = value[2:].strip()
        if how in _RESIGN:
            return RecordedResult(winner, "resign", True)
        if how in _NOT_ON_BOARD:
            return RecordedResult(winner, _NOT_ON_BOARD[how], False)
        if how == "" or _SCORE.match(how):
            return RecordedResult(winner, "score", True)
        return RecordedResult(winner, "unknown", False)
    return RecordedResult(None, "unknown", False)
