"""KataGo's JSON analysis engine as a judge of positions: its score lead, a measure only.

Our own review cannot see what our network is blind to, so experiments that ask which moves
lost points ask KataGo (``../shared/tools/katago``, found by ``dlgo.match.strength.find_katago``).
Its answers measure; nothing is ever trained on them.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from dlgo.match.strength import find_katago

__all__ = ["KataGoJudge"]


class KataGoJudge:
    """KataGo's JSON analysis engine: the score lead, Black's side, of positions given as moves."""

    def __init__(self, folder: str | None, size: int, komi: float, visits: int) -> None:
        exe, model, gtp_config = find_katago(folder)
        config = str(Path(gtp_config).with_name("analysis.cfg"))
        self._proc = subprocess.Popen(
            [exe, "analysis", "-model", model, "-config", config],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._base = {"rules": "chinese", "komi": komi, "boardXSize": size, "boardYSize": size, "maxVisits": visits}
        self._queries = 0

    def leads(self, moves: list[list[str]], turns: list[int]) -> dict[int, tuple[float, str]]:
        """Black's score lead and KataGo's best move at each of ``turns`` (moves played before it)."""
        self._queries += 1
        query = dict(self._base, id=str(self._queries), moves=moves, analyzeTurns=turns)
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(json.dumps(query) + "\n")
        self._proc.stdin.flush()
        found: dict[int, tuple[float, str]] = {}
        while len(found) < len(turns):
            answer = json.loads(self._proc.stdout.readline())
            if "error" in answer:
                raise RuntimeError(f"KataGo: {answer['error']}")
            found[answer["turnNumber"]] = (answer["rootInfo"]["scoreLead"], answer["moveInfos"][0]["move"])
        return found

    def leads_after(self, lines: list[list[list[str]]]) -> list[tuple[float, str]]:
        """Black's score lead and KataGo's best move after each of ``lines`` (whole move lists),
        asked at once so that KataGo's analysis threads share them."""
        assert self._proc.stdin and self._proc.stdout
        ids = []
        for moves in lines:
            self._queries += 1
            ids.append(str(self._queries))
            query = dict(self._base, id=ids[-1], moves=moves, analyzeTurns=[len(moves)])
            self._proc.stdin.write(json.dumps(query) + "\n")
        self._proc.stdin.flush()
        found: dict[str, tuple[float, str]] = {}
        while len(found) < len(ids):
            answer = json.loads(self._proc.stdout.readline())
            if "error" in answer:
                raise RuntimeError(f"KataGo: {answer['error']}")
            found[answer["id"]] = (answer["rootInfo"]["scoreLead"], answer["moveInfos"][0]["move"])
        return [found[i] for i in ids]

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait(timeout=30)
