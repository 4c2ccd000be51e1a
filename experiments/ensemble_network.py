"""One network file that averages two Zero networks' policy and value: their errors are not the
same errors, so does a search on the average make fewer? (At equal visits a little; at equal time
it loses, since every leaf costs both networks: docs/strength.md, "2026-12-07 (evening)".)

    python experiments/ensemble_network.py weights/zero-9x9-10x128.keras weights/zero-13x13.keras \
        --size 9 --weight 0.5 --out runs/ens/ens50.keras
    python -m dlgo.inference.quantize runs/ens/ens50.keras

The file plays wherever a network does (``--engine-set size.9.zero.model=...``): it has the zero
encoder's input and the ``policy`` and ``value`` heads, ``(1 - weight)`` of the first network's
answers plus ``weight`` of the second's.
"""

from __future__ import annotations

import argparse


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("first", help="a Zero network (.keras with its card)")
    p.add_argument("second", help="another, with the same encoder")
    p.add_argument("--size", type=int, required=True, help="the board size both play")
    p.add_argument("--weight", type=float, default=0.5, help="the second network's share")
    p.add_argument("--out", required=True, help="the averaged network (.keras; its card beside it)")
    args = p.parse_args()

    import keras

    from dlgo.inference.files import load_model, save_model

    models = [load_model(path, board_size=args.size).model for path in (args.first, args.second)]
    for model, tag in zip(models, ("first_", "second_"), strict=True):
        model.name = tag + model.name  # two copies of one architecture need distinct layer names
        for layer in model.layers:
            layer.name = tag + layer.name
    board = keras.Input(shape=(args.size, args.size, models[0].input_shape[-1]), name="board")
    answers = [model(board) for model in models]
    shares = (1.0 - args.weight, args.weight)

    def mixed(head: int, name: str):
        parts = [keras.layers.Rescaling(share)(answer[head]) for share, answer in zip(shares, answers, strict=True)]
        return keras.layers.Add(name=name)(parts)

    model = keras.Model(board, [mixed(0, "policy"), mixed(1, "value")], name="ensemble")
    notes = f"{shares[0]:g} x {args.first} + {shares[1]:g} x {args.second}: experiments/ensemble_network.py"
    save_model(model, args.out, "zero", [args.size], notes=notes)
    print(args.out)


if __name__ == "__main__":
    main()
