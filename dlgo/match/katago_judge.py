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
        self._send([dict(moves=moves, analyzeTurns=turns)])
        return {answer["turnNumber"]: _lead_and_best(answer) for answer in self._answers(len(turns))}

    def leads_after(self, lines: list[list[list[str]]]) -> list[tuple[float, str]]:
        """Black's score lead and KataGo's best move after each of ``lines`` (whole move lists),
        asked at once so that KataGo's analysis threads share them."""
        ids = self._send([dict(moves=moves, analyzeTurns=[len(moves)]) for moves in lines])
        found = {answer["id"]: _lead_and_best(answer) for answer in self._answers(len(lines))}
        return [found[i] for i in ids]

    def _send(self, queries: list[dict]) -> list[str]:
        assert self._proc.stdin
        ids = []
        for query in queries:
            self._queries += 1
            ids.append(str(self._queries))
            self._proc.stdin.write(json.dumps(dict(self._base, id=ids[-1], **query)) + "\n")
        self._proc.stdin.flush()
        return ids

    def _answers(self, count: int) -> list[dict]:
        assert self._proc.stdout
        answers = []
        while len(answers) < count:
            answer = json.loads(self._proc.stdout.readline())
            if "error" in answer:
                raise RuntimeError(f"KataGo: {answer['error']}")
            answers.append(answer)
        return answers

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait(timeout=30)


def _lead_and_best(answer: dict) -> tuple[float, str]:
    return answer["rootInfo"]["scoreLead"], answer["moveInfos"][0]["move"]
