"""Game records from a Zero network's self-play (book 14.3), as SGF files: expert games for
supervised training on board sizes without a game archive (the AlphaGo pipeline's 9x9 data, book 13.1).

    python -m dlgo.zero.records --model weights/zero-9x9.keras --size 9 --games 400 --visits 16 \\
        --out runs/alphago-9x9/expert-games -j 2

Game ``n`` is ``game-NNNNN.sgf``, written atomically (a file is whole or absent) with its own
seed, so a rerun into the same folder plays only the games still missing and a larger
``--games`` extends the set. The opening moves are sampled from the visit counts (temperature
1 for a quarter of the board's points) so that the games differ; the rest are the most visited
move. Games end by two passes, resignation or the move cap of ``dlgo.zero.selfplay``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RecordTask", "play_record", "write_records", "record_path"]


@dataclass(frozen=True)
class RecordTask:
    index: int
    model: str
    size: int
    visits: int
    seed: int
    out: str


def record_path(out: str | os.PathLike, index: int) -> Path:
    return Path(out) / f"game-{index:05d}.sgf"


_AGENT: dict[tuple[str, int], object] = {}


def play_record(task: RecordTask) -> dict:
    """Play game ``task.index`` in this (worker) process and write its SGF; a short summary."""
    import numpy as np

    from dlgo.search.zero_agent import ZeroAgent
    from dlgo.zero.selfplay import SelfPlaySettings, play_game

    key = (task.model, task.size)
    if key not in _AGENT:
        _AGENT.clear()
        _AGENT[key] = ZeroAgent.from_model(task.model, board_size=task.size, seed=task.seed, threads=1, self_play=True)
    agent = _AGENT[key]
    settings = SelfPlaySettings(
        board_size=task.size,
        full_visits=task.visits,
        fast_visits=max(1, task.visits // 2),
        temperature_moves=task.size * task.size // 4,
        resign_threshold=-0.95,
    )
    game = play_game(agent, settings, np.random.default_rng(task.seed), resign_allowed=True)
    path = record_path(task.out, task.index)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(game.sgf, encoding="utf-8")
    os.replace(tmp, path)
    return {"index": task.index, "moves": len(game.moves), "result": game.result, "seconds": round(game.seconds, 2)}


def write_records(
    model: str,
    size: int,
    games: int,
    out: str | os.PathLike,
    *,
    visits: int = 16,
    seed: int = 1,
    workers: int = 1,
    progress: bool = True,
) -> list[Path]:
    """Play the games of ``out`` not yet written; the paths of all ``games`` records."""
    from dlgo.zero.workers import ProcessPool, task_seed

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    meta = out / "records.json"
    now = {"model": str(model), "size": size, "visits": visits, "seed": seed}
    if meta.exists():
        before = json.loads(meta.read_text(encoding="utf-8"))
        if {k: before.get(k) for k in now} != now:
            raise ValueError(f"{out} holds records of other settings ({before}); use another folder")
    meta.write_text(json.dumps(now, indent=2) + "\n", encoding="utf-8")
    tasks = [
        RecordTask(i, str(model), size, visits, task_seed(seed, i), str(out))
        for i in range(games)
        if not record_path(out, i).exists()
    ]
    bar = None
    if progress and tasks:
        from tqdm import tqdm

        bar = tqdm(total=games, initial=games - len(tasks), unit="game", desc="zero records", file=sys.stderr)
    try:
        if workers <= 1 or len(tasks) <= 1:
            results = map(play_record, tasks)
            for _ in results:
                if bar is not None:
                    bar.update(1)
        else:
            with ProcessPool(min(workers, len(tasks))) as pool:
                for _ in pool.run(play_record, tasks):
                    if bar is not None:
                        bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return [record_path(out, i) for i in range(games)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dlgo.zero.records", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--visits", type=int, default=16, help="search visits of a full search")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    began = time.monotonic()
    files = write_records(
        args.model,
        args.size,
        args.games,
        args.out,
        visits=args.visits,
        seed=args.seed,
        workers=args.jobs,
        progress=not args.quiet,
    )
    print(json.dumps({"games": len(files), "out": args.out, "seconds": round(time.monotonic() - began, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
