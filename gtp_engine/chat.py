"""Chat for gtp2ogs: a stderr line per move with the engine's win rate and principal variation.

gtp2ogs turns stderr lines containing ``MALKOVICH:`` into the game's Malkovich log (shown to
observers, and to the players after the game) and ``DISCUSSION:`` into the game chat. The lines
are written to stderr directly: logging filters these words out of ordinary log lines.
"""

from __future__ import annotations

import sys
from typing import TextIO

from dlgo.gotypes import Player
from dlgo.search import CandidateInfo
from gtp_engine.analysis_formats import pv_moves
from gtp_engine.protocol import format_move

__all__ = ["CHANNELS", "chat_line", "send_chat"]

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
