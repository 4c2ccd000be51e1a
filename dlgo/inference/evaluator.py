"""Batched network evaluation of game states, with a position cache and symmetries.

    evaluator = BatchEvaluator(load_model("weights/zero.keras"))
    policy, value = evaluator.evaluate(states)   # [n, N*N + 1] (pass last), [n] in [-1, 1]
    heads = evaluator.evaluate_full(states)      # by name; with "ownership" and "score" when the model has them

One call encodes every state not in the cache, runs the network once on the whole batch (ONNX
Runtime or a compiled function, never ``model.predict`` per position), and maps the answers
back. Values are from the point of view of the player to move in each state.

Cache keys are (symmetry mode, board size, Zobrist situation hash, komi, the last
``encoder.history_moves`` moves): everything the planes depend on except superko beyond those
moves. The cache is an LRU of ``cache_size`` positions (0 disables it).

A network with KataGo's auxiliary heads (Wu 2019, "Accelerating Self-Play Learning in Go")
also answers ``"ownership"`` (``[n, rows*cols]`` in [-1, 1], the final owner of each point from
the player to move's view, +1 theirs, in the zero encoder's point order) and ``"score"`` (``[n]``,
the final area score difference with komi for the player to move, in points): the cache keeps
them with the position (ownership as float16), ``evaluate_full`` returns them. A model without
them costs nothing more.

Symmetry: ``"identity"`` (default), a fixed symmetry ``0..7``, ``"random"``: a random one of
the 8 per evaluation (AlphaGo's trick against systematic bias; the cache keeps whichever symmetry
was drawn first for a position), or ``"average"``: the mean answer over all 8 (8 times the work,
a point or two more move-prediction accuracy; for a lone policy network, not for a search that
evaluates thousands of positions). Not thread-safe: one evaluator per thread.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.encoders import Encoder, get_encoder_by_name, symmetry
from dlgo.goboard import GameState
from dlgo.inference.files import LoadedModel, load_model, model_heads
from dlgo.inference.komi import KomiShift
from dlgo.inference.runners import Runner, make_runner
from dlgo.networks.zero import SCORE_SCALE

if TYPE_CHECKING:
    import keras

__all__ = [
    "BatchEvaluator",
    "EncodedBatch",
    "onnx_path_for",
    "symmetry_average",
    "SYMMETRY_MODES",
    "RUNTIMES",
    "AUX_HEADS",
]

log = logging.getLogger(__name__)

SYMMETRY_MODES = ("identity", "random", "average")
RUNTIMES = ("fp32", "int8")
AUX_HEADS = ("ownership", "score")  # heads beyond policy and value that the cache keeps
# Heads with one entry per board point, which a symmetry moves like the policy.
_SPATIAL = ("policy", "ownership")


def symmetry_average(
    runner: Runner, heads: Sequence[str], x: np.ndarray, dims: tuple[int, int], count: int, max_batch: int
) -> dict[str, np.ndarray]:
    """The runner's answers on planes ``x`` by head, averaged over the board's first ``count``
    allowed symmetries (policies and ownership mapped back to the original orientation, pass
    untouched)."""
    totals: dict[str, np.ndarray] = {}
    used = symmetry.allowed(dims)[:count]
    for k in used:
        xk = symmetry.apply_to_planes(x, k)
        outs = [runner(xk[i : i + max_batch]) for i in range(0, len(xk), max_batch)]
        for j, head in enumerate(heads):
            out = np.concatenate([o[j] for o in outs]).astype(np.float64)
            if head in _SPATIAL:
                out = symmetry.invert_policy(out, k, dims)
            totals[head] = totals[head] + out if head in totals else out
    return {head: (total / len(used)).astype(np.float32) for head, total in totals.items()}


def onnx_path_for(model_path: str | os.PathLike) -> Path:
    """Where the ONNX export of a model file is kept when its folder is writable: ``x.keras`` ->
    ``x.onnx`` (else in the user cache: ``dlgo.inference.onnx_cache``)."""
    return Path(model_path).with_suffix(".onnx")


class BatchEvaluator:
    """Evaluate many ``GameState``s at once through a fast runner.

    ``model``: a ``LoadedModel`` (from ``load_model``), a path to a ``.keras`` file, or a Keras
    model together with ``encoder`` (a name or an ``Encoder``). ``backend``: "auto" (ONNX Runtime
    if available, else compiled), "onnx", "compiled" or "predict" (the slow reference).
    ``runtime``: "fp32", or "int8" for the model file's int8 quantized ONNX model
    (``dlgo.inference.quantize``; made once and cached, at construction, never during a search),
    falling back to fp32 with a logged warning when it cannot be had.
    """

    def __init__(
        self,
        model: LoadedModel | keras.Model | str | os.PathLike,
        encoder: str | Encoder | None = None,
        *,
        backend: str = "auto",
        cache_size: int = 32768,
        symmetry_mode: str | int = "identity",
        seed: int | None = None,
        max_batch: int = 256,
        threads: int | None = None,
        runtime: str = "fp32",
    ) -> None:
        if runtime not in RUNTIMES:
            raise ValueError(f"unknown runtime {runtime!r}; known: {', '.join(RUNTIMES)}")
        if isinstance(model, str | os.PathLike):
            model = load_model(model, lazy=True)
        from_file = isinstance(model, LoadedModel) and model.path is not None and backend in ("auto", "onnx")
        if runtime == "int8" and not from_file:
            log.warning("int8 needs a model file and the ONNX backend (here backend=%r); running fp32", backend)
        runner: Runner | None = None
        self._keras = None
        self.loaded: LoadedModel | None = None
        if isinstance(model, LoadedModel):
            self.loaded = model
            self.encoder_name = model.card.encoder
            self.heads = list(model.card.heads)
            if encoder is not None and _name(encoder) != self.encoder_name:
                raise ValueError(f"{model.path}: trained with encoder {self.encoder_name!r}, not {_name(encoder)!r}")
            if from_file:
                from dlgo.inference.onnx_cache import onnx_runner

                if runtime == "int8":
                    from dlgo.inference.quantize import int8_runner

                    runner = int8_runner(model, threads)  # None (warned): fp32 below
                if runner is None:
                    runner = onnx_runner(model, threads)  # from a cached export: no Keras at all
        else:
            if encoder is None:
                raise ValueError("a bare Keras model needs its encoder (name or Encoder)")
            self._keras = model
            self.encoder_name = _name(encoder)
            self.heads = model_heads(model)
        trained_komi = self.loaded.card.trained_komi if self.loaded is not None else None
        # Only the zero encoder has the komi plane the shift reads and rewrites.
        self.komi_shift = KomiShift(trained_komi) if trained_komi is not None and self.encoder_name == "zero" else None
        self._encoders: dict[tuple[int, int], Encoder] = {}
        if isinstance(encoder, Encoder):
            self._encoders[(encoder.board_height, encoder.board_width)] = encoder
        self.runner: Runner = runner or make_runner(self.model, backend, threads=threads)
        if isinstance(symmetry_mode, int) and not 0 <= symmetry_mode < 8:
            raise ValueError(f"symmetry {symmetry_mode} outside 0..7")
        if not isinstance(symmetry_mode, int) and symmetry_mode not in SYMMETRY_MODES:
            raise ValueError(f"symmetry mode {symmetry_mode!r}: use {', '.join(map(repr, SYMMETRY_MODES))} or 0..7")
        self.symmetry_mode = 0 if symmetry_mode == "identity" else symmetry_mode
        self._rng = np.random.default_rng(seed)
        self.cache_size = cache_size
        # Per position: (policy, value), plus (ownership, score) for a model with those heads.
        self.aux_heads = [h for h in AUX_HEADS if h in self.heads]
        self._cache: OrderedDict[tuple, tuple] = OrderedDict()
        self.max_batch = max_batch
        self.hits = 0
        self.misses = 0
        self.batches = 0

    # --- public API -----------------------------------------------------------------------
    def evaluate(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        """Policy ``[n, moves]`` and value ``[n]`` for a network with both heads."""
        self._require("policy", "value")
        results = self._evaluate(states)
        return _stack(results, 0), _values(results, 1)

    def evaluate_full(self, states: Sequence[GameState]) -> dict[str, np.ndarray]:
        """Every head of the model by name: ``policy`` ``[n, moves]``, ``value`` ``[n]``, and when
        the model has them ``ownership`` ``[n, rows*cols]`` (float32) and ``score`` ``[n]`` in
        points; all from the view of the player to move."""
        results = self._evaluate(states)
        out = {}
        for j, head in enumerate(("policy", "value", *AUX_HEADS)):
            if head in self.heads:
                out[head] = _values(results, j) if head in ("value", "score") else _stack(results, j)
        return out

    @property
    def has_aux(self) -> bool:
        """Whether the model has both auxiliary heads (ownership and score)."""
        return len(self.aux_heads) == len(AUX_HEADS)

    def policy(self, states: Sequence[GameState]) -> np.ndarray:
        """Move probabilities ``[n, moves]`` (``moves`` = N*N, or N*N + 1 with pass last)."""
        self._require("policy")
        return _stack(self._evaluate(states), 0)

    def value(self, states: Sequence[GameState]) -> np.ndarray:
        """Values ``[n]`` in [-1, 1] for the player to move."""
        self._require("value")
        return _values(self._evaluate(states), 1)

    def encoder_for(self, board_size: int | tuple[int, int]) -> Encoder:
        key = board_size if isinstance(board_size, tuple) else (board_size, board_size)
        enc = self._encoders.get(key)
        if enc is None:
            enc = self._encoders[key] = get_encoder_by_name(self.encoder_name, key)
        return enc

    @property
    def encoders(self) -> tuple[Encoder, ...]:
        """The encoders known so far, one per board size (the one given first, then those
        ``encoder_for`` made), oldest first."""
        return tuple(self._encoders.values())

    @property
    def model(self) -> keras.Model:
        """The Keras model (loaded now when the evaluator runs a cached ONNX export)."""
        return self._keras if self.loaded is None else self.loaded.model

    def clear_cache(self) -> None:
        self._cache.clear()

    @property
    def stats(self) -> dict[str, Any]:
        return {
            "runner": self.runner.name,
            "cache_entries": len(self._cache),
            "cache_hits": self.hits,
            "cache_misses": self.misses,
            "batches": self.batches,
        }

    # --- internals --------------------------------------------------------------------------
    def _require(self, *heads: str) -> None:
        for head in heads:
            if head not in self.heads:
                raise ValueError(f"the model has no {head} head (it has {', '.join(self.heads)})")

    @staticmethod
    def _key(state: GameState, tag: int | str, encoder: Encoder) -> tuple:
        board = state.board
        # The recent moves as ints (a play's point, -1 a pass; the tuple ends where the game
        # starts): a key is hashed several times per position, Move objects hash slowly.
        history = []
        s: GameState | None = state
        for _ in range(encoder.history_moves):
            move = s.last_move if s is not None else None
            if move is None:
                break
            history.append(move.point.row * 256 + move.point.col if move.is_play else -1)
            s = s.previous_state
        return (tag, board.num_rows, board.num_cols, state.situation_hash(), state.komi, tuple(history))

    def _evaluate(self, states: Sequence[GameState]) -> list[tuple]:
        """The cache entry of each state: (policy, value[, ownership, score]), None where the
        model lacks a head."""
        n = len(states)
        if n == 0:
            raise ValueError("no states to evaluate")
        dims = {(s.board.num_rows, s.board.num_cols) for s in states}
        if len(dims) != 1:
            raise ValueError(f"states of one call must share a board size, got {sorted(dims)}")
        (rows, cols) = dims.pop()
        encoder = self.encoder_for((rows, cols))
        tag = "r" if self.symmetry_mode == "random" else self.symmetry_mode
        results: list[tuple | None] = [None] * n
        pending: dict[tuple, list[int]] = {}
        todo: list[tuple[tuple, GameState]] = []
        use_cache = self.cache_size > 0
        for i, state in enumerate(states):
            key = self._key(state, tag, encoder)
            if use_cache:
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
                    results[i] = hit
                    self.hits += 1
                    continue
            if key in pending:
                pending[key].append(i)
                continue
            pending[key] = [i]
            todo.append((key, state))
        if todo:
            self.misses += len(todo)
            fresh = self._run(encoder, [s for _, s in todo], (rows, cols))
            for (key, _), entry in zip(todo, fresh):
                for i in pending[key]:
                    results[i] = entry
                if use_cache:
                    self._cache[key] = entry
            if use_cache:
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return results

    def evaluate_encoded(self, keys: Sequence[int], planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Policy ``[m, moves]`` and value ``[m]`` of positions already encoded (``planes``
        ``[m, rows, cols, planes]``, the compiled search's leaves) under their cache keys (ints
        from the caller, which must hash everything the planes depend on; they never equal the
        tuple keys of ``evaluate``). The symmetry mode and the cache work as in ``evaluate``.
        In three steps for a caller that runs the network in another thread:
        ``start_encoded`` (cache and symmetries), ``forward`` (the network alone, no Python
        per position), ``finish_encoded``."""
        batch = self.start_encoded(keys, planes)
        return self.finish_encoded(batch, self.forward(batch))

    def start_encoded(self, keys: Sequence[int], planes: np.ndarray) -> EncodedBatch:
        self._require("policy", "value")
        batch = EncodedBatch(keys, [None] * len(keys), {})
        use_cache = self.cache_size > 0
        cache = self._cache
        for i, key in enumerate(keys):
            if use_cache:
                hit = cache.get(key)
                if hit is not None:
                    cache.move_to_end(key)
                    batch.results[i] = hit
                    self.hits += 1
                    continue
            if key in batch.pending:
                batch.pending[key].append(i)
            else:
                batch.pending[key] = [i]
        if batch.pending:
            self.misses += len(batch.pending)
            rows = [ids[0] for ids in batch.pending.values()]
            x = planes[rows] if len(rows) < len(planes) else planes
            batch.dims = (planes.shape[1], planes.shape[2])
            batch.x, batch.syms = self._oriented(x, batch.dims)
        return batch

    def forward(self, batch: EncodedBatch) -> dict[str, np.ndarray] | None:
        """The network's raw answers for a batch's cache misses (None: every one was a hit)."""
        return None if batch.x is None else self._forward(batch.x, batch.dims)

    def finish_encoded(self, batch: EncodedBatch, raw: dict[str, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
        if raw is not None:
            fresh = self._complete(raw, batch.syms, batch.dims, len(batch.x))
            for (key, ids), entry in zip(batch.pending.items(), fresh):
                for i in ids:
                    batch.results[i] = entry
                if self.cache_size > 0:
                    self._cache[key] = entry
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return _stack(batch.results, 0), _values(batch.results, 1)

    def encoded_aux(self, batch: EncodedBatch) -> tuple[np.ndarray, np.ndarray]:
        """Ownership ``[m, rows*cols]`` (float32) and score ``[m]`` (points) of a batch after
        ``finish_encoded``, in the view of each position's player to move."""
        self._require(*AUX_HEADS)
        return _stack(batch.results, 2), _values(batch.results, 3)

    def _run(self, encoder: Encoder, states: list[GameState], dims: tuple[int, int]) -> list[tuple]:
        x, syms = self._oriented(encoder.encode_batch(states), dims)
        return self._complete(self._forward(x, dims), syms, dims, len(x))

    def _oriented(self, x: np.ndarray, dims: tuple[int, int]) -> tuple[np.ndarray, np.ndarray | None]:
        """The planes in the symmetry each position is evaluated in, and those symmetries."""
        m = len(x)
        syms: np.ndarray | None = None  # the symmetry of each position (one gather for all)
        if self.symmetry_mode == "random":
            syms = self._rng.choice(symmetry.allowed(dims), size=m)
        elif self.symmetry_mode and self.symmetry_mode != "average":
            syms = np.full(m, self.symmetry_mode)
        if syms is not None:
            x = symmetry.apply_each_to_planes(x, syms)
        return x, syms

    def _forward(self, x: np.ndarray, dims: tuple[int, int]) -> dict[str, np.ndarray]:
        """The runner on ``x`` in chunks of ``max_batch``, by head (the mean over the board's
        symmetries in "average" mode), moved to each position's komi where the network knows one
        komi only (``dlgo.inference.komi``)."""
        if self.komi_shift is None:
            return self._run_network(x, dims)
        x, gain = self.komi_shift.prepare(x)
        return self.komi_shift.apply(self._run_network(x, dims), gain, dims, SCORE_SCALE)

    def _run_network(self, x: np.ndarray, dims: tuple[int, int]) -> dict[str, np.ndarray]:
        if self.symmetry_mode == "average":
            self.batches += len(symmetry.allowed(dims)) * -(-len(x) // self.max_batch)
            return symmetry_average(self.runner, self.heads, x, dims, symmetry.NUM_SYMMETRIES, self.max_batch)
        outputs: list[list[np.ndarray]] = []
        for start in range(0, len(x), self.max_batch):
            outputs.append(self.runner(x[start : start + self.max_batch]))
            self.batches += 1
        if len(outputs) == 1:
            return dict(zip(self.heads, outputs[0]))
        return {head: np.concatenate([o[j] for o in outputs]) for j, head in enumerate(self.heads)}

    def _complete(
        self, by_head: dict[str, np.ndarray], syms: np.ndarray | None, dims: tuple[int, int], m: int
    ) -> list[tuple]:
        """Cache entries from the raw answers: policies (and ownership) turned back from each
        position's symmetry."""
        if syms is not None:
            for head in _SPATIAL:
                if head in by_head:
                    by_head[head] = symmetry.invert_each_policy(by_head[head], syms, dims)
        return self._entries(by_head, m)

    def _entries(self, by_head: dict[str, np.ndarray], m: int) -> list[tuple]:
        # A copy per row: a cached row must not keep its whole batch's array alive.
        policy, value = by_head.get("policy"), by_head.get("value")
        policies = [row.copy() for row in policy] if policy is not None else [None] * m
        values = value.reshape(m, -1)[:, 0].tolist() if value is not None else [None] * m
        if not self.aux_heads:
            return list(zip(policies, values))
        own, score = by_head.get("ownership"), by_head.get("score")
        owns = [row.copy() for row in own.astype(np.float16)] if own is not None else [None] * m  # cached rows are many
        scores = (score.reshape(m, -1)[:, 0] * SCORE_SCALE).tolist() if score is not None else [None] * m
        return list(zip(policies, values, owns, scores))


@dataclass
class EncodedBatch:
    """A batch of ``BatchEvaluator.evaluate_encoded`` between its steps: the answers found in
    the cache, the positions still to run (``pending``: key -> rows) and their planes."""

    keys: Sequence[int]
    results: list[tuple | None]
    pending: dict[int, list[int]]
    x: np.ndarray | None = None  # the misses' planes, each in its symmetry
    syms: np.ndarray | None = None
    dims: tuple[int, int] = (0, 0)


def _stack(results: list[tuple], j: int) -> np.ndarray | None:
    return None if results[0][j] is None else np.stack([r[j] for r in results]).astype(np.float32, copy=False)


def _values(results: list[tuple], j: int) -> np.ndarray | None:
    return None if results[0][j] is None else np.array([r[j] for r in results], dtype=np.float32)


def _name(encoder: str | Encoder) -> str:
    return encoder if isinstance(encoder, str) else encoder.name()
