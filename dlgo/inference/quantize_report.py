"""How the int8 model of a model file compares with fp32: accuracy on held-out positions and
speed, for every int8 format (``dlgo.inference.quantize`` makes the int8 files).

    python -m dlgo.inference.quantize_report MODEL.keras [--seconds S]   # one JSON report per model

Accuracy is measured on the shipped games held out from calibration (``calibration_games``):
top-1 policy agreement and value differences. Speed is positions per second of the network
call alone at batch 16, with one thread and with all of them; fp32 and int8 are timed in
alternating rounds (best round kept), so a machine loaded by other work slows both alike and the
ratio holds even when the absolute figures do not.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.inference.files import LoadedModel, ModelFileError
from dlgo.inference.komi import BLACK_TO_MOVE_PLANE, with_komi
from dlgo.inference.onnx_cache import onnx_runner
from dlgo.inference.quantize import (
    DEFAULT_FORMAT,
    FORMATS,
    HELD_OUT_POSITIONS,
    calibration_games,
    calibration_size,
    encoded_positions,
    quantize_model,
)
from dlgo.inference.runners import OnnxRunner

__all__ = ["accuracy_report", "agreement", "komi_response", "cpu_flags", "positions_per_second", "main"]

BATCH = 16
_FLAGS_OF_INTEREST = ("avx2", "fma", "avx512", "vnni", "amx", "bf16", "f16c", "fp16")


def cpu_flags() -> dict[str, Any]:
    """The CPU's model name and the flags that decide int8/bf16 speed (from /proc/cpuinfo)."""
    model, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
                break
    except OSError:
        pass
    kept = sorted(f for f in flags if any(k in f for k in _FLAGS_OF_INTEREST))
    return {"model": model, "cores": os.cpu_count(), "flags": kept, "amx_bf16": "amx_bf16" in flags}


def _run_all(runner: OnnxRunner, x: np.ndarray) -> list[np.ndarray]:
    outs = [runner(x[i : i + BATCH]) for i in range(0, len(x), BATCH)]
    return [np.concatenate([o[j] for o in outs]) for j in range(len(outs[0]))]


def agreement(reference: list[np.ndarray], other: list[np.ndarray], heads: list[str]) -> dict[str, float]:
    """Top-1 policy agreement and value differences of ``other`` against ``reference``."""
    found: dict[str, float] = {}
    by_head = dict(zip(heads, zip(reference, other)))
    if "policy" in by_head:
        ref, got = by_head["policy"]
        found["top1_agreement"] = round(float(np.mean(ref.argmax(1) == got.argmax(1))), 4)
        top3 = np.argsort(-ref, axis=1)[:, :3]
        found["top1_in_fp32_top3"] = round(float(np.mean((top3 == got.argmax(1)[:, None]).any(1))), 4)
        found["policy_max_abs_diff"] = round(float(np.abs(ref - got).max()), 4)
    if "value" in by_head:
        ref, got = (v.reshape(-1) for v in by_head["value"])
        diff = np.abs(ref.astype(np.float64) - got)
        found["value_mean_abs_diff"] = round(float(diff.mean()), 4)
        found["value_max_abs_diff"] = round(float(diff.max()), 4)
    return found


def komi_response(runner: OnnxRunner, x: np.ndarray, heads: list[str], komis=(6.5, 7.0, 7.5, 8.0)) -> dict:
    """The mean value of the positions of ``x`` with Black to move at each komi of ``komis``:
    where an int8 file's column stops moving and the fp32 export's does not, its calibrated range
    clips the komi plane."""
    black = x[x[:, 0, 0, BLACK_TO_MOVE_PLANE] > 0.5]
    value = heads.index("value")
    return {f"{k:g}": round(float(np.mean(runner(with_komi(black, k))[value])), 4) for k in komis}


def positions_per_second(runners: dict[str, OnnxRunner], x: np.ndarray, seconds: float, rounds: int = 3) -> dict:
    """Positions per second of each runner at batch 16 on planes ``x``: ``rounds`` alternating
    rounds of about ``seconds / rounds`` each, the best round kept."""
    batch = x[:BATCH]
    best = dict.fromkeys(runners, 0.0)
    for _ in range(rounds):
        for name, runner in runners.items():
            runner(batch)  # warm
            calls, start = 0, time.perf_counter()
            while (elapsed := time.perf_counter() - start) < seconds / rounds or calls < 3:
                runner(batch)
                calls += 1
            best[name] = max(best[name], calls * len(batch) / elapsed)
    return {name: round(value, 1) for name, value in best.items()}


def accuracy_report(loaded: LoadedModel, seconds: float = 2.0) -> dict[str, Any]:
    """Accuracy on held-out positions and speed of every int8 format against fp32."""
    fp32 = onnx_runner(loaded)
    if fp32 is None:
        raise ModelFileError(f"{loaded.path}: ONNX Runtime cannot serve this model")
    size = calibration_size(loaded)
    _, held_out = calibration_games(size)
    if not held_out:
        raise ModelFileError(f"{loaded.path}: no held-out games of {size}x{size} to measure on")
    x = encoded_positions(held_out, loaded.card.encoder, size, HELD_OUT_POSITIONS)
    threads = {"1_thread": 1, f"{os.cpu_count()}_threads": os.cpu_count() or 1}
    heads = list(loaded.card.heads)
    reference = _run_all(fp32, x)
    report: dict[str, Any] = {
        "model": str(loaded.path),
        "board_size": size,
        "held_out_positions": len(x),
        "held_out_games": [p.name for p in held_out],
        "batch": BATCH,
        "default_format": DEFAULT_FORMAT,
        "accuracy": {},
        "bf16": "not tried: the CPU has no AMX-BF16" if not cpu_flags()["amx_bf16"] else "not tried",
        "cpu": cpu_flags(),
    }
    with tempfile.TemporaryDirectory(prefix="dlgo-int8-report-") as tmp:
        paths = {fmt: quantize_model(loaded, fmt, Path(tmp) / f"{fmt}.onnx") for fmt in FORMATS}
        for fmt, path in paths.items():
            report["accuracy"][fmt] = agreement(reference, _run_all(_open(path, fp32, 1), x), heads)
        if loaded.card.encoder == "zero" and "value" in heads:
            report["black_value_by_komi"] = {"fp32": komi_response(fp32, x, heads)}
            for fmt, path in paths.items():
                report["black_value_by_komi"][f"int8_{fmt}"] = komi_response(_open(path, fp32, 1), x, heads)
        for label, n in threads.items():
            runners = {"fp32": _open(fp32.path, fp32, n)}
            runners.update({f"int8_{fmt}": _open(path, fp32, n) for fmt, path in paths.items()})
            speed: dict[str, Any] = positions_per_second(runners, x, seconds)
            speed.update({f"{name}_over_fp32": round(speed[name] / speed["fp32"], 2) for name in list(speed)[1:]})
            report[f"positions_per_second_{label}"] = speed
    return report


def _open(path: Path, like: OnnxRunner, threads: int) -> OnnxRunner:
    return OnnxRunner.from_file(path, like.order, threads)


def main(argv: list[str] | None = None) -> int:
    """``python -m dlgo.inference.quantize_report MODEL.keras [--seconds S]``."""
    from dlgo.inference.files import load_model

    parser = argparse.ArgumentParser(
        prog="python -m dlgo.inference.quantize_report", description=__doc__.splitlines()[0]
    )
    parser.add_argument("models", nargs="+", metavar="MODEL.keras")
    parser.add_argument("--seconds", type=float, default=2.0, help="timing per runner and thread count")
    args = parser.parse_args(argv)
    status = 0
    for name in args.models:
        try:
            print(json.dumps(accuracy_report(load_model(name, lazy=True), seconds=args.seconds), indent=2))
        except Exception as e:
            print(f"quantize_report: {name}: {e}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
