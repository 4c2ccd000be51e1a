"""A trained Zero network reshaped so that it plays exactly as before: auxiliary heads grafted
on or taken off, global pooling added, the trunk grown (Net2Net-style). ``conform_network`` is
what the loop and the trainer call: a network as a loop config asks for it.

    python -m dlgo.zero.grow --model weights/zero-9x9-loop/zero-9x9.keras --blocks 6 \
        --filters 64 --out runs/grown/zero-9x9.keras

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

import re
from typing import Any

import numpy as np

from dlgo.networks.zero import AUX_HEADS, gpool_blocks, zero_model

__all__ = [
    "grow_network",
    "trunk_size",
    "model_has_heads",
    "graft_heads",
    "graft_heads_from",
    "conform_network",
]


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


def model_has_heads(model: Any) -> dict[str, bool]:
    """Which auxiliary heads ``model`` has, by output name: ``{"ownership": .., "score": ..}``."""
    names = list(model.output_names)
    return {head: head in names for head in AUX_HEADS}


def graft_heads(model: Any, ownership: bool = True, score: bool = True, global_pooling: bool | None = None) -> Any:
    """A ``zero_model`` with ``model``'s trunk, policy and value weights (copied by layer name) and
    the auxiliary heads asked for: fresh ones where ``model`` lacks them, its own where it has
    them. A shipped network without the heads starts a loop that trains them (and
    ``ownership=False, score=False`` strips them again). ``global_pooling=True`` adds pooling
    blocks to a trunk without them, their last layer zero so every output stays the same;
    None keeps the trunk as it is (pooling is never taken out: the outputs would change)."""

    def layer(label: str):
        try:
            return model.get_layer(label)
        except ValueError:
            raise ValueError(f"{model.name}: not a zero network (no layer {label!r})") from None

    blocks = sum(bool(re.fullmatch(r"res\d+_conv1", lay.name)) for lay in model.layers)
    pooled = sorted(int(m.group(1)) for lay in model.layers if (m := re.fullmatch(r"res(\d+)_gpool_conv", lay.name)))
    if pooled and pooled != gpool_blocks(blocks):
        raise ValueError(
            f"{model.name}: global pooling in blocks {pooled}, this code builds it in {gpool_blocks(blocks)}"
        )
    if pooled and global_pooling is False:
        raise ValueError(f"{model.name}: its trunk has global pooling, which cannot be taken out")
    stem = layer("stem_conv")
    reg = stem.kernel_regularizer
    own_conv = "ownership_conv" in {lay.name for lay in model.layers}
    rows = model.input_shape[1]
    new = zero_model(
        int(model.input_shape[-1]),
        blocks=blocks,
        filters=int(stem.filters),
        board_size=rows,
        policy_channels=int(layer("policy_conv").filters),
        value_channels=int(layer("value_conv").filters),
        value_hidden=int(layer("value_hidden").units),
        l2=float(reg.l2) if reg is not None else 0.0,
        name=model.name,
        ownership=ownership,
        score=score,
        global_pooling=bool(pooled) or bool(global_pooling),
        aux_channels=int(layer("ownership_conv").filters) if own_conv else 16,
        gpool_channels=int(layer(f"res{pooled[0]}_gpool_conv").filters) if pooled else 0,
    )
    source = {lay.name: lay for lay in model.layers}
    for target in new.layers:
        if target.name in source and target.weights:
            target.set_weights(source[target.name].get_weights())
        elif target.name.endswith("_gpool_dense"):
            target.set_weights([np.zeros_like(w) for w in target.get_weights()])  # no bias yet
        elif target.weights and target.name.split("_")[0] not in AUX_HEADS and "_gpool_" not in target.name:
            raise ValueError(f"{model.name}: not a zero network (no layer {target.name!r})")
    return new


# What each auxiliary head reads besides the trunk: the score head shares the value head's pooled
# features (``zero_model``), so a score head taken from a network whose value head differs must be
# fitted again.
_HEAD_INPUTS = {"ownership": (), "score": ("value_conv", "value_bn")}


def _is_trunk_layer(name: str) -> bool:
    return name.startswith("stem_") or bool(re.match(r"res\d+_", name))


def graft_heads_from(model: Any, donor: Any) -> tuple[Any, list[str]]:
    """``model`` with the ownership and score heads of ``donor``, a network with the same trunk
    bit for bit (the heads read the trunk's features: on another trunk they would read features
    they never learned). Returns the new network and the heads whose inputs still differ from the
    donor's (the score head where the value heads differ): those heads need fitting again.
    ValueError when ``donor`` lacks a head or the trunks differ, naming the first layer."""
    has = model_has_heads(donor)
    if not all(has.values()):
        raise ValueError(f"{donor.name}: no {' or '.join(h for h in AUX_HEADS if not has[h])} head to take")
    donor_layers = {layer.name: layer for layer in donor.layers}
    for layer in model.layers:
        if not (layer.weights and _is_trunk_layer(layer.name)):
            continue
        other = donor_layers.get(layer.name)
        if other is None or not all(
            a.shape == b.shape and np.array_equal(a, b)
            for a, b in zip(layer.get_weights(), other.get_weights(), strict=True)
        ):
            raise ValueError(f"the trunks differ (layer {layer.name!r}): the donor's heads would read other features")
    new = graft_heads(model, ownership=True, score=True)
    for target in new.layers:
        if target.weights and target.name.split("_")[0] in AUX_HEADS:
            target.set_weights(donor_layers[target.name].get_weights())
    differ = []
    for head, inputs in _HEAD_INPUTS.items():
        for name in inputs:
            mine, theirs = model.get_layer(name).get_weights(), donor_layers[name].get_weights()
            if not all(np.array_equal(a, b) for a, b in zip(mine, theirs, strict=True)):
                differ.append(head)
                break
    return new, differ


def conform_network(
    model: Any, aux_heads: bool, global_pooling: bool = False, trunk: tuple[int, int] | None = None
) -> Any:
    """``model`` as a loop config asks for it: with both auxiliary heads or none, with global
    pooling when asked (``graft_heads``), its trunk grown to at least ``trunk`` = (blocks,
    filters) (``grow_network``, same outputs); ``model`` itself when it is so already."""
    has = model_has_heads(model)
    pooled = any("_gpool_" in layer.name for layer in model.layers)
    if not (all(has[h] == aux_heads for h in AUX_HEADS) and (pooled or not global_pooling)):
        model = graft_heads(
            model, ownership=aux_heads, score=aux_heads, global_pooling=True if global_pooling else None
        )
    if trunk is not None:
        blocks, filters = trunk_size(model)
        if trunk[0] > blocks or trunk[1] > filters:
            model = grow_network(model, max(blocks, trunk[0]), max(filters, trunk[1]))
    return model
