"""A trained Zero network grown to a larger trunk that plays exactly as before (Net2Net-style).

    python -m dlgo.networks.grow --model weights/zero-9x9-loop/zero-9x9.keras --blocks 6 \
        --filters 64 --out weights/zero-9x9-6x64/zero-9x9.keras

The self-play loop's 4x48 trunk stopped improving (docs/zero-training.md): its losses stayed flat
for ~80 iterations. A larger trunk started from random weights would first have to relearn
everything the small one knows, hours of the 2 cores; grown from it, self-play and training go
on from the same strength with room to learn more (Chen et al. 2016, "Net2Net"; KataGo grows its
networks between runs the same way).

- **Wider** (more filters): each new channel of the residual stream and of every block gets
  fresh (He-normal) incoming weights and batch norm at identity, and every layer that reads the
  stream reads it with zero weights, so the old channels compute what they computed and the heads
  see only them. Training moves those zero weights first (their gradient is the new channels'
  activations, which are not zero), then the rest.
- **Deeper** (more blocks): new residual blocks go after the old ones, their second batch norm at
  zero scale and shift (the block adds nothing: ``relu(x + 0) = x`` for the non-negative stream)
  and their global-pooling bias at zero, as the "zero-init residual" trick of Goyal et al. 2017.

Global pooling and auxiliary heads are kept as the model has them; the global-pooling branches
keep their channel count (the pooled features feed a dense layer whose input layout would
otherwise change). Outputs agree with the original to float rounding (``tests/test_grow.py``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["grow_network", "trunk_size", "main"]


def trunk_size(model: Any) -> tuple[int, int]:
    """(residual blocks, filters) of a ``zero_model``."""
    blocks = sum(bool(re.fullmatch(r"res\d+_conv1", layer.name)) for layer in model.layers)
    return blocks, int(model.get_layer("stem_conv").filters)


def _grown_array(old: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """``old``'s values in the leading corner of ``fresh``'s shape.

    Kernels (2-D dense, 4-D convolution; input axis -2, output axis -1): inputs that are new feed
    the old outputs with zero weights; new outputs keep ``fresh``'s random weights. Vectors (batch
    norm, biases): new entries keep ``fresh``'s values (identity batch norm: scale and variance 1,
    shift and mean 0)."""
    if old.shape == fresh.shape:
        return old
    out = fresh.copy()
    if old.ndim == 1:
        out[: old.shape[0]] = old
        return out
    n_in, n_out = old.shape[-2], old.shape[-1]
    out[..., n_in:, :n_out] = 0.0
    out[..., :n_in, :n_out] = old
    return out


def grow_network(model: Any, blocks: int, filters: int, seed: int = 0) -> Any:
    """A ``zero_model`` of ``blocks`` x ``filters`` whose outputs equal ``model``'s (see above)."""
    import keras

    from dlgo.networks.zero import gpool_blocks, zero_model

    old_blocks, old_filters = trunk_size(model)
    if blocks < old_blocks or filters < old_filters:
        raise ValueError(f"{model.name}: a {old_blocks}x{old_filters} trunk can only grow (asked {blocks}x{filters})")
    names = {layer.name for layer in model.layers}
    pooled = sorted(int(m.group(1)) for n in names if (m := re.fullmatch(r"res(\d+)_gpool_conv", n)))
    if pooled and pooled != gpool_blocks(old_blocks):
        raise ValueError(f"{model.name}: global pooling in blocks {pooled}, expected {gpool_blocks(old_blocks)}")
    reg = model.get_layer("stem_conv").kernel_regularizer
    keras.utils.set_random_seed(seed)
    new = zero_model(
        int(model.input_shape[-1]),
        blocks=blocks,
        filters=filters,
        board_size=model.input_shape[1],
        policy_channels=int(model.get_layer("policy_conv").filters),
        value_channels=int(model.get_layer("value_conv").filters),
        value_hidden=int(model.get_layer("value_hidden").units),
        l2=float(reg.l2) if reg is not None else 0.0,
        name=f"zero_{blocks}x{filters}",
        ownership="ownership_conv" in names,
        score="score_hidden" in names,
        global_pooling=bool(pooled),
        aux_channels=int(model.get_layer("ownership_conv").filters) if "ownership_conv" in names else 16,
        gpool_channels=int(model.get_layer(f"res{pooled[0]}_gpool_conv").filters) if pooled else 0,
    )
    for layer in new.layers:
        if not layer.weights:
            continue
        fresh = layer.get_weights()
        if layer.name in names:
            old = model.get_layer(layer.name).get_weights()
            if len(old) != len(fresh):
                raise ValueError(f"{model.name}: layer {layer.name!r} has a different structure")
            layer.set_weights([_grown_array(o, f) for o, f in zip(old, fresh, strict=True)])
        elif re.fullmatch(r"res\d+_bn2", layer.name):
            # gamma, beta of a new block's last batch norm at zero: the block starts as the identity
            layer.set_weights([np.zeros_like(w) if i < 2 else w for i, w in enumerate(fresh)])
        elif layer.name.endswith("_gpool_dense"):
            layer.set_weights([np.zeros_like(w) for w in fresh])
        elif not re.match(r"res\d+_", layer.name):
            raise ValueError(f"{model.name}: not a zero network (no layer {layer.name!r})")
    return new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="the trained zero network (.keras with its model card)")
    parser.add_argument("--blocks", type=int, required=True, help="residual blocks of the grown trunk")
    parser.add_argument("--filters", type=int, required=True, help="filters of the grown trunk")
    parser.add_argument("--out", required=True, help="the grown network (.keras; its card is written beside it)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the new channels' random weights")
    args = parser.parse_args(argv)

    import dlgo.networks  # noqa: F401  (registers custom objects)
    from dlgo.inference import ModelFileError, load_model, save_model

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
    command = " ".join(["python -m dlgo.networks.grow", *(argv if argv is not None else sys.argv[1:])])
    training = {
        "kind": "grown",
        "from": str(source),
        "from_training": card.training,
        "command": command,
        "notes": f"{old_blocks}x{old_filters} grown to {args.blocks}x{args.filters}: same outputs",
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_model(grown, out, card.encoder, card.board_sizes, network=network, training=training, metrics=card.metrics)
    print(
        f"grow: {source} ({old_blocks}x{old_filters}, {model.count_params():,} parameters) -> "
        f"{out} ({args.blocks}x{args.filters}, {grown.count_params():,} parameters)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
