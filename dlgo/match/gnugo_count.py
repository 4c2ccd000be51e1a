"""Counting finished games: area scoring after the players' dead-stone lists, with a GNU Go check.

The referee asks both players for ``final_status_list dead``. Stones either player lists as
dead (the union; ``policy="agreed"``: only stones both list) are taken off before an area
count with :func:`dlgo.scoring.compute_game_result`. :class:`GnuGoScorer` replays the game
in a separate GNU Go (``--chinese-rules --capture-all-dead``) and asks ``final_score``; the two
counts go side by side into the record, and a different winner is flagged, never hidden.

Both counts give White one point per handicap stone (Chinese rules, as GNU Go's
``--chinese-rules``). Only the winners are compared: on an unfinished position (a game stopped
at the move limit) GNU Go plays the rest out.
"""

from __future__ import annotations

from collections.abc import Iterable

from dlgo.goboard import GameState
from dlgo.gotypes import Point
from dlgo.handicap import handicap_compensation
from dlgo.match.gtp_client import GtpClientError, GtpProcess
from dlgo.match.players import GNUGO_REFEREE_ARGS, find_gnugo
from dlgo.scoring import GameResult, compute_game_result
from dlgo.utils import point_from_coords

__all__ = ["parse_vertex_list", "count_with_dead", "GnuGoScorer", "result_winner"]


def parse_vertex_list(text: str) -> list[Point]:
    """Vertices of a ``final_status_list`` answer (any white space, one group per line)."""
    points = []
    for word in text.split():
        if word.lower() == "pass":
            continue
        points.append(point_from_coords(word))
    return points


def count_with_dead(
    state: GameState,
    dead_lists: Iterable[Iterable[Point] | None],
    policy: str = "union",
    handicap: int = 0,
) -> tuple[str, list[Point]]:
    """Area count of ``state`` after removing dead stones; returns ``(result, dead stones used)``.

    ``dead_lists`` holds each player's list (None: that player gave none). ``union`` removes
    what any list names, ``agreed`` only what every given list names. Points without a stone
    are ignored. ``handicap`` stones earn White their Chinese-rules compensation.
    """
    given = [set(d) for d in dead_lists if d is not None]
    if not given:
        dead: set[Point] = set()
    elif policy == "agreed":
        dead = set.intersection(*given)
    elif policy == "union":
        dead = set.union(*given)
    else:
        raise ValueError(f"unknown dead-stone policy {policy!r}")
    dead = {p for p in dead if state.board.is_on_grid(p) and state.board.get(p) is not None}
    counted = compute_game_result(state, dead)
    counted = GameResult(counted.b, counted.w, counted.komi + handicap_compensation(handicap))
    return str(counted), sorted(dead)


def result_winner(result: str | None) -> str | None:
    """``B`` / ``W`` from ``B+3.5`` / ``W+R``; None for a draw, void or unknown."""
    if not result:
        return None
    text = result.strip().upper()
    if text.startswith("B+"):
        return "B"
    if text.startswith("W+"):
        return "W"
    return None


class GnuGoScorer:
    """Counts games with GNU Go: ``score(...)`` replays a game and returns its ``final_score``.

    Every call starts a fresh GNU Go: GNU Go 3.8 caches the count of a position across
    ``clear_board`` and answers the old count after a ``komi`` change (seen with two games that
    end in the same position), and a start costs only some 50 ms.
    """

    def __init__(self, path: str | None = None, timeout: float = 120.0) -> None:
        self.path = path or find_gnugo()
        self.timeout = timeout

    @property
    def available(self) -> bool:
        return self.path is not None

    def score(
        self,
        size: int,
        komi: float,
        handicap_stones: list[str],
        moves: list[list[str]],
    ) -> str:
        """GNU Go's count of the game (``B+3.5``, ``W+0.5``, ``0``); raises GtpClientError."""
        if self.path is None:
            raise GtpClientError("crash", "GNU Go not found")
        if size > 19:
            raise GtpClientError("failure", f"GNU Go cannot count a {size}x{size} board")
        gnugo = GtpProcess([self.path, *GNUGO_REFEREE_ARGS], "gnugo-referee")
        try:
            gnugo.start()
            gnugo.send(f"boardsize {size}", self.timeout)
            gnugo.send("clear_board", self.timeout)
            gnugo.send(f"komi {komi:g}", self.timeout)
            if handicap_stones:
                gnugo.send("set_free_handicap " + " ".join(handicap_stones), self.timeout)
            for number, (colour, vertex) in enumerate(moves, start=1):
                ok, text = gnugo.ask(f"play {colour} {vertex}", self.timeout)
                if not ok:
                    raise GtpClientError("failure", f"GNU Go refuses move {number} ({colour} {vertex}): {text}")
            return gnugo.send("final_score", self.timeout).split()[0]
        finally:
            gnugo.close()

    def close(self) -> None:
        """Nothing to release (kept so a scorer can be used as a context manager)."""

    def __enter__(self) -> GnuGoScorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
