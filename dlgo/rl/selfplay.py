"""Self-play that fills experience files (book 9.4.2), in worker processes, resumable.

    python -m dlgo.rl selfplay --agent runs/pg/pg-0000.keras --games 2000 --out runs/pg/exp-0000 -j 2

The games are cut into tasks of ``games_per_task``; a worker plays a task's games with its own
seed and writes them as one HDF5 file in the book's layout (``task-00012.h5``, atomically: a
file is whole or absent), with the records of the games beside it (``task-00012.jsonl``). A
rerun into the same folder plays only the tasks without a file, so a stopped run never replays
or loses a finished game; a larger ``games`` extends it. ``selfplay.json`` holds the settings
and the model's hash: a folder belongs to one model. The workers are the Zero loop's process
pool (``dlgo.parallel.ProcessPool``): they end with this process, however it ends.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = ["SelfPlaySettings", "SelfPlayTask", "play_task", "run_selfplay", "task_files", "TaskResult"]


@dataclass(frozen=True)
class SelfPlaySettings:
    model: str  # path of the agent's .keras file
    games: int
    board_size: int = 9
    komi: float = 7.5
    temperature: float = 0.0  # exploration (see RLAgent.set_temperature)
    games_per_task: int = 10
    seed: int = 0
    max_moves: int | None = None

    def comparable(self) -> dict[str, Any]:
        """What must not change between runs into one folder (not games, not the path)."""
        d = asdict(self)
        for key in ("model", "games"):
            d.pop(key)
        return d


@dataclass(frozen=True)
class SelfPlayTask:
    index: int
    games: int
    seed: int
    settings: SelfPlaySettings
    out: str


@dataclass(frozen=True)
class TaskResult:
    index: int
    games: int
    decisions: int
    black_wins: int


def _file_hash(path: str | os.PathLike) -> str:
    return hashlib.sha1(Path(path).read_bytes()).hexdigest()[:16]


_AGENTS: dict[tuple[str, float], Any] = {}


def _worker_agent(path: str, board_size: int) -> Any:
    """The worker's agent for ``path`` (loaded once per file version)."""
    from dlgo.rl.agents import load_rl_agent

    key = (path, os.path.getmtime(path))
    if key not in _AGENTS:
        _AGENTS.clear()
        _AGENTS[key] = load_rl_agent(path, board_size)
    return _AGENTS[key]


def task_files(out: str | os.PathLike, index: int) -> tuple[Path, Path]:
    """(experience file, game records) of task ``index``."""
    out = Path(out)
    return out / f"task-{index:05d}.h5", out / f"task-{index:05d}.jsonl"


def play_task(task: SelfPlayTask) -> TaskResult:
    """Play the task's games against itself and write its files (the experience file last: its
    presence says the task is done)."""
    from dlgo.gotypes import Player
    from dlgo.rl.experience import ExperienceCollector, combine_experience, write_experience
    from dlgo.rl.simulate import simulate_game

    s = task.settings
    agent = _worker_agent(s.model, s.board_size)
    agent.seed(task.seed)
    agent.set_temperature(s.temperature)
    collectors = {Player.black: ExperienceCollector(), Player.white: ExperienceCollector()}
    records = []
    for g in range(task.games):
        record = simulate_game(
            agent,
            agent,
            s.board_size,
            komi=s.komi,
            collectors=collectors,
            max_moves=s.max_moves,
            index=task.index * s.games_per_task + g,
            labels=("self", "self"),
        )
        records.append(record)
    agent.set_collector(None)
    experience_file, records_file = task_files(task.out, task.index)
    tmp = records_file.with_name(records_file.name + ".tmp")
    tmp.write_text("".join(json.dumps(r.to_json(), separators=(",", ":")) + "\n" for r in records), encoding="utf-8")
    os.replace(tmp, records_file)
    buffer = combine_experience(collectors.values())
    write_experience(buffer, experience_file)
    return TaskResult(task.index, task.games, len(buffer), sum(r.winner == "B" for r in records))


def _check_folder(out: Path, settings: SelfPlaySettings) -> None:
    meta = out / "selfplay.json"
    now = {"settings": settings.comparable(), "model_sha1": _file_hash(settings.model)}
    if meta.exists():
        before = json.loads(meta.read_text(encoding="utf-8"))
        if {k: before.get(k) for k in now} != now:
            raise ValueError(
                f"{out} holds self-play of another model or other settings: use another folder, "
                "or the same model and settings to resume"
            )
    out.mkdir(parents=True, exist_ok=True)
    tmp = meta.with_name(meta.name + ".tmp")
    tmp.write_text(json.dumps({**now, "model": str(settings.model)}, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, meta)


def run_selfplay(
    settings: SelfPlaySettings, out: str | os.PathLike, workers: int = 1, progress: bool = True
) -> list[Path]:
    """Play the games of ``settings`` not yet in ``out``; the experience files of all of them."""
    from dlgo.parallel import ProcessPool, task_seed

    out = Path(out)
    _check_folder(out, settings)
    per = max(1, settings.games_per_task)
    counts = [min(per, settings.games - start) for start in range(0, settings.games, per)]
    tasks = [
        SelfPlayTask(i, n, task_seed(settings.seed, i), settings, str(out))
        for i, n in enumerate(counts)
        if not task_files(out, i)[0].exists()
    ]
    bar = None
    if progress and tasks:
        from tqdm import tqdm

        bar = tqdm(
            total=settings.games,
            initial=settings.games - sum(t.games for t in tasks),
            unit="game",
            desc=f"self-play {Path(settings.model).stem}",
            file=sys.stderr,
            dynamic_ncols=True,
        )
    try:
        if workers <= 1 or len(tasks) <= 1:
            results = map(play_task, tasks)
            for result in results:
                if bar is not None:
                    bar.update(result.games)
        else:
            with ProcessPool(min(workers, len(tasks))) as pool:
                for result in pool.run(play_task, tasks):
                    if bar is not None:
                        bar.update(result.games)
    finally:
        if bar is not None:
            bar.close()
    return [task_files(out, i)[0] for i in range(len(counts))]
