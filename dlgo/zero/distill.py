"""A smaller network taught by a larger one (knowledge distillation, Hinton et al. 2015).

On two CPU cores the 10x128 networks are near the machine's limit (the search keeps more than
0.9 of the network's positions a second on every size), so more visits a move can only come from
a cheaper network. A student of a few blocks learns from the teacher's own outputs on the
positions of a data folder (``dlgo.zero.teacher convert`` / ``split``), which carry far more than
the one move and one result of a record:

- the policy target is ``policy_mix`` times the teacher's move probabilities plus the rest times
  the row's own target (the teacher player's move or the search's visits); rows that had no
  policy target (a weaker player's moves) take the teacher's alone;
- the teacher's value becomes the row's ``root_values``, so that ``teacher train
  --value-q-weight`` blends it with the game's result, as the search's Q is blended in self-play.

Only the training chunks are relabelled: the held-out chunks stay as they were, so that the
rounds of ``teacher train`` are measured against the real moves and results, and the student is
judged in play against the teacher at equal time (docs/zero-training.md, "A distilled network").

    python -m dlgo.zero.distill --teacher weights/zero-9x9-10x128.keras --data runs/t10mix/data \\
        --out runs/distill9 --blocks 6 --filters 96
    python -m dlgo.zero.teacher train --data runs/distill9/data --init runs/distill9/zero-9x9-6x96.keras \\
        --out runs/distill9/net --value-q-weight 0.5 --rounds 8 --steps 300 --lr 0.02

The first command is resumable: chunks already relabelled are kept.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.extras import require_extra
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer

__all__ = ["distilled_buffer", "relabel_replay", "build_student", "main"]


def distilled_buffer(
    buffer: ZeroExperienceBuffer, policy: np.ndarray, value: np.ndarray, policy_mix: float
) -> ZeroExperienceBuffer:
    """``buffer`` with the teacher's ``policy`` (``[n, N*N + 1]`` probabilities) mixed into its
    policy targets and the teacher's ``value`` (``[n]``, for the player to move) as its root
    values; states, results and the auxiliary targets unchanged."""
    if not 0.0 <= policy_mix <= 1.0:
        raise ValueError(f"policy_mix {policy_mix}: must be within [0, 1]")
    policy = np.asarray(policy, dtype=np.float32)
    if policy.shape != buffer.policies.shape:
        raise ValueError(f"teacher policy {policy.shape} does not fit the targets {buffer.policies.shape}")
    policy = policy / np.maximum(policy.sum(axis=1, keepdims=True), 1e-12)
    own = buffer.policies
    taught = own.sum(axis=1, keepdims=True) > 0
    mixed = np.where(taught, policy_mix * policy + (1.0 - policy_mix) * own, policy)
    return ZeroExperienceBuffer(
        buffer.states,
        mixed,
        buffer.rewards,
        ownership=buffer.ownership,
        score=buffer.score,
        aux_mask=buffer.aux_mask,
        root_values=np.clip(np.asarray(value, dtype=np.float32).reshape(-1), -1.0, 1.0),
    )


def _predict(model: Any, states: np.ndarray, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
    policies, values = [], []
    for start in range(0, len(states), batch_size):
        out = model.predict_on_batch(np.asarray(states[start : start + batch_size], dtype=np.float32))
        policies.append(np.asarray(out[0]))
        values.append(np.asarray(out[1]).reshape(-1))
    return np.concatenate(policies), np.concatenate(values)


def relabel_replay(
    teacher: Any,
    source: ReplayBuffer,
    target: ReplayBuffer,
    policy_mix: float,
    batch_size: int = 256,
    progress: bool = False,
) -> tuple[int, int]:
    """Write every chunk of ``source`` into ``target`` under the same name, relabelled by the
    Keras ``teacher`` (chunks already in ``target`` are kept). Returns (chunks written, kept)."""
    chunks = source.chunks()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(chunks), desc="relabelled", unit="chunk", file=sys.stderr, dynamic_ncols=True)
    written = kept = 0
    for chunk in chunks:
        path = target.chunk_path(chunk.iteration, chunk.task, chunk.positions)
        if path.exists():
            kept += 1
        else:
            buffer = ZeroExperienceBuffer.load(chunk.path)
            if len(buffer):
                policy, value = _predict(teacher, buffer.states, batch_size)
                buffer = distilled_buffer(buffer, policy, value, policy_mix)
            buffer.save(path)
            written += 1
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return written, kept


def build_student(teacher_path: Path, out: Path, blocks: int, filters: int, seed: int) -> Path:
    """A policy and value network for the teacher's encoder and board sizes, ``blocks`` x
    ``filters``, with fresh weights, saved with its card at ``out`` (``teacher train
    --aux-heads`` grafts ownership and score heads where wanted)."""
    import keras

    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import save_model
    from dlgo.inference.card import read_card
    from dlgo.networks import build_network

    card = read_card(teacher_path)
    sizes = list(card.board_sizes)
    keras.utils.set_random_seed(seed)
    encoder = get_encoder_by_name(card.encoder, sizes[0])
    model = build_network("zero", encoder, blocks=blocks, filters=filters)
    save_model(
        model, out, encoder, sizes,
        network={"kind": "zero", "blocks": blocks, "filters": filters},
        training={"kind": "distillation student, untrained", "teacher": str(teacher_path), "seed": seed},
    )  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dlgo.zero.distill", description=__doc__.split("\n")[0])
    p.add_argument("--teacher", required=True, help="the network that teaches (.keras with its card)")
    p.add_argument(
        "--data", required=True, help="a data folder of `dlgo.zero.teacher convert`/`split` (train/, holdout/)"
    )
    p.add_argument("--out", required=True, help="run folder: data/ (relabelled) and the untrained student")
    p.add_argument("--blocks", type=int, default=6, help="the student's residual blocks")
    p.add_argument("--filters", type=int, default=96, help="the student's filters")
    p.add_argument("--policy-mix", type=float, default=0.75, help="the teacher's share of the policy target")
    p.add_argument("--batch-size", type=int, default=256, help="positions per teacher call")
    p.add_argument("--seed", type=int, default=1, help="seed of the student's initial weights")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=sys.stderr.isatty())
    args = p.parse_args(argv)
    require_extra("train", "python -m dlgo.zero.distill")
    if not 0.0 <= args.policy_mix <= 1.0:
        raise SystemExit(f"--policy-mix {args.policy_mix}: must be within [0, 1]")
    if args.blocks < 1 or args.filters < 8:
        raise SystemExit(f"--blocks {args.blocks} --filters {args.filters}: at least 1 block of 8 filters")
    data = Path(args.data)
    train = ReplayBuffer(data / "train")
    if not train.chunks():
        raise SystemExit(f"{data / 'train'}: no experience chunks (run `dlgo.zero.teacher convert` or `split`)")

    import dlgo.networks  # noqa: F401  (registers custom objects)
    from dlgo.inference import ModelFileError, load_model

    try:
        teacher = load_model(args.teacher).model
    except (OSError, ValueError, ModelFileError) as e:
        raise SystemExit(f"{args.teacher}: {e}") from e
    out = Path(args.out)
    written, kept = relabel_replay(
        teacher, train, ReplayBuffer(out / "data" / "train"), args.policy_mix, args.batch_size, args.progress
    )
    held_out, held = ReplayBuffer(out / "data" / "holdout"), ReplayBuffer(data / "holdout").chunks()
    for chunk in held:  # held out as they were
        held_out.link(chunk.path, chunk.iteration, chunk.task, chunk.positions)
    stem = Path(args.teacher).stem.split("-")
    name = "-".join([*stem[:2], f"{args.blocks}x{args.filters}"]) + ".keras"
    student = out / name
    if not student.exists():
        build_student(Path(args.teacher), student, args.blocks, args.filters, args.seed)
    print(
        f"distill: {written} chunks relabelled ({kept} kept from before), {len(held)} held out as they were, "
        f"student {student} ({args.blocks}x{args.filters})",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
