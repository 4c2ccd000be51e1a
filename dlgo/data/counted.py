"""Human games that ended by counting: the records whose result is a score (``RE[B+3.5]``), not a
resignation or time.

Their last position keeps the dead stones on the board (the players agreed on them and removed
them only in the count), so a dead-stone estimate can be checked on it (``dlgo.bench.deadstones``)
and, where the estimate agrees with the record, every position of the game learns the final
owner of each point and the final score (``dlgo.zero.counted``).

Games with a handicap or setup stones are left out: handicap compensation differs between
rulesets, so their recorded score says less about the area count.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from dlgo.sgf.record import SgfGame

__all__ = ["CountedRecord", "recorded_score", "iter_counted"]

_SCORE = re.compile(r"^\s*([BW])\+(\d+(?:[.,]\d+)?)\s*$", re.IGNORECASE)
_RESULT = re.compile(rb"RE\[([^\]]*)\]")


@dataclass(frozen=True)
class CountedRecord:
    """A counted game: its id in the archives, the game, and the recorded winner and margin."""

    game_id: str
    game: SgfGame
    winner: str  # "B" or "W", as recorded
    margin: float  # points, as recorded (territory or area, by the record's rules)

    @property
    def black_lead(self) -> float:
        """The recorded result from Black's side: + Black won by that many points."""
        return self.margin if self.winner == "B" else -self.margin


def recorded_score(result: str) -> tuple[str, float] | None:
    """``("B", 3.5)`` for ``B+3.5`` (a comma for the decimal point too); None for a resignation,
    a time or forfeit result, a draw or no score at all."""
    match = _SCORE.match(result)
    if match is None:
        return None
    return match.group(1).upper(), float(match.group(2).replace(",", "."))


def iter_counted(
    sources: Iterable[str | os.PathLike], margin: float = 0.0, min_moves: int = 0
) -> Iterator[CountedRecord]:
    """The counted games of ``sources`` (archives or folders, ``dlgo.data.archives``) in reading
    order, with a recorded margin of at least ``margin`` points and at least ``min_moves`` moves,
    without handicap or setup stones. Unreadable archives and records are skipped with a line
    on stderr."""
    from dlgo.data.archives import iter_records
    from dlgo.sgf.reader import read_game
    from dlgo.sgf.record import SgfError

    for record in iter_records(sources, on_error=lambda where, e: print(f"skipped {where}: {e}", file=sys.stderr)):
        match = _RESULT.search(record.data)
        score = recorded_score(match.group(1).decode("ascii", "replace")) if match else None
        if score is None or score[1] < margin:
            continue
        try:
            game = read_game(record.data, name=record.game_id, log_repairs=False)
        except SgfError:
            continue
        if game.handicap or len(game.moves) < min_moves or game.setups:
            continue
        yield CountedRecord(record.game_id, game, score[0], score[1])
