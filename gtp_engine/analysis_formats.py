"""Analysis output from a ``SearchResult``: Leela Zero, KataGo and GoGui formats.

- Leela Zero style (``lz-analyze``, ``analyze``, ``lz-genmove_analyze``, ``genmove_analyze``):
  ``info move D4 visits 836 winrate 4656 prior 839 lcb 4640 order 0 pv D4 Q16`` with win rate,
  prior and lcb as integers (10000 = 100%), every candidate on one line.
- KataGo style (``kata-analyze``, ``kata-genmove_analyze``): the same keys as floats in [0, 1],
  ``scoreLead`` when the search knows it, and a trailing ``ownership`` with one float per point
  (rows from the top, from the side to move's view) only when asked for.
- Principal variations stop before the first pass (a pass inside a PV once hung Sabaki).
- GoGui: ``dboard`` (ownership), ``pspairs`` (visits per move) and ``var`` (the PV).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from dlgo.goboard import Move
from dlgo.gotypes import Player, Point
from dlgo.search import CandidateInfo, SearchResult
from gtp_engine.protocol import SYNTAX_ERROR, GtpError, format_move, parse_color, parse_float, parse_int, parse_vertex

__all__ = [
    "LEELA_ZERO_LEVEL",
    "gtp_version",
    "AnalysisRequest",
    "parse_analysis_args",
    "pv_moves",
    "info_line",
    "gogui_dboard",
    "gogui_pspairs",
    "gogui_var",
    "explain",
]

# The Leela Zero release whose analysis protocol the engine speaks: lz-analyze with interval,
# avoid/allow and minmoves, lcb and order in its info lines, lz-genmove_analyze.
LEELA_ZERO_LEVEL = "0.17"


def gtp_version(dlgo_version: str) -> str:
    """The answer to GTP ``version``: the Leela Zero analysis level first, then dlgo's version.

    Lizzie 0.7 treats every engine whose name does not start with ``KataGo`` as Leela Zero: it
    takes the first word of the answer, splits it at dots and refuses the engine when the
    second number is below 15 (then deadlocks at "engine is loading..."), or stops reading the
    engine when that word has no dot or no number there. ``0.1.0`` failed; the analysis level
    is what that check is about (its message: "Lizzie requires version 0.15 or later of Leela
    Zero for analysis"), so it comes first and the name stays ``dlgo``.
    """
    return f"{LEELA_ZERO_LEVEL} (dlgo {dlgo_version}, Leela Zero {LEELA_ZERO_LEVEL} analysis protocol)"


_BOOL_KEYS = (
    "ownership",
    "ownershipStdev",
    "movesOwnership",
    "movesOwnershipStdev",
    "pvVisits",
    "pvEdgeVisits",
    "rootInfo",
)


@dataclass
class AnalysisRequest:
    """Arguments of an analysis command: ``[colour] [interval] key value ...``."""

    player: Player | None = None
    interval: float = 0.0  # seconds between info lines; 0: one line at the end only
    min_moves: int = 0
    max_moves: int = 0  # 0: all
    ownership: bool = False
    avoid: set[Point] = field(default_factory=set)  # moves not to print (at the root)
    allow: set[Point] | None = None  # only these moves are printed (at the root)

    def keeps(self, move: Move) -> bool:
        if not move.is_play:
            return self.allow is None
        if move.point in self.avoid:
            return False
        return self.allow is None or move.point in self.allow


def _parse_bool(text: str) -> bool:
    low = text.lower()
    if low in ("true", "1", "yes"):
        return True
    if low in ("false", "0", "no"):
        return False
    raise GtpError(SYNTAX_ERROR)


def _parse_interval(text: str) -> float:
    return parse_float(text, minimum=0.0) / 100.0


def parse_analysis_args(args: Sequence[str], rows: int, cols: int) -> AnalysisRequest:
    """Leela Zero / KataGo analysis arguments; GtpError(syntax error) on anything malformed."""
    req = AnalysisRequest()
    i, n = 0, len(args)
    if i < n and args[i].lower() in ("b", "w", "black", "white"):
        req.player = parse_color(args[i])
        i += 1
    if i < n and args[i][:1].isdigit():
        req.interval = _parse_interval(args[i])
        i += 1
    while i < n:
        key = args[i]
        if i + 1 >= n:
            raise GtpError(SYNTAX_ERROR)
        value = args[i + 1]
        if key == "interval":
            req.interval = _parse_interval(value)
            i += 2
        elif key == "minmoves":
            req.min_moves = parse_int(value, minimum=0)
            i += 2
        elif key == "maxmoves":
            req.max_moves = parse_int(value, minimum=0)
            i += 2
        elif key in _BOOL_KEYS:
            flag = _parse_bool(value)
            if key == "ownership":
                req.ownership = flag
            i += 2
        elif key in ("avoid", "allow"):
            if i + 3 >= n:
                raise GtpError(SYNTAX_ERROR)
            parse_color(args[i + 1])
            parse_int(args[i + 3], minimum=0)
            points = set()
            for text in args[i + 2].split(","):
                if text.lower() == "pass":
                    continue
                try:
                    points.add(parse_vertex(text, rows, cols))
                except GtpError:
                    raise GtpError(SYNTAX_ERROR) from None
            if key == "avoid":
                req.avoid |= points
            else:
                req.allow = (req.allow or set()) | points
            i += 4
        else:
            raise GtpError(SYNTAX_ERROR)
    return req


def pv_moves(candidate: CandidateInfo) -> list[str]:
    """The PV as vertices, stopped before the first pass (a pass candidate's PV is ``pass``)."""
    if candidate.move.is_pass:
        return ["pass"]
    out = []
    for move in candidate.pv or [candidate.move]:
        if not move.is_play:
            break
        out.append(format_move(move))
    return out or [format_move(candidate.move)]


def _ownership_values(ownership: np.ndarray, to_move: Player) -> list[float]:
    """Rows from the top, +1 black -> flat list from the side to move's view."""
    sign = 1.0 if to_move is Player.black else -1.0
    return [float(v) * sign for v in np.asarray(ownership, dtype=float).ravel()]


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))


def info_line(
    result: SearchResult,
    kata: bool,
    request: AnalysisRequest,
    to_move: Player,
    ownership: np.ndarray | None = None,
) -> str:
    """One analysis line (every candidate, best first); '' when the search has no candidate."""
    cands = [c for c in result.candidates if c.visits > 0 and request.keeps(c.move)]
    if request.max_moves:
        cands = cands[: request.max_moves]
    parts = []
    for order, c in enumerate(cands):
        pv = " ".join(pv_moves(c))
        if kata:
            fields = f"info move {format_move(c.move)} visits {c.visits} winrate {_clip(c.winrate):.6f}"
            if c.score_lead is not None:
                fields += f" scoreMean {c.score_lead:.6f} scoreLead {c.score_lead:.6f}"
            fields += f" prior {_clip(c.prior):.6f} lcb {_clip(c.lcb):.6f} order {order} pv {pv}"
        else:
            fields = (
                f"info move {format_move(c.move)} visits {c.visits} winrate {round(_clip(c.winrate) * 10000)}"
                f" prior {round(_clip(c.prior) * 10000)} lcb {round(_clip(c.lcb) * 10000)} order {order} pv {pv}"
            )
        parts.append(fields)
    line = " ".join(parts)
    if request.ownership:
        own = ownership if ownership is not None else result.ownership
        if own is not None:
            values = " ".join(f"{v:.6f}" for v in _ownership_values(own, to_move))
            line = f"{line} ownership {values}" if line else f"ownership {values}"
    return line


def gogui_dboard(ownership: np.ndarray) -> str:
    """GoGui ``dboard``: one float per point, rows from the top (+1 black, -1 white)."""
    rows = np.asarray(ownership, dtype=float)
    return "\n" + "\n".join(" ".join(f"{v:.2f}" for v in row) for row in rows)


def gogui_pspairs(result: SearchResult) -> str:
    """GoGui ``pspairs``: ``D4 836 E5 120 ...`` (visits per candidate; no pass)."""
    return " ".join(f"{format_move(c.move)} {c.visits}" for c in result.candidates if c.move.is_play and c.visits)


def gogui_var(result: SearchResult, to_move: Player) -> str:
    """GoGui ``var``: the best PV with colours, ``b D4 w Q16 ...`` (stops before a pass).

    A best move of pass shows as ``b pass`` (GoGui reads it as a pass move), not as an empty
    variation that would hide what the search chose."""
    best = result.best
    if best is None:
        return ""
    out, player = [], to_move
    for vertex in pv_moves(best):
        out.append(f"{'b' if player is Player.black else 'w'} {vertex}")
        player = player.other
    return " ".join(out)


def explain(result: SearchResult | None, candidate: CandidateInfo | None, move: Move, reason: str) -> str:
    """One line for ``gomill-explain_last_move``."""
    text = f"{format_move(move)}: {reason}"
    if candidate is not None:
        pv = " ".join(pv_moves(candidate))
        text += f"; {candidate.visits} visits, win rate {candidate.winrate * 100:.1f}%, pv {pv}"
    if result is not None:
        text += f"; {result.visits} visits in {result.elapsed:.2f} s"
    return text
