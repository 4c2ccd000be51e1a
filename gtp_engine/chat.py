"""Chat for gtp2ogs: stderr lines per move with the engine's win rate and principal variations.

gtp2ogs turns stderr lines containing ``MALKOVICH:`` into the game's Malkovich log (shown to
observers, and to the players after the game) and ``DISCUSSION:`` into the game chat. With
``send_pv_data`` its ``PvOutputParser`` also reads the search's candidates in the form Leela Zero
prints them after a move (:func:`variation_lines`: a line per root move, ``Q16 -> 1234 (V:
55.12%) (LCB: 53.40%) (N: 23.45%) PV: Q16 D4 ...``, then ``1234 visits, ... n/s``) and sends the
best move's variation to OGS, where players and observers step through it on the board. The
lines are written to stderr directly, before the move's answer on stdout, while gtp2ogs still
waits for the move: logging filters these words out of ordinary log lines.
"""

from __future__ import annotations

import sys
from typing import TextIO

from dlgo.gotypes import Player
from dlgo.search import CandidateInfo, SearchResult
from gtp_engine.analysis_formats import pv_moves
from gtp_engine.protocol import format_move

__all__ = ["CHANNELS", "chat_line", "send_chat", "variation_lines", "send_lines"]

CHANNELS = {"malkovich": "MALKOVICH:", "discussion": "DISCUSSION:"}


def chat_line(channel: str, player: Player, candidate: CandidateInfo | None, pv_length: int = 8) -> str | None:
    """``MALKOVICH: black D4: win rate 54.3%, 1234 visits, PV D4 Q16 C3`` (None without a search)."""
    if candidate is None:
        return None
    pv = " ".join(pv_moves(candidate)[:pv_length])
    return (
        f"{CHANNELS[channel]} {player.name} {format_move(candidate.move)}: "
        f"win rate {candidate.winrate * 100:.1f}%, {candidate.visits} visits, PV {pv}"
    )


def send_chat(line: str | None, stream: TextIO | None = None) -> None:
    if line:
        out = stream if stream is not None else sys.stderr
        out.write(line + "\n")
        out.flush()


def variation_lines(result: SearchResult | None, candidates: int = 10, pv_length: int = 15) -> list[str]:
    """The search's root moves in Leela Zero's stderr format (the module docstring), best first,
    then its summary line; none without a search. Win rates and priors are for the player who
    moved, as Leela Zero prints them."""
    if result is None or not result.candidates:
        return []
    lines = []
    for c in [c for c in result.candidates if c.visits > 0][:candidates]:
        pv = " ".join(pv_moves(c)[:pv_length])
        lines.append(
            f"{format_move(c.move):>4} -> {c.visits:7d} (V: {c.winrate * 100:5.2f}%) "
            f"(LCB: {max(0.0, c.lcb) * 100:5.2f}%) (N: {c.prior * 100:5.2f}%) PV: {pv}"
        )
    rate = result.visits / result.elapsed if result.elapsed > 0 else 0.0
    lines.append(f"{result.visits} visits, {result.visits} nodes, {result.visits} playouts, {rate:.0f} n/s")
    return lines


def send_lines(lines: list[str], stream: TextIO | None = None) -> None:
    """``lines`` on stderr (or ``stream``) at once, flushed."""
    if lines:
        out = stream if stream is not None else sys.stderr
        out.write("".join(line + "\n" for line in lines))
        out.flush()
