"""Does an int8 file read the komi as its fp32 export does? For each model file, its committed
``NAME.int8.onnx`` against the fp32 export on the calibration games' held-out positions: the
agreement at the games' komi (7), the value difference with the positions put at the calibration
komis in turn, and Black's mean value at komi 6.5, 7, 7.5 and 8 (a column that stops moving in the
int8 file is a clipped komi plane).

    python experiments/int8_komi_check.py weights/zero-9x9-10x128.keras weights/zero-13x13.keras > out.json
"""

from __future__ import annotations

import argparse
import json


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("models", nargs="+", metavar="MODEL.keras")
    p.add_argument("--positions", type=int, default=256)
    args = p.parse_args()

    import dlgo.networks  # noqa: F401  (custom objects)
    from dlgo.inference import load_model
    from dlgo.inference.onnx_cache import onnx_runner
    from dlgo.inference.quantize import CALIBRATION_KOMI, calibration_games, calibration_size, encoded_positions
    from dlgo.inference.quantize_report import agreement, komi_response
    from dlgo.inference.runners import OnnxRunner

    found = {}
    for path in args.models:
        loaded = load_model(path, lazy=True)
        fp32 = onnx_runner(loaded)
        int8 = OnnxRunner.from_file(path.removesuffix(".keras") + ".int8.onnx", fp32.order, 2)
        size = calibration_size(loaded)
        _, held_out = calibration_games(size)
        heads = list(loaded.card.heads)
        x = encoded_positions(held_out, "zero", size, args.positions)
        spread = encoded_positions(held_out, "zero", size, args.positions, CALIBRATION_KOMI)
        found[path] = {
            "at_komi_7": agreement(fp32(x), int8(x), heads),
            "at_calibration_komis": agreement(fp32(spread), int8(spread), heads),
            "black_value_by_komi": {"fp32": komi_response(fp32, x, heads), "int8": komi_response(int8, x, heads)},
        }
    print(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
