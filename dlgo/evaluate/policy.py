"""Move-prediction accuracy of a model on game records it has (or has not) seen.

For every sampled position of every game (the same samples training uses, ``dlgo.data.samples``:
first move included, passes when the network has a pass output) the network's policy is compared
with the move played: top-1 and top-5 accuracy and the mean cross-entropy; with a value head also
the mean squared error of the value against the game result (positions of games decided by
time, forfeit or void left out, as in training). Positions go through the fast runner of
``dlgo.inference`` (ONNX Runtime or a compiled function) in batches, never ``model.predict`` per position.

``split="test"`` keeps only the games the train/test split holds out (``dlgo.data.split``), with
the seed and fraction from the model card when it records them: the honest check of a model
trained on the same archives.

``symmetries=8`` scores the average of the network's answers over the board's 8 symmetries
(policies mapped back to the original orientation first): test-time augmentation, 8 times the
work, usually a point or two of top-1. The default (1) is the single pass a search sees.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.data.archives import iter_records
from dlgo.data.samples import SkipGame, game_samples
from dlgo.data.split import Split
from dlgo.encoders import symmetry
from dlgo.sgf import SgfError, read_game

__all__ = ["evaluate_policy", "PolicyScore", "score_batch", "SPLITS"]

SPLITS = ("all", "test", "train")


@dataclass
class PolicyScore:
    """Running totals; ``as_dict`` gives the figures."""

    positions: int = 0
    top1: int = 0
    top5: int = 0
    log_loss: float = 0.0
    value_positions: int = 0
    value_se: float = 0.0
    games: int = 0
    skipped: Counter = field(default_factory=Counter)

    def add(self, policy: np.ndarray, moves: np.ndarray, value=None, targets=None, mask=None) -> None:
        top1, top5, ll = score_batch(policy, moves)
        self.positions += len(moves)
        self.top1 += top1
        self.top5 += top5
        self.log_loss += ll
        if value is not None and targets is not None and mask is not None:
            v = np.asarray(value, dtype=np.float64).reshape(-1)[mask]
            t = np.asarray(targets, dtype=np.float64)[mask]
            self.value_positions += len(t)
            self.value_se += float(np.sum((v - t) ** 2))

    def as_dict(self) -> dict[str, Any]:
        n = max(1, self.positions)
        return {
            "games": self.games,
            "positions": self.positions,
            "top1": round(self.top1 / n, 4),
            "top5": round(self.top5 / n, 4),
            "policy_loss": round(self.log_loss / n, 4),
        } | (
            {"value_mse": round(self.value_se / self.value_positions, 4), "value_positions": self.value_positions}
            if self.value_positions
            else {}
        )


def score_batch(policy: np.ndarray, moves: np.ndarray) -> tuple[int, int, float]:
    """(top-1 hits, top-5 hits, summed cross-entropy) of probabilities ``(n, moves)`` vs labels."""
    policy = np.asarray(policy, dtype=np.float64)
    n = len(moves)
    p_true = policy[np.arange(n), moves]
    # Rank = other moves at least as likely: ties count against the model (a flat policy scores 0).
    rank = np.sum(policy >= p_true[:, None], axis=1) - 1
    return int(np.sum(rank < 1)), int(np.sum(rank < 5)), float(-np.sum(np.log(np.maximum(p_true, 1e-12))))


def evaluate_policy(
    model_path: str | os.PathLike,
    sgf: Sequence[str | os.PathLike],
    max_games: int | None = None,
    split: str = "all",
    split_seed: int | None = None,
    test_fraction: float | None = None,
    batch_size: int = 256,
    backend: str = "auto",
    progress: bool = False,
    symmetries: int = 1,
) -> dict[str, Any]:
    """Score ``model_path`` on the games of ``sgf`` (folders, archives, .sgf files); a JSON-able dict."""
    from tqdm import tqdm

    from dlgo.inference import BatchEvaluator, load_model
    from dlgo.inference.evaluator import symmetry_average

    if split not in SPLITS:
        raise ValueError(f"split {split!r}: use one of {', '.join(SPLITS)}")
    if not 1 <= symmetries <= symmetry.NUM_SYMMETRIES:
        raise ValueError(f"symmetries {symmetries}: use 1 to {symmetry.NUM_SYMMETRIES}")
    started = time.perf_counter()
    loaded = load_model(model_path)
    card = loaded.card
    card_split = (card.training.get("data") or {}).get("split") or {}
    the_split = Split(
        split_seed if split_seed is not None else int(card_split.get("seed", Split().seed)),
        test_fraction if test_fraction is not None else float(card_split.get("test_fraction", Split().test_fraction)),
    )
    evaluator = BatchEvaluator(loaded, backend=backend, cache_size=0)
    heads = loaded.heads
    fixed = card.input_shape[0] if card.input_shape else None
    score = PolicyScore()
    buffers: dict[tuple[int, int], list] = {}

    def flush(key: tuple[int, int]) -> None:
        items = buffers.pop(key, [])
        if not items:
            return
        x = np.concatenate([s.planes for s in items])
        moves = np.concatenate([s.moves for s in items])
        values = np.concatenate([s.values for s in items]).astype(np.float32)
        mask = np.concatenate([s.value_mask for s in items])
        by_head = symmetry_average(evaluator.runner, heads, x, key, symmetries, batch_size)
        score.add(by_head["policy"], moves, by_head.get("value"), values, mask)

    def on_error(where: str, e: Exception) -> None:
        score.skipped["unreadable_source"] += 1

    bar = tqdm(total=max_games, unit="game", desc="evaluating", disable=not progress)
    for record in iter_records(sgf, on_error=on_error):
        if max_games is not None and score.games >= max_games:
            break
        if split != "all" and the_split.part(record.game_id) != split:
            continue
        try:
            game = read_game(record.data, name=record.game_id, log_repairs=False)
        except (SgfError, Exception):  # one odd record never stops an evaluation
            score.skipped["malformed"] += 1
            continue
        if game.repairs:  # the records training skips (dlgo.data.samples) are not scored either
            score.skipped["malformed"] += 1
            continue
        rows, cols = game.board_size
        if fixed is not None and (rows, cols) != (card.input_shape[0], card.input_shape[1]):
            score.skipped["board_size"] += 1
            continue
        try:
            samples = game_samples(game, evaluator.encoder_for((rows, cols)))
        except SkipGame as e:
            score.skipped[e.reason] += 1
            continue
        score.games += 1
        bar.update(1)
        buffers.setdefault((rows, cols), []).append(samples)
        if sum(len(s) for s in buffers[(rows, cols)]) >= 8 * batch_size:
            flush((rows, cols))
    for key in list(buffers):
        flush(key)
    bar.close()
    seconds = time.perf_counter() - started
    return {
        "model": str(model_path),
        "sgf": [str(p) for p in sgf],
        "split": split,
        "symmetries": symmetries,
        "split_seed": the_split.seed,
        "test_fraction": the_split.test_fraction,
        **score.as_dict(),
        "skipped_games": dict(sorted(score.skipped.items())),
        "runner": evaluator.runner.name,
        "seconds": round(seconds, 1),
        "positions_per_second": round(score.positions / seconds, 1) if seconds > 0 else None,
    }


def record_in_card(model_path: str | os.PathLike, result: dict[str, Any], command: str) -> Path:
    """Store ``result`` (and the command that produced it) in the model card's metrics."""
    from dlgo.inference.card import read_card, write_card

    card = read_card(model_path)
    keep = ("games", "positions", "top1", "top5", "policy_loss", "value_mse", "value_positions", "split", "sgf")
    entry = {k: result[k] for k in keep if k in result} | {"command": command}
    # The single-pass figure is the card's headline; a symmetry average is kept beside it.
    name = "evaluate" if result.get("symmetries", 1) == 1 else f"evaluate_{result['symmetries']}_symmetries"
    card.metrics = {**card.metrics, name: entry | {"symmetries": result.get("symmetries", 1)}}
    return write_card(model_path, card)


__all__ += ["record_in_card"]
