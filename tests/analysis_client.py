"""A client of a JSON analysis engine in a subprocess (ours or ``katago analysis``), for tests.

Every stdout line must be one JSON object: a line that is not is kept in ``bad_lines`` (the
tests assert it stays empty). Answers are read by a thread into a queue; ``wait_for`` collects
them by predicate with a deadline.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KATAGO_DIR = ROOT.parent / "shared" / "tools" / "katago"
KATAGO = KATAGO_DIR / "katago"
KATAGO_MODEL = KATAGO_DIR / "g170-b6c96-s175395328-d26788732.bin.gz"
KATAGO_CONFIG = KATAGO_DIR / "analysis.cfg"
ZERO_9 = str(ROOT / "configs" / "engine" / "zero-9x9.toml")  # one small network, any board size
MCTS = str(ROOT / "configs" / "engine" / "mcts.toml")  # no network: scores from playouts

# Positions whose ownership is obvious (9x9, initialStones), and query helpers shared by the tests.
COLS = "ABCDEFGHJ"
# Black walls off columns A-F, White columns H-J: Black owns the left (A9, index 0), White the right.
VERTICAL = [["B", f"F{r}"] for r in range(1, 10)] + [["W", f"H{r}"] for r in range(1, 10)]
# Black walls off rows 4-9, White rows 1-2: Black owns the top (A9), White the bottom (A1, index 72).
HORIZONTAL = [["B", f"{c}4"] for c in COLS] + [["W", f"{c}2"] for c in COLS]
# Columns A-F Black, H-J White, filled but for two eyes each: Black leads by 20 whoever moves
# (walls leave room for invasions that the small 9x9 network misjudges with White to move).
FILLED = [["B", f"{c}{r}"] for c in COLS[:6] for r in range(1, 10) if (c, r) not in (("A", 2), ("A", 8))] + [
    ["W", f"{c}{r}"] for c in COLS[7:] for r in range(1, 10) if (c, r) not in (("J", 2), ("J", 8))
]


def query(qid: str, **fields) -> dict:
    q = {"id": qid, "moves": [], "rules": "chinese", "komi": 7, "boardXSize": 9, "boardYSize": 9, "maxVisits": 24}
    q.update(fields)
    return q


def black_ahead_query(report_as: str, to_move: str) -> tuple[dict, int]:
    """A query on ``FILLED`` (Black far ahead) asking values from ``report_as``'s side, and the
    sign those values must have: +1 where they are Black's, -1 where White's."""
    q = query(
        f"view-{report_as}-{to_move}",
        initialStones=FILLED,
        initialPlayer=to_move,
        includeOwnership=True,
        overrideSettings={"reportAnalysisWinratesAs": report_as},
    )
    black_view = report_as == "BLACK" or (report_as == "SIDETOMOVE" and to_move == "B")
    return q, 1 if black_view else -1


def check_black_ahead(got: dict, sign: int, name: str = "") -> None:
    """The answer to ``black_ahead_query`` says Black leads, seen from the side ``sign`` names."""
    root, best = got["rootInfo"], got["moveInfos"][0]
    assert (root["winrate"] - 0.5) * sign > 0.3 and root["scoreLead"] * sign > 2, (name, root)
    assert (best["winrate"] - 0.5) * sign > 0.3 and best["scoreLead"] * sign > 2, (name, best)
    assert root["utility"] * sign > 0 and got["ownership"][index("E9")] * sign > 0.5, name


def index(vertex: str, cols: int = 9, rows: int = 9) -> int:
    """Row-major index from the top-left point (KataGo's ownership and policy order)."""
    return (rows - int(vertex[1:])) * cols + COLS.index(vertex[0])


def ours(*args: str, config: str = ZERO_9) -> list[str]:
    return [sys.executable, "-m", "dlgo_analysis", "--config", config, *args]


def katago_command() -> list[str]:
    return [str(KATAGO), "analysis", "-model", str(KATAGO_MODEL), "-config", str(KATAGO_CONFIG)]


def katago_unavailable() -> str | None:
    """Why ``katago analysis`` cannot run here (None: it can)."""
    if not KATAGO.is_file() or not os.access(KATAGO, os.X_OK):
        return f"KataGo not found at {KATAGO}"
    try:
        out = subprocess.run([str(KATAGO), "version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"KataGo does not run: {e}"
    if out.returncode != 0:
        hint = " (apt-get install -y libzip4)" if "libzip" in out.stderr else ""
        return f"KataGo does not run{hint}: {out.stderr.strip()[:200]}"
    return None


class JsonEngine:
    """An analysis engine process; ``send`` a query, ``wait_for`` its answers."""

    def __init__(self, argv: Sequence[str], ready_timeout: float = 120.0) -> None:
        self.argv = list(argv)
        self.proc = subprocess.Popen(
            self.argv,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        self.bad_lines: list[bytes] = []
        self.stderr: list[str] = []
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()
        if not self._ready.wait(ready_timeout):
            self.kill()
            raise RuntimeError(f"{argv[0]} did not start: {''.join(self.stderr)[-2000:]}")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                obj = json.loads(raw)
            except ValueError:
                self.bad_lines.append(raw)
                continue
            if not isinstance(obj, dict):
                self.bad_lines.append(raw)
                continue
            self.lines.put(obj)

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            text = raw.decode("utf-8", "replace")
            self.stderr.append(text)
            if "ready to begin handling requests" in text:
                self._ready.set()
        self._ready.set()  # it died: the constructor's wait ends

    def send(self, *requests: dict[str, Any] | str | bytes) -> None:
        assert self.proc.stdin is not None
        for request in requests:
            if isinstance(request, dict):
                data = json.dumps(request).encode()
            elif isinstance(request, str):
                data = request.encode()
            else:
                data = request
            self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def wait_for(
        self, done: Callable[[list[dict[str, Any]]], bool], timeout: float = 60.0, keep: Callable | None = None
    ) -> list[dict[str, Any]]:
        """Collect answers (those ``keep`` accepts; others go back to the queue at the end) until
        ``done(collected)``; AssertionError on timeout."""
        collected: list[dict[str, Any]] = []
        others: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        try:
            while not done(collected):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out after {timeout} s; got {collected!r:.2000}")
                try:
                    obj = self.lines.get(timeout=min(left, 1.0))
                except queue.Empty:
                    if self.proc.poll() is not None and self.lines.empty():
                        message = f"engine exited {self.proc.returncode}: {''.join(self.stderr)[-2000:]}"
                        raise AssertionError(message) from None
                    continue
                (collected if keep is None or keep(obj) else others).append(obj)
        finally:
            for obj in others:
                self.lines.put(obj)
        return collected

    def ask(self, request: dict[str, Any], count: int = 1, timeout: float = 60.0) -> list[dict[str, Any]]:
        """Send ``request`` and return every line with its id until ``count`` final answers
        (an answer with ``isDuringSearch`` false, or an error) have come."""
        self.send(request)
        return self.collect(request["id"], count, timeout)

    def collect(self, query_id: str, count: int = 1, timeout: float = 60.0) -> list[dict[str, Any]]:
        def finals(lines: list[dict[str, Any]]) -> int:
            return sum(1 for d in lines if "error" in d or d.get("isDuringSearch") is False or "action" in d)

        return self.wait_for(lambda got: finals(got) >= count, timeout, keep=lambda d: d.get("id") == query_id)

    def close(self, timeout: float = 120.0) -> int:
        """Close stdin (end of input) and wait for the exit status."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def finals(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in lines if d.get("isDuringSearch") is False]
