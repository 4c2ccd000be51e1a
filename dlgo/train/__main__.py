"""``python -m dlgo.train supervised``: train a move-prediction (and value) network on game records.

    python -m dlgo.train supervised --encoder zero --network zero --blocks 6 --filters 64 --size 19 \\
        --games 20000 --epochs 20 --steps-per-epoch 500 --out runs/zero-6x64
    python -m dlgo.train supervised --out runs/zero-6x64 --resume [--epochs 30]

Everything goes to ``--out``: ``data/`` (chunks, unless ``--data``), ``checkpoint-NNN.keras``,
``state.json``, ``log.csv``, ``curves.png`` and ``model.keras`` with its card.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up chatter, when it is the backend

from dlgo.data.split import DEFAULT_SEED, DEFAULT_TEST_FRACTION
from dlgo.extras import require_extra


def _parser() -> argparse.ArgumentParser:
    from dlgo.networks import network_names
    from dlgo.train.optimizers import OPTIMIZERS
    from dlgo.train.schedule import SCHEDULES

    parser = argparse.ArgumentParser(prog="python -m dlgo.train", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("supervised", help="learn moves (and results) from game records")
    p.add_argument("--out", required=True, help="run folder (checkpoints, logs, model.keras)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    p.add_argument("--encoder", default="zero")
    p.add_argument("--network", default="zero", choices=network_names(supervised=True))
    p.add_argument("--blocks", type=int, default=6, help="residual blocks (zero network)")
    p.add_argument("--filters", type=int, default=64, help="filters per convolution (zero, alphago)")
    p.add_argument("--size", type=int, default=19, help="board size of the training games")
    p.add_argument("--games", type=int, default=2000, help="training games (0: all)")
    p.add_argument("--test-games", type=int, default=300, help="held-out games processed for validation")
    p.add_argument("--sources", nargs="+", help="archive folders/files (default ../shared/data/kgs and tom9d)")
    p.add_argument("--data", help="processed data folder to use or create (default: OUT/data)")
    p.add_argument("--epochs", type=int, default=None, help="epochs in all (default 10; on resume: as stored)")
    p.add_argument("--steps-per-epoch", type=int, help="batches per epoch (default: one pass over the data)")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--optimizer", default="adam", choices=OPTIMIZERS)
    p.add_argument("--lr", type=float, default=1e-3, help="peak learning rate")
    p.add_argument("--lr-schedule", default="cosine", choices=SCHEDULES)
    p.add_argument("--lr-min", type=float, default=1e-5, help="final rate of the cosine schedule")
    p.add_argument("--warmup-steps", type=int, default=100)
    p.add_argument("--momentum", type=float, default=0.9, help="SGD momentum (Nesterov)")
    p.add_argument("--value-weight", type=float, default=0.25, help="weight of the value loss (0: policy only)")
    p.add_argument("--val-positions", type=int, default=4096, help="held-out positions for validation")
    p.add_argument("--no-augment", action="store_true", help="no symmetry augmentation")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--split-seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--test-fraction", type=float, default=DEFAULT_TEST_FRACTION)
    p.add_argument("-j", "--jobs", type=int, help="data worker processes (default: one per core)")
    p.add_argument("--init", help="start from this model's weights (same network), e.g. weights/zero-19x19.keras")
    p.add_argument("--max-minutes", type=float, help="stop after the epoch that would pass this (resume later)")
    p.add_argument(
        "--fit-to-time", action="store_true", help="measure epoch 1, then fit the schedule's epochs into --max-minutes"
    )
    p.add_argument(
        "--mixed-precision", action="store_true", help="bfloat16 compute (GPU); weights and model.keras stay float32"
    )
    p.add_argument("--notes", default="", help="text for the model card")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    require_extra("train", "python -m dlgo.train")  # before the parser: its choices come from Keras code
    args = _parser().parse_args(argv)
    from dlgo.train.supervised import SupervisedConfig, TrainingError, train_supervised

    argv_list = list(sys.argv[1:] if argv is None else argv)
    # The options are named like the config's fields; only these need translating.
    values = dict(vars(args))
    values.update(
        games=args.games or None,
        epochs=args.epochs if args.epochs is not None else (0 if args.resume else 10),
        augment=not args.no_augment,
        command="python -m dlgo.train " + shlex.join(argv_list),
    )
    config = SupervisedConfig.from_dict(values)
    try:
        summary = train_supervised(config, resume=args.resume)
    except (TrainingError, FileNotFoundError) as e:
        print(f"dlgo.train: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
