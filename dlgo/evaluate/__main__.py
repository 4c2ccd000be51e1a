"""``python -m dlgo.evaluate policy --model FILE --sgf PATH [PATH ...]``: move-prediction accuracy.

PATH: a folder of ``.sgf`` files and/or ``.tar.gz`` archives, an archive, or one ``.sgf``. Prints
one JSON object: games, positions, top1, top5, policy_loss, and value_mse when the model has a
value head. ``--split test`` keeps only the games held out by the train/test split (seed and
fraction from the model card unless given); ``--record`` stores the figures in the model card.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up chatter, when it is the backend


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dlgo.evaluate", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("policy", help="top-1/top-5 move prediction (and value MSE) on game records")
    p.add_argument("--model", required=True, help="a .keras model file with its card")
    p.add_argument("--sgf", required=True, nargs="+", help="folders, .tar.gz archives or .sgf files")
    p.add_argument("--max-games", type=int, help="stop after this many games")
    p.add_argument("--split", default="all", choices=("all", "test", "train"), help="games of one part of the split")
    p.add_argument("--split-seed", type=int, help="default: from the model card, else 1337")
    p.add_argument("--test-fraction", type=float, help="default: from the model card, else 0.02")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--backend", default="auto", choices=("auto", "onnx", "compiled", "predict"))
    p.add_argument(
        "--symmetries", type=int, default=1, help="average the answers over this many board symmetries (1-8)"
    )
    p.add_argument("--record", action="store_true", help="write the figures into the model card")
    args = parser.parse_args(argv)

    from dlgo.evaluate.policy import evaluate_policy, record_in_card
    from dlgo.inference import ModelFileError

    try:
        result = evaluate_policy(
            args.model,
            args.sgf,
            max_games=args.max_games,
            split=args.split,
            split_seed=args.split_seed,
            test_fraction=args.test_fraction,
            batch_size=args.batch_size,
            backend=args.backend,
            symmetries=args.symmetries,
            progress=sys.stderr.isatty(),
        )
    except (ModelFileError, FileNotFoundError, ValueError) as e:
        print(f"dlgo.evaluate: {e}", file=sys.stderr)
        return 2
    if args.record:
        command = "python -m dlgo.evaluate " + shlex.join(list(sys.argv[1:] if argv is None else argv))
        record_in_card(args.model, result, command)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
