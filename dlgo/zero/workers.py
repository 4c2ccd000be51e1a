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

import dataclasses
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.agent.termination import ResignPolicy
from dlgo.inference.card import card_path
from dlgo.parallel import ProcessPool, init_worker, on_worker_exit
from dlgo.search.settings import SearchSettings

if TYPE_CHECKING:
    from dlgo.zero.loop_config import GatingSettings
    from dlgo.zero.selfplay import SelfPlaySettings

__all__ = [
    "ModelBlob",
    "SelfPlayTask",
    "GatingTask",
    "GatingGame",
    "GatingPlayer",
    "GATING_RESIGN",
    "gating_resign",
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


def _agent(blob: ModelBlob, role: str, board_size: int, search: SearchSettings, runtime: str, seed: int, **extra: Any):
    """The worker's agent for ``blob`` (loaded once; older networks are dropped) with the search
    settings ``search`` on one core (threads = 1)."""
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
        agent = ZeroAgent.from_model(
            str(path), board_size=board_size, threads=1, runtime=runtime, seed=seed, settings=search, **extra
        )
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
    agent = _agent(task.model, "selfplay", s.board_size, s.agent_search(), s.runtime, task.seed, self_play=True)
    agent.tree.rng = np.random.default_rng(task.seed + 1)
    games = [play_game(agent, s, rng, resign_allowed=allowed) for allowed in task.resign_allowed]
    return _light(task), games


#: Gating's resign rule when the loop gives none: the engine's rule in value units, on a
#: threshold low enough that a wrong resignation is rare (the verdict counts every game).
GATING_RESIGN = ResignPolicy(threshold=-0.95, consecutive_moves=2)


def gating_resign(settings: Any) -> ResignPolicy:
    """Gating's resign rule for a loop's ``SelfPlaySettings``: self-play's run of lost moves and
    first move, on gating's own threshold (a calibrated self-play threshold trades a few wrong
    resignations for speed; a gate counts every game)."""
    policy = settings.resign_policy()
    return dataclasses.replace(policy, threshold=GATING_RESIGN.threshold)


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
    exploration: float = 2.0  # self-play's search settings (SelfPlaySettings.search), at ``visits``
    batch_size: int = 8
    runtime: str = "fp32"
    cleanup_playouts: int = 0  # as self-play's: dead stones are captured before the count
    resign: ResignPolicy = GATING_RESIGN  # in value units, as self-play's

    @classmethod
    def for_game(
        cls,
        iteration: int,
        index: int,
        seed: int,
        candidate: Any,
        best: Any,
        selfplay: SelfPlaySettings,
        gating: GatingSettings,
    ) -> GatingTask:
        """Game ``index`` of a loop's gate: self-play's board, komi, search settings
        (``SelfPlaySettings.search``), runtime and dead-stone cleanup, gating's visits and
        sampled opening moves (``GatingSettings``), gating's resign rule (``gating_resign``)."""
        return cls(
            iteration, index, seed, candidate, best, selfplay.board_size, selfplay.komi, gating.visits,
            gating.temperature_moves, selfplay.search.exploration, selfplay.search.batch_size, selfplay.runtime,
            selfplay.cleanup_playouts, gating_resign(selfplay),
        )  # fmt: skip

    @property
    def search(self) -> SearchSettings:
        """Both players' search settings: self-play's at ``visits`` per move."""
        return SearchSettings(rounds=self.visits, exploration=self.exploration, batch_size=self.batch_size)


@dataclass
class GatingGame:
    index: int
    candidate_black: bool
    winner: int  # +1 candidate, -1 best, 0 jigo
    result: str
    moves: int
    sgf: str


class GatingPlayer:
    """A Zero agent in a gating game (``dlgo.game_runner.GamePlayer``): a competitive search (no
    noise) of ``visits``, the first ``temperature_moves`` moves sampled from the visits so the
    games differ, then the engine's choice (the search's best move by its ``select_by``); the
    resign signal is self-play's, ``max(root value, best move's value)``."""

    def __init__(self, agent: Any, visits: int, temperature_moves: int) -> None:
        self.agent = agent
        self.visits = visits
        self.temperature_moves = temperature_moves
        self.result = None

    def evaluate(self, state: Any, index: int) -> float | None:
        from dlgo.search import SearchBudget

        self.result = self.agent.search(state, SearchBudget(max_visits=self.visits))
        stats = self.agent.tree.last_statistics
        return None if stats is None else max(stats.root_value, stats.best_value)

    def select(self, state: Any, index: int) -> Any:
        from dlgo.goboard import Move

        if index < self.temperature_moves:
            move = self.agent.tree.sample_move(1.0)
        else:
            best = self.result.best if self.result is not None else None
            move = best.move if best is not None else None
        return move if move is not None else Move.pass_turn()


def play_gating_task(task: GatingTask) -> tuple[GatingTask, GatingGame]:
    """One game candidate against best on the game runner (``dlgo.game_runner``): the engine's
    move selection and resign rule (``task.resign``), dead stones captured before the count
    with ``cleanup_playouts``, at most twice the board's points in moves."""
    from dlgo.game_runner import EndPolicy, play_game
    from dlgo.goboard import GameState
    from dlgo.gotypes import Player
    from dlgo.sgf import write_game

    rng = np.random.default_rng(task.seed)
    cand = _agent(task.candidate, "candidate", task.board_size, task.search, task.runtime, task.seed)
    best = _agent(task.best, "best", task.board_size, task.search, task.runtime, task.seed)
    candidate_black = task.index % 2 == 0
    for a in (cand, best):
        a.clear_tree()
        a.tree.rng = np.random.default_rng(int(rng.integers(1 << 31)))
    cand_player = GatingPlayer(cand, task.visits, task.temperature_moves)
    best_player = GatingPlayer(best, task.visits, task.temperature_moves)
    black, white = (cand_player, best_player) if candidate_black else (best_player, cand_player)
    outcome = play_game(
        black,
        white,
        GameState.new_game(task.board_size, komi=task.komi),
        max_moves=2 * task.board_size * task.board_size,
        end=EndPolicy(resign=task.resign, cleanup_playouts=task.cleanup_playouts),
    )
    winner_player = outcome.winner
    if winner_player is None:
        winner = 0
    else:
        winner = 1 if (winner_player is Player.black) == candidate_black else -1
    names = ("candidate", "best") if candidate_black else ("best", "candidate")
    result = outcome.result_text
    sgf = write_game(outcome.final_state, black_name=names[0], white_name=names[1], result=result, komi=task.komi)
    return _light(task), GatingGame(task.index, candidate_black, winner, result, len(outcome.moves), sgf)


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
