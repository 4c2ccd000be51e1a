"""Where self-play and gating games run: worker processes on this machine, or Ray actors anywhere.

The loop hands out **tasks** (a few games each) and stores what comes back; a worker needs
nothing from the loop's disk. Networks travel as ``ModelBlob``s (the ``.keras`` file, its card
and its ONNX export as bytes), written to a private temporary folder the first time a worker
sees them and kept loaded for the next task. On Ray a blob is put in the object store once per
generation (that store is the shared place for weights; games come back as task results, so
only the learner's machine writes the replay buffer).

    with make_pool(workers=2) as pool:                       # processes
    with make_pool(workers=8, ray_address="auto") as pool:   # a Ray cluster ("local": in-process)
        for result in pool.run(play_selfplay_task, tasks): ...
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.inference.card import card_path
from dlgo.parallel import ProcessPool, init_worker, on_worker_exit

__all__ = [
    "ModelBlob",
    "SelfPlayTask",
    "GatingTask",
    "GatingGame",
    "play_selfplay_task",
    "play_gating_task",
    "RayPool",
    "make_pool",
]


@dataclass(frozen=True)
class ModelBlob:
    """A network as bytes: ``name`` is unique per content (file stem + hash), with its ONNX
    export and int8 model when they are beside it (stamped with the model's hash: a worker
    uses them only when they match)."""

    name: str
    keras: bytes
    card: bytes
    onnx: bytes | None = None
    int8: bytes | None = None

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> ModelBlob:
        path = Path(path)
        data = path.read_bytes()
        digest = hashlib.sha1(data).hexdigest()[:12]
        beside = []
        for other in (path.with_suffix(".onnx"), path.with_name(f"{path.stem}.int8.onnx")):
            fresh = other.is_file() and other.stat().st_mtime >= path.stat().st_mtime
            beside.append(other.read_bytes() if fresh else None)
        return cls(f"{path.stem}-{digest}", data, card_path(path).read_bytes(), *beside)

    def materialize(self, folder: Path) -> Path:
        """Write the files into ``folder`` (once) and return the ``.keras`` path."""
        target = folder / self.name / "model.keras"
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            card_path(target).write_bytes(self.card)
            tmp = target.with_name("model.tmp.keras")
            tmp.write_bytes(self.keras)
            os.replace(tmp, target)
            if self.onnx is not None:
                target.with_suffix(".onnx").write_bytes(self.onnx)  # newer than the model: reused
            if self.int8 is not None:
                target.with_name("model.int8.onnx").write_bytes(self.int8)
        return target


# --- state kept inside a worker process between tasks -------------------------------------------
_FOLDER: tempfile.TemporaryDirectory | None = None
_AGENTS: dict[tuple[str, str], Any] = {}


def _agent(blob: ModelBlob, role: str, board_size: int, params: dict[str, Any], **extra: Any):
    """The worker's agent for ``blob`` (loaded once; older networks are dropped), built from the
    ``zero`` config keys ``params`` (one core: threads = 1), as the engine's are."""
    global _FOLDER
    key = (blob.name, role)
    agent = _AGENTS.get(key)
    if agent is None:
        from dlgo.search.zero_agent import ZeroAgent

        if _FOLDER is None:
            _FOLDER = tempfile.TemporaryDirectory(prefix="dlgo-zero-worker-")
            on_worker_exit(lambda: shutil.rmtree(_FOLDER.name, ignore_errors=True))
        for old in [k for k in _AGENTS if k[1] == role]:
            del _AGENTS[old]
        path = blob.materialize(Path(_FOLDER.name))
        agent = ZeroAgent.from_params({**params, "model": str(path), "threads": 1}, board_size, **extra)
        _AGENTS[key] = agent
    return agent


@dataclass(frozen=True)
class SelfPlayTask:
    iteration: int
    task: int
    games: int
    seed: int
    model: Any  # ModelBlob, or a Ray object reference to one
    settings: Any  # SelfPlaySettings
    resign_allowed: tuple[bool, ...]  # one per game


def play_selfplay_task(task: SelfPlayTask) -> tuple[SelfPlayTask, list]:
    """Play ``task.games`` self-play games; returns the task (without its model) and the games."""
    from dlgo.zero.selfplay import play_game

    s = task.settings
    rng = np.random.default_rng(task.seed)
    params = {"rounds": s.full_visits, "exploration": s.c_puct, "batch_size": s.batch_size, "seed": task.seed}
    params["runtime"] = s.runtime
    agent = _agent(task.model, "selfplay", s.board_size, params, self_play=True)
    agent.tree.rng = np.random.default_rng(task.seed + 1)
    games = [play_game(agent, s, rng, resign_allowed=allowed) for allowed in task.resign_allowed]
    return _light(task), games


@dataclass(frozen=True)
class GatingTask:
    iteration: int
    index: int  # game number; the candidate is Black in even-numbered games
    seed: int
    candidate: Any
    best: Any
    board_size: int
    komi: float
    visits: int
    temperature_moves: int
    c_puct: float = 2.0
    batch_size: int = 8
    runtime: str = "fp32"
    cleanup_playouts: int = 0  # as self-play's: dead stones are captured before the count


@dataclass
class GatingGame:
    index: int
    candidate_black: bool
    winner: int  # +1 candidate, -1 best, 0 jigo
    result: str
    moves: int
    sgf: str


def play_gating_task(task: GatingTask) -> tuple[GatingTask, GatingGame]:
    """One game candidate against best: competitive search (no noise), the first
    ``temperature_moves`` moves sampled from the visits so the games differ."""
    from dlgo.goboard import GameState, Move
    from dlgo.gotypes import Player
    from dlgo.scoring import compute_game_result
    from dlgo.search import SearchBudget
    from dlgo.sgf import write_game
    from dlgo.zero.selfplay import cleanup_capture

    rng = np.random.default_rng(task.seed)
    params = {"rounds": task.visits, "exploration": task.c_puct, "batch_size": task.batch_size, "seed": task.seed}
    params["runtime"] = task.runtime
    cand = _agent(task.candidate, "candidate", task.board_size, params)
    best = _agent(task.best, "best", task.board_size, params)
    candidate_black = task.index % 2 == 0
    players = {Player.black: cand if candidate_black else best, Player.white: best if candidate_black else cand}
    for a in (cand, best):
        a.clear_tree()
        a.tree.rng = np.random.default_rng(int(rng.integers(1 << 31)))
    state = GameState.new_game(task.board_size, komi=task.komi)
    limit = 2 * task.board_size * task.board_size
    moves = 0
    cleanups_left = task.board_size**2 // 4 if task.cleanup_playouts else 0
    resigned: Player | None = None
    while not state.is_over() and moves < limit:
        agent = players[state.next_player]
        agent.tree.search(state, SearchBudget(max_visits=task.visits))
        stats = agent.tree.last_statistics
        if stats is not None and moves > task.board_size * 2 and max(stats.root_value, stats.best_value) < -0.95:
            resigned = state.next_player
            break
        if moves < task.temperature_moves:
            move = agent.tree.sample_move(1.0)
        else:
            move = agent.tree.most_visited()
        move = move if move is not None else Move.pass_turn()
        if move.is_pass and cleanups_left > 0:
            capture = cleanup_capture(state, task.cleanup_playouts)
            if capture is not None:
                move, cleanups_left = capture, cleanups_left - 1
        state = state.apply_move(move)
        moves += 1
    if resigned is not None:
        winner_player: Player | None = resigned.other
        result = f"{'B' if winner_player is Player.black else 'W'}+R"
    else:
        counted = compute_game_result(state)
        winner_player = counted.winner
        letter = "B" if winner_player is Player.black else "W"
        result = "0" if winner_player is None else f"{letter}+{counted.winning_margin:g}"
    if winner_player is None:
        winner = 0
    else:
        winner = 1 if (winner_player is Player.black) == candidate_black else -1
    names = ("candidate", "best") if candidate_black else ("best", "candidate")
    sgf = write_game(state, black_name=names[0], white_name=names[1], result=result, komi=task.komi)
    return _light(task), GatingGame(task.index, candidate_black, winner, result, moves, sgf)


def _light(task: Any) -> Any:
    """The task without its networks (results travel back small)."""
    import dataclasses

    fields = {f.name for f in dataclasses.fields(task)}
    blank = {name: None for name in ("model", "candidate", "best") if name in fields}
    return dataclasses.replace(task, **blank)


class RayPool:
    """Tasks as Ray remote functions on a cluster (``address``: "auto", "ray://host:10001", or
    "local" for a Ray instance inside this process's machine, as the tests use)."""

    def __init__(self, address: str, workers: int | None = None) -> None:
        try:
            import ray
        except ImportError as e:
            raise RuntimeError("--ray needs Ray: pip install -e '.[ray]'") from e
        self.ray = ray
        if not ray.is_initialized():
            if address == "local":
                ray.init(num_cpus=workers or None, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=address, log_to_driver=False)
        self.workers = workers or int(ray.cluster_resources().get("CPU", 1))
        self._remote: dict[Callable, Any] = {}
        self._puts: dict[str, Any] = {}

    def share(self, blob: ModelBlob) -> Any:
        """The blob in Ray's object store (put once per network)."""
        ref = self._puts.get(blob.name)
        if ref is None:
            ref = self._puts[blob.name] = self.ray.put(blob)
        return ref

    def run(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[Any]:
        ray = self.ray
        remote = self._remote.get(fn)
        if remote is None:
            remote = self._remote[fn] = ray.remote(num_cpus=1)(_ray_call).options(name=fn.__name__)
        queue = list(tasks)
        pending: list[Any] = []
        try:
            while queue or pending:
                while queue and len(pending) < 2 * self.workers:
                    pending.append(remote.remote(fn, self._shared(queue.pop(0))))
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield ray.get(ref)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def _shared(self, task: Any) -> Any:
        import dataclasses

        changes = {}
        for f in dataclasses.fields(task):
            value = getattr(task, f.name)
            if isinstance(value, ModelBlob):
                changes[f.name] = self.share(value)
        return dataclasses.replace(task, **changes)

    def close(self) -> None:
        self._puts.clear()

    def __enter__(self) -> RayPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ray_call(fn: Callable[[Any], Any], task: Any) -> Any:
    import dataclasses

    import ray

    init_worker()
    changes = {}
    for f in dataclasses.fields(task):
        value = getattr(task, f.name)
        if isinstance(value, ray.ObjectRef):
            changes[f.name] = ray.get(value)
    return fn(dataclasses.replace(task, **changes))


def make_pool(workers: int, ray_address: str | None = None) -> ProcessPool | RayPool:
    if ray_address:
        return RayPool(ray_address, workers)
    return ProcessPool(workers)
