"""A search's result as KataGo's analysis answer: ``moveInfos``, ``rootInfo``, ``ownership``,
``policy`` (docs/Analysis_Engine.md, "Responses"), every value from the side ``report_as`` names.

Field by field, what each holds here:

- ``winrate``, ``lcb``: the search's mean value of the move (of the position in ``rootInfo``)
  and its Wilson lower bound, both from the player to move's view, turned to the reported side
  (an ``lcb`` from the other side is ``1 - lcb``, as KataGo turns it);
- ``scoreLead`` (= ``scoreMean`` = ``scoreSelfplay``: dlgo's networks have one score head): the
  search's mean of the tree's scores where the network has a score head, else the logistic fit
  of ``dlgo.analysis.score``; under territory rules less the stones each side is expected to
  have placed by the end (``dlgo.territory.territory_offset``); ``scoreStdev``: from the move's
  ownership map (the root's where the move has none), or the playouts' spread;
- ``utility``: ``2 * winrate - 1``, plus the search's score utility where it plays for points
  (``zero.score_utility``); ``utilityLcb`` the same of ``lcb``;
- ``visits`` (= ``edgeVisits``: a tree has no transpositions), ``prior``, ``order`` (0 for the
  best, moves sorted by it), ``pv`` (the move and at most ``pv_length`` after it), ``pvVisits``
  (= ``pvEdgeVisits``), the move's ``ownership`` (its subtree's mean);
- ``ownership``: row-major from the top-left point (A19 on 19x19), one value per point;
  ``policy``: the network's, row-major from the top-left then pass, -1 where a move is illegal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dlgo.analysis.hashes import position_hashes
from dlgo.analysis.options import TurnOptions
from dlgo.analysis.perspective import lcb_as, ownership_as, sign_for, winrate_as
from dlgo.analysis.score import PlayoutEstimate, lead_from_winrate, stdev_from_ownership
from dlgo.analysis.tree_stats import MoveStats
from dlgo.goboard import GameState
from dlgo.gotypes import Player
from dlgo.search import CandidateInfo, SearchResult
from dlgo.territory import territory_offset
from dlgo.utils import move_to_text

__all__ = ["TurnExtras", "answer", "no_results"]


@dataclass
class TurnExtras:
    """What the answer needs besides the ``SearchResult``: ``ownership`` (the root's, rows from
    the top, Black's view), ``moves`` (``dlgo.analysis.tree_stats``), ``policy`` (KataGo's
    order, -1 for illegal moves), ``playouts`` (agents without a score head), and the search's
    score utility (factor, points scale)."""

    ownership: np.ndarray | None = None
    moves: dict[tuple[int, int] | None, MoveStats] | None = None
    policy: list[float | int] | None = None
    playouts: PlayoutEstimate | None = None
    score_utility: float = 0.0
    score_scale: float = 5.0


def _num(x: float, digits: int | None = None) -> float:
    """A JSON-safe float: never NaN or infinite (a broken network's answer must not break the line)."""
    x = float(x)
    if not math.isfinite(x):
        x = 0.0
    return round(x, digits) if digits is not None else x


# An exact 0 (a point the playouts split evenly) is no value to KaTrain 1.20, whose board then
# fails drawing that stone; a network's ownership is never exactly 0 either.
_EVEN = 1e-6


def _grid(values: np.ndarray, to_move: Player, report_as: str) -> list[float]:
    return [_num(v, 6) or _EVEN for v in ownership_as(values, to_move, report_as).ravel()]


def no_results(turn: int) -> dict[str, Any]:
    """The answer of a turn terminated before any analysis (docs: ``noResults``)."""
    return {"isDuringSearch": False, "noResults": True, "turnNumber": turn}


class _Scorer:
    """Score leads, spreads and utilities of one answer, in the mover's view."""

    def __init__(
        self, result: SearchResult, extras: TurnExtras, rows: int, cols: int, territory_offset: float = 0.0
    ) -> None:
        self.extras = extras
        self.rows, self.cols = rows, cols
        self.offset = territory_offset  # the mover's area lead less its territory lead
        if extras.playouts is not None:
            self.stdev = extras.playouts.stdev
        elif extras.ownership is not None:
            self.stdev = stdev_from_ownership(extras.ownership)
        else:
            self.stdev = 0.0
        self.root_lead = self.lead(result.score_lead, result.winrate)

    def lead(self, score: float | None, winrate: float) -> float:
        area = float(score) if score is not None else lead_from_winrate(winrate, self.rows, self.cols)
        return area - self.offset

    def utility(self, winrate: float, lead: float) -> float:
        u = 2.0 * winrate - 1.0
        e = self.extras
        if e.score_utility > 0:
            u += e.score_utility * 2.0 / math.pi * math.atan((lead - self.root_lead) / e.score_scale)
        return u


def answer(
    state: GameState,
    result: SearchResult,
    options: TurnOptions,
    turn: int,
    extras: TurnExtras,
    during_search: bool = False,
) -> dict[str, Any]:
    """KataGo's analysis answer for ``turn`` (without the query's ``id``)."""
    to_move = state.next_player
    report_as = options.report_as
    sign = sign_for(report_as, to_move)
    offset = 0.0
    if options.territory:
        offset = territory_offset(state) * (1.0 if to_move is Player.black else -1.0)
    scorer = _Scorer(result, extras, state.board.num_rows, state.board.num_cols, offset)
    kept = [c for c in result.candidates if c.visits > 0 and options.keeps(to_move, c.move)]
    infos = [_move_info(c, order, options, extras, scorer, to_move) for order, c in enumerate(kept)]
    this_hash, sym_hash = position_hashes(state)
    root_info = {
        "winrate": _num(winrate_as(min(1.0, max(0.0, result.winrate)), to_move, report_as)),
        "scoreLead": _num(sign * scorer.root_lead),
        "scoreSelfplay": _num(sign * scorer.root_lead),
        "scoreStdev": _num(scorer.stdev),
        "utility": _num(sign * scorer.utility(result.winrate, scorer.root_lead)),
        "visits": int(result.visits),
        "currentPlayer": "B" if to_move is Player.black else "W",
        "thisHash": this_hash,
        "symHash": sym_hash,
    }
    out: dict[str, Any] = {
        "isDuringSearch": during_search,
        "turnNumber": turn,
        "moveInfos": infos,
        "rootInfo": root_info,
    }
    if options.include_ownership and extras.ownership is not None:
        out["ownership"] = _grid(extras.ownership, to_move, report_as)
    if options.include_policy and extras.policy is not None:
        out["policy"] = extras.policy
    return out


def _move_info(
    c: CandidateInfo, order: int, options: TurnOptions, extras: TurnExtras, scorer: _Scorer, to_move: Player
) -> dict[str, Any]:
    report_as = options.report_as
    sign = sign_for(report_as, to_move)
    key = (c.move.point.row, c.move.point.col) if c.move.is_play else None
    stats = extras.moves.get(key) if extras.moves is not None else None
    own = stats.ownership if stats is not None and stats.ownership is not None else extras.ownership
    stdev = stdev_from_ownership(own) if own is not None and extras.playouts is None else scorer.stdev
    lead = scorer.lead(c.score_lead, c.winrate)
    winrate = min(1.0, max(0.0, c.winrate))
    pv = [move_to_text(m) for m in (c.pv or [c.move])][: 1 + options.pv_length]
    info: dict[str, Any] = {
        "move": move_to_text(c.move),
        "visits": int(c.visits),
        "edgeVisits": int(c.visits),
        "winrate": _num(winrate_as(winrate, to_move, report_as)),
        "scoreLead": _num(sign * lead),
        "scoreMean": _num(sign * lead),
        "scoreSelfplay": _num(sign * lead),
        "scoreStdev": _num(stdev),
        "prior": _num(c.prior),
        "utility": _num(sign * scorer.utility(winrate, lead)),
        "lcb": _num(lcb_as(c.lcb, to_move, report_as)),
        "utilityLcb": _num(sign * scorer.utility(c.lcb, lead)),
        "order": order,
        "pv": pv,
    }
    if options.include_pv_visits:
        visits = stats.pv_visits if stats is not None else [int(c.visits)]
        pv = info["pv"] = pv[: len(visits)]  # no tree to read (MCTS): the move alone
        info["pvVisits"] = visits[: len(pv)]
        info["pvEdgeVisits"] = visits[: len(pv)]
    if options.include_moves_ownership and own is not None:
        info["ownership"] = _grid(own, to_move, report_as)
    return info
