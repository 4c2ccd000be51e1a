"""Whose view analysis values are reported from: KataGo's ``reportAnalysisWinratesAs``.

A search knows every value from the view of the player to move at its root (win rates, score
leads, utilities) and ownership from Black's view (+1 Black). KataGo's analysis engine reports
win rates, scores, utilities and ownership all from one side, set by its config's
``reportAnalysisWinratesAs`` (BLACK, WHITE or SIDETOMOVE; docs/Analysis_Engine.md: "All values
will be from the perspective of reportAnalysisWinratesAs"); its GTP ``kata-analyze`` reports
from the side to move. These helpers turn the search's views into the one asked for.
"""

from __future__ import annotations

import numpy as np

from dlgo.gotypes import Player

__all__ = ["REPORT_AS", "sign_for", "winrate_as", "lcb_as", "ownership_as"]

REPORT_AS = ("BLACK", "WHITE", "SIDETOMOVE")


def sign_for(report_as: str, to_move: Player) -> float:
    """+1 when the reported side is the player to move, -1 otherwise: multiply a value from the
    mover's view (a score lead, a utility in [-1, 1]) by it."""
    if report_as == "SIDETOMOVE":
        return 1.0
    if report_as not in REPORT_AS:
        raise ValueError(f"report_as must be one of {', '.join(REPORT_AS)}, not {report_as!r}")
    reported = Player.black if report_as == "BLACK" else Player.white
    return 1.0 if to_move is reported else -1.0


def winrate_as(winrate: float, to_move: Player, report_as: str) -> float:
    """A win rate of the player to move, from the reported side's view."""
    return winrate if sign_for(report_as, to_move) > 0 else 1.0 - winrate


def lcb_as(lcb: float, to_move: Player, report_as: str) -> float:
    """A lower confidence bound of the mover's win rate, reported as KataGo does: from the other
    side's view it is ``1 - lcb`` (then above the win rate; KataGo flips it the same way)."""
    return winrate_as(lcb, to_move, report_as)


def ownership_as(ownership: np.ndarray, to_move: Player, report_as: str) -> np.ndarray:
    """Ownership in Black's view (+1 Black) from the reported side's view (+1 that side)."""
    black_sign = 1.0 if report_as == "BLACK" else -1.0 if report_as == "WHITE" else None
    if black_sign is None:
        black_sign = 1.0 if to_move is Player.black else -1.0
    return np.asarray(ownership, dtype=np.float64) * black_sign
