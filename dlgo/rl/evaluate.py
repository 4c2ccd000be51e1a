"""Matches between two agents as the book evaluates its learners (book 10.3.1-10.3.2), done right.

    python -m dlgo.rl evaluate --agent runs/pg/pg-0003.keras --opponent runs/pg/pg-0000.keras \
        --games 200 -j 2 --out runs/pg/eval-0003-vs-0000 --gate book

Colours alternate (the agent is Black in even-numbered games); the games run in worker processes
and are kept as they end in the output folder of a duel (``dlgo.match``: ``results.jsonl``,
``games/*.sgf``, ``summary.json`` and ``summary.txt``, with the win rate, its Wilson interval,
the Elo difference and the exact two-sided binomial p-value against 50%), so a rerun resumes.
Gating (a new version replaces the old one only when measurably stronger):

- ``book``: at least 60 wins out of 100 games (book 12.4), scaled: a win rate of 60% or more;
- ``thesis``: more than 55% of the decisive games (the OLIVAW thesis' gate, 40 games).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dlgo.match.record import GameRecord, append_record, load_records, record_to_sgf, repair_records
from dlgo.match.stats import binomial_p_value
from dlgo.match.summary import summarise, summary_text

__all__ = ["GATES", "EvalSettings", "gate_passed", "run_evaluation", "play_eval_game", "label_of"]

GATES = {"book": 0.60, "thesis": 0.55}


def label_of(spec: str) -> str:
    return "random" if spec == "random" else Path(spec).stem


@dataclass(frozen=True)
class EvalSettings:
    agent: str  # a saved agent's path, or "random"
    opponent: str
    games: int
    board_size: int = 9
    komi: float = 7.5
    seed: int = 0
    temperature: float = 0.0  # exploration of both players (0: as they play in earnest)
    max_moves: int | None = None

    def labels(self) -> tuple[str, str]:
        a, b = label_of(self.agent), label_of(self.opponent)
        return (a, b) if a != b else (f"{a}-agent", f"{b}-opponent")

    def comparable(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "opponent": self.opponent,
            "board_size": self.board_size,
            "komi": self.komi,
            "seed": self.seed,
            "temperature": self.temperature,
            "max_moves": self.max_moves,
        }


@dataclass(frozen=True)
class _GameTask:
    index: int
    settings: EvalSettings


_PLAYERS: dict[tuple[str, int], Any] = {}


def _player(spec: str, size: int, seed: int, temperature: float) -> Any:
    """The worker's player for ``spec`` (an agent loaded once), seeded for this game."""
    from dlgo.rl.agents import load_agent_spec

    if spec == "random":
        return load_agent_spec(spec, size, seed)  # a RandomBot is cheap: a fresh one per game
    key = (spec, size)
    if key not in _PLAYERS:
        _PLAYERS[key] = load_agent_spec(spec, size)
    player = _PLAYERS[key]
    player.seed(seed)
    player.set_temperature(temperature)
    return player


def play_eval_game(task: _GameTask) -> dict:
    """One game of the match, in a worker: the record as JSON."""
    from dlgo.parallel import task_seed
    from dlgo.rl.simulate import simulate_game

    s = task.settings
    agent = _player(s.agent, s.board_size, task_seed(s.seed, task.index, 0), s.temperature)
    opponent = _player(s.opponent, s.board_size, task_seed(s.seed, task.index, 1), s.temperature)
    if s.agent == s.opponent and s.agent != "random":  # one file against itself: two copies
        from dlgo.rl.agents import load_agent_spec

        opponent = load_agent_spec(s.opponent, s.board_size, task_seed(s.seed, task.index, 1))
        opponent.set_temperature(s.temperature)
    labels = s.labels()
    if task.index % 2 == 0:
        record = simulate_game(
            agent, opponent, s.board_size, komi=s.komi, max_moves=s.max_moves, index=task.index, labels=labels
        )
    else:
        record = simulate_game(
            opponent,
            agent,
            s.board_size,
            komi=s.komi,
            max_moves=s.max_moves,
            index=task.index,
            labels=(labels[1], labels[0]),
        )
    return record.to_json()


def gate_passed(summary: dict, gate: str) -> bool:
    """Whether the agent's results pass ``gate`` ("book" or "thesis")."""
    if gate not in GATES:
        raise ValueError(f"unknown gate {gate!r}; known: {', '.join(GATES)}")
    if gate == "book":
        return bool(summary["games"]) and summary["win_rate"] >= GATES["book"]
    decisive = summary["engine_wins"] + summary["opponent_wins"]
    return decisive > 0 and summary["engine_wins"] / decisive > GATES["thesis"]


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _check_folder(out: Path, settings: EvalSettings) -> None:
    meta = out / "match.json"
    if meta.exists():
        before = json.loads(meta.read_text(encoding="utf-8"))
        if before.get("settings") != settings.comparable():
            raise ValueError(f"{out} holds a match with other settings: use another folder or the same settings")
    (out / "games").mkdir(parents=True, exist_ok=True)
    _write(meta, json.dumps({"settings": settings.comparable(), "games": settings.games}, indent=2) + "\n")


def write_summary(out: Path, settings: EvalSettings, records: dict[int, GameRecord], gate: str | None) -> dict:
    engine, opponent = settings.labels()
    summary = summarise(records.values(), engine, opponent, settings.games)
    summary["settings"] = f"{settings.board_size}x{settings.board_size}, komi {settings.komi:g}, in-process agents"
    decisive = summary["engine_wins"] + summary["opponent_wins"]
    summary["p_value_one_sided"] = round(binomial_p_value_one_sided(summary["engine_wins"], decisive), 6)
    if gate is not None:
        summary["gate"] = {"rule": gate, "passed": gate_passed(summary, gate)}
    _write(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    text = summary_text(summary, header=f"# {summary['settings']}; output {out}")
    if gate is not None:
        text += f"  gate         {gate}: {'passed' if summary['gate']['passed'] else 'not passed'}\n"
    _write(out / "summary.txt", text)
    return summary


def binomial_p_value_one_sided(wins: int, n: int) -> float:
    """P(at least ``wins`` of ``n`` under a fair coin): is the agent stronger, not just different."""
    import math

    if n <= 0:
        return 1.0
    return sum(math.comb(n, k) for k in range(wins, n + 1)) / 2**n


def run_evaluation(
    settings: EvalSettings, out: str | os.PathLike, workers: int = 1, gate: str | None = None, progress: bool = True
) -> dict:
    """Play the games not yet in ``out``; the summary of all of them (see module doc)."""
    from dlgo.parallel import ProcessPool

    out = Path(out)
    _check_folder(out, settings)
    results = out / "results.jsonl"
    repair_records(results)
    records = load_records(results)
    todo = [_GameTask(i, settings) for i in range(settings.games) if i not in records]
    bar = None
    if progress and todo:
        from tqdm import tqdm

        engine, opponent = settings.labels()
        bar = tqdm(
            total=settings.games,
            initial=settings.games - len(todo),
            unit="game",
            desc=f"{engine} vs {opponent}",
            file=sys.stderr,
            dynamic_ncols=True,
        )

    def keep(data: dict) -> None:
        record = GameRecord.from_json(data)
        (out / "games" / f"game-{record.index + 1:04d}.sgf").write_text(record_to_sgf(record), encoding="utf-8")
        append_record(results, record)
        records[record.index] = record
        if bar is not None:
            bar.update(1)

    try:
        if workers <= 1 or len(todo) <= 1:
            for task in todo:
                keep(play_eval_game(task))
        else:
            with ProcessPool(min(workers, len(todo))) as pool:
                for data in pool.run(play_eval_game, todo):
                    keep(data)
    finally:
        if bar is not None:
            bar.close()
    return write_summary(out, settings, records, gate)


__all__ += ["binomial_p_value", "write_summary", "binomial_p_value_one_sided"]
