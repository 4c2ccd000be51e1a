"""The command that grows a trained Zero network's trunk (``dlgo.networks.grow``), card included.

    python -m dlgo.zero.grow --model weights/zero-9x9-loop/zero-9x9.keras --blocks 6 \
        --filters 64 --out runs/grown/zero-9x9.keras

The loop grows its learner by itself (``[loop] blocks``/``filters``); this writes a grown network
with its model card for a match, a benchmark or a loop's ``init_model``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dlgo.extras import require_extra

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="the trained zero network (.keras with its model card)")
    parser.add_argument("--blocks", type=int, required=True, help="residual blocks of the grown trunk")
    parser.add_argument("--filters", type=int, required=True, help="filters of the grown trunk")
    parser.add_argument("--out", required=True, help="the grown network (.keras; its card is written beside it)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the new channels' random weights")
    args = parser.parse_args(argv)
    require_extra("train", "python -m dlgo.zero.grow")

    import dlgo.networks  # noqa: F401  (registers custom objects)
    from dlgo.inference import ModelFileError, load_model, save_model
    from dlgo.networks.grow import grow_network, trunk_size

    source = Path(args.model)
    try:
        loaded = load_model(source)
        model, card = loaded.model, loaded.card
        grown = grow_network(model, args.blocks, args.filters, args.seed)
    except (OSError, ValueError, ModelFileError) as e:
        print(f"grow: {e}", file=sys.stderr)
        return 1
    old_blocks, old_filters = trunk_size(model)
    network = dict(card.network or {})
    network.update(name=grown.name, blocks=args.blocks, filters=args.filters)
    command = " ".join(["python -m dlgo.zero.grow", *(argv if argv is not None else sys.argv[1:])])
    training = {
        "kind": "grown",
        "from": str(source),
        "from_training": card.training,
        "command": command,
        "notes": f"{old_blocks}x{old_filters} grown to {args.blocks}x{args.filters}: same outputs",
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_model(
        grown, out, card.encoder, card.board_sizes, network=network, training=training, metrics=card.metrics,
        trained_komi=card.trained_komi,  # the same outputs: the same one komi known
    )  # fmt: skip
    print(
        f"grow: {source} ({old_blocks}x{old_filters}, {model.count_params():,} parameters) -> "
        f"{out} ({args.blocks}x{args.filters}, {grown.count_params():,} parameters)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
