"""What one turn's analysis is asked for: KataGo's query fields, without the protocol."""

from __future__ import annotations

from dataclasses import dataclass

from dlgo.goboard import Move
from dlgo.gotypes import Player

__all__ = ["TurnOptions", "MoveFilter", "DEFAULT_PV_LENGTH"]

DEFAULT_PV_LENGTH = 15  # KataGo's analysisPVLen default (cpp/configs/analysis_example.cfg)


@dataclass(frozen=True)
class MoveFilter:
    """``avoidMoves``/``allowMoves`` for one player: ``moves`` keyed as (row, col), None for pass;
    ``allow``: only these (else: all but these). dlgo restricts the root only (``untilDepth`` 1)."""

    player: Player
    moves: frozenset[tuple[int, int] | None]
    allow: bool = False

    def keeps(self, move: Move) -> bool:
        key = (move.point.row, move.point.col) if move.is_play else None
        return (key in self.moves) == self.allow


@dataclass(frozen=True)
class TurnOptions:
    """``max_visits``: root visits (the search's budget); ``max_time``: seconds (None: no limit);
    ``report_as``: BLACK, WHITE or SIDETOMOVE; ``pv_length``: moves after the first in each PV;
    ``root_temperature``: the root policy's temperature (``rootPolicyTemperature`` times what
    ``wideRootNoise`` asks); ``report_every``: seconds between reports during the search (None:
    only the final one); the ``include_*`` flags as KataGo's; ``territory``: the score leads are
    those of a territory count (the rules score territory)."""

    max_visits: int = 500
    max_time: float | None = None
    report_as: str = "BLACK"
    pv_length: int = DEFAULT_PV_LENGTH
    include_ownership: bool = False
    include_moves_ownership: bool = False
    include_policy: bool = False
    include_pv_visits: bool = False
    root_temperature: float = 1.0
    filters: tuple[MoveFilter, ...] = ()
    report_every: float | None = None
    territory: bool = False

    def keeps(self, player: Player, move: Move) -> bool:
        """Whether a root move of ``player`` may be searched and reported."""
        return all(f.keeps(move) for f in self.filters if f.player is player)
