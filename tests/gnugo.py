"""GNU Go as a rules referee for the tests (not a test module), on the one GTP client.

``GnuGo.start()`` (or the ``gnugo`` fixture in conftest.py) runs ``gnugo --mode gtp
--chinese-rules --level 1`` through :class:`dlgo.match.gtp_client.GtpProcess`; ``send(command)``
returns the answer text and raises :class:`GtpClientError` on a ``?`` answer, ``ask(command)``
returns ``(success, text)`` and never raises on ``?``; ``close()`` sends ``quit`` and reaps the
process.
"""

from __future__ import annotations

from dlgo.gotypes import Point
from dlgo.match.gtp_client import GtpClientError, GtpProcess
from dlgo.match.players import find_gnugo
from dlgo.utils import coords_from_point, point_from_coords

__all__ = ["GNUGO_COMMAND", "GnuGo", "GtpClientError", "find_gnugo", "parse_vertices"]


GNUGO_COMMAND = ["--mode", "gtp", "--chinese-rules", "--level", "1"]


class GnuGo:
    """One GNU Go process in GTP mode; ``send``/``ask`` write a command and read its answer.

    Commands wait for their answer without a time limit, as a referee in a test should: a hang is
    the test's own timeout to report. A GNU Go that dies raises ``GtpClientError`` ("crash").
    """

    def __init__(self, path: str, rules: str = "chinese") -> None:
        self.path = path
        command = [arg if arg != "--chinese-rules" else f"--{rules}-rules" for arg in GNUGO_COMMAND]
        self._gtp = GtpProcess([path, *command], label=f"GNU Go ({rules})")
        self._gtp.start()

    @classmethod
    def start(cls, rules: str = "chinese") -> GnuGo:
        """``rules``: chinese (area) or japanese (territory and prisoners) in its count."""
        path = find_gnugo()
        if path is None:
            raise FileNotFoundError("GNU Go (gnugo) is not on PATH or in /usr/games")
        return cls(path, rules)

    def ask(self, command: str) -> tuple[bool, str]:
        """Send one command; return (success, text) with the ``=``/``?`` marker stripped.

        Multi-line answers (``showboard``) come back joined with newlines.
        """
        return self._gtp.ask(command, timeout=None)

    def send(self, command: str) -> str:
        """Like ``ask`` but raises GtpClientError on a failure answer."""
        return self._gtp.send(command, timeout=None)

    # --- conveniences -------------------------------------------------------------------
    def new_game(self, size: int, komi: float = 7.5) -> None:
        self.send(f"boardsize {size}")
        self.send("clear_board")
        self.send(f"komi {komi}")

    def is_legal(self, color: str, point: Point) -> bool:
        answer = self.send(f"is_legal {color} {coords_from_point(point)}")
        if answer not in ("0", "1"):
            raise RuntimeError(f"unexpected is_legal answer {answer!r}")
        return answer == "1"

    def play(self, color: str, point: Point | None) -> None:
        """Play a stone (``point=None`` passes); raises GtpClientError if GNU Go finds it illegal."""
        vertex = "pass" if point is None else coords_from_point(point)
        self.send(f"play {color} {vertex}")

    def list_stones(self, color: str) -> set[Point]:
        return set(parse_vertices(self.send(f"list_stones {color}")))

    def close(self) -> None:
        self._gtp.close(grace=5.0)

    def __enter__(self) -> GnuGo:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def parse_vertices(text: str) -> list[Point]:
    """``"C7 G7 pass"`` -> points (passes dropped), in the order given."""
    return [point_from_coords(v) for v in text.split() if v.lower() != "pass"]
