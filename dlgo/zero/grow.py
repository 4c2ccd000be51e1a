"""The command that reshapes a trained Zero network (``dlgo.networks.grow``), card included: its
trunk grown, or the ownership and score heads of another network with the same trunk taken on.

    python -m dlgo.zero.grow --model weights/zero-9x9-loop/zero-9x9.keras --blocks 6 \
        --filters 64 --out runs/grown/zero-9x9.keras
    python -m dlgo.zero.grow --model weights/zero-13x13.keras \
        --heads-from weights/zero-19x19-aux.keras --out runs/heads13/zero-13x13-aux.keras

The loop grows its learner by itself (``[loop] blocks``/``filters``); this writes a grown network
with its model card for a match, a benchmark or a loop's ``init_model``. ``--heads-from`` saves
training the heads from nothing where two networks share a trunk (the value head alone refitted,
as ``weights/zero-13x13.keras`` is from ``weights/zero-19x19.keras``); a head that reads
features the two value heads compute differently (the score head) is named, to be fitted again
with ``python -m dlgo.zero.teacher train --heads ownership score``.
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
    parser.add_argument("--blocks", type=int, help="residual blocks of the grown trunk")
    parser.add_argument("--filters", type=int, help="filters of the grown trunk")
    parser.add_argument(
        "--heads-from", metavar="DONOR", help="take the ownership and score heads of DONOR (the same trunk)"
    )
    parser.add_argument("--out", required=True, help="the new network (.keras; its card is written beside it)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the new channels' random weights")
    args = parser.parse_args(argv)
    grow = args.blocks is not None or args.filters is not None
    if grow and (args.blocks is None or args.filters is None):
        parser.error("--blocks and --filters go together")
    if grow == bool(args.heads_from):
        parser.error("give either --blocks and --filters, or --heads-from")
    require_extra("train", "python -m dlgo.zero.grow")

    import dlgo.networks  # noqa: F401  (registers custom objects)
    from dlgo.inference import ModelFileError, load_model, save_model
    from dlgo.networks.grow import graft_heads_from, grow_network, trunk_size

    source = Path(args.model)
    command = " ".join(["python -m dlgo.zero.grow", *(argv if argv is not None else sys.argv[1:])])
    try:
        loaded = load_model(source)
        model, card = loaded.model, loaded.card
        if grow:
            new = grow_network(model, args.blocks, args.filters, args.seed)
        else:
            new, refit = graft_heads_from(model, load_model(Path(args.heads_from)).model)
    except (OSError, ValueError, ModelFileError) as e:
        print(f"grow: {e}", file=sys.stderr)
        return 1
    old_blocks, old_filters = trunk_size(model)
    network = dict(card.network or {})
    if grow:
        network.update(name=new.name, blocks=args.blocks, filters=args.filters)
        notes = f"{old_blocks}x{old_filters} grown to {args.blocks}x{args.filters}: same outputs"
    else:
        network.update(aux_heads=True)
        notes = f"ownership and score heads of {args.heads_from}; policy and value unchanged"
        if refit:
            notes += f"; to fit again: {', '.join(refit)} (reads the value head's features, which differ)"
    training = {
        "kind": "grown" if grow else "heads grafted",
        "from": str(source),
        "from_training": card.training,
        "command": command,
        "notes": notes,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_model(
        new, out, card.encoder, card.board_sizes, network=network, training=training, metrics=card.metrics,
        trained_komi=card.trained_komi,  # the same outputs: the same one komi known
    )  # fmt: skip
    if grow:
        print(
            f"grow: {source} ({old_blocks}x{old_filters}, {model.count_params():,} parameters) -> "
            f"{out} ({args.blocks}x{args.filters}, {new.count_params():,} parameters)"
        )
    else:
        print(f"grow: {out}: {notes}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
