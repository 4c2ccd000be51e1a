"""A minimal GTP client for GNU Go, used as a rules referee by the tests (not a test module).

``GnuGo.start()`` (or the ``gnugo`` fixture in conftest.py) runs ``gnugo --mode gtp
--chinese-rules --level 1``; ``send(command)`` returns the answer text and raises GtpError on a
``?`` answer, ``ask(command)`` returns ``(success, text)`` and never raises on ``?``;
``close()`` sends ``quit`` and reaps the process.
"""

from __future__ import annotations

import subprocess

from dlgo.gotypes import Point
from dlgo.match.players import find_gnugo
from dlgo.utils import coords_from_point, point_from_coords

__all__ = ["GNUGO_COMMAND", "GnuGo", "GtpError", "find_gnugo", "parse_vertices"]


GNUGO_COMMAND = ["--mode", "gtp", "--chinese-rules", "--level", "1"]


class GtpError(RuntimeError):
    """GNU Go answered a command with ``?``."""


class GnuGo:
    """One GNU Go process in GTP mode; ``send``/``ask`` write a command and read its answer."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._proc = subprocess.Popen(
            [path, *GNUGO_COMMAND],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    @classmethod
    def start(cls) -> GnuGo:
        path = find_gnugo()
        if path is None:
            raise FileNotFoundError("GNU Go (gnugo) is not on PATH or in /usr/games")
        return cls(path)

    def ask(self, command: str) -> tuple[bool, str]:
        """Send one command; return (success, text) with the ``=``/``?`` marker stripped.

        A GTP answer is one or more lines ended by an empty line; multi-line answers
        (``showboard``) come back joined with newlines.
        """
        proc = self._proc
        if proc.poll() is not None:
            raise RuntimeError(f"GNU Go exited with status {proc.returncode}")
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(command.strip() + "\n")
        proc.stdin.flush()
        lines: list[str] = []
        while True:
            line = proc.stdout.readline()
            if line == "":
                raise RuntimeError(f"GNU Go closed its output while answering {command!r}")
            line = line.rstrip("\r\n")
            if line == "":
                if lines:
                    break
                continue  # tolerate stray blank lines before an answer
            lines.append(line)
        first = lines[0]
        if first[0] not in "=?":
            raise RuntimeError(f"malformed GTP answer to {command!r}: {lines!r}")
        ok = first[0] == "="
        # Drop the marker and an optional numeric id.
        head = first[1:].lstrip("0123456789").strip()
        text = "\n".join([head, *lines[1:]]).strip("\n") if len(lines) > 1 else head
        return ok, text

    def send(self, command: str) -> str:
        """Like ``ask`` but raises GtpError on a failure answer."""
        ok, text = self.ask(command)
        if not ok:
            raise GtpError(f"{command!r} -> ? {text}")
        return text

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
        """Play a stone (``point=None`` passes); raises GtpError if GNU Go finds it illegal."""
        vertex = "pass" if point is None else coords_from_point(point)
        self.send(f"play {color} {vertex}")

    def list_stones(self, color: str) -> set[Point]:
        return set(parse_vertices(self.send(f"list_stones {color}")))

    def close(self) -> None:
        proc = self._proc
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write("quit\n")
                proc.stdin.flush()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def __enter__(self) -> GnuGo:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def parse_vertices(text: str) -> list[Point]:
    """``"C7 G7 pass"`` -> points (passes dropped), in the order given."""
    return [point_from_coords(v) for v in text.split() if v.lower() != "pass"]
