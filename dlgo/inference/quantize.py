"""Int8 quantized ONNX models: the cached fp32 export (``dlgo.inference.onnx_cache``) quantized
once per model file, for a faster network on CPUs with int8 dot products (AVX-512 VNNI, AVX-VNNI).

Static quantization (ONNX Runtime's ``quantize_static``): weights int8 per output channel,
activations uint8 with ranges calibrated on real positions: the self-play games shipped in
``dlgo/inference/calibration/`` (``game-<N>x<N>-*.sgf``, made by the shipped networks),
encoded with the model's own encoder at the model's board size. The last quarter of each size's
games is held out for ``dlgo.inference.quantize_report``, never calibrated on.

Those games were all played at komi 7, and a calibrated range is a clip: calibrated on them, the
input's range ended at -7/15, the komi plane of Black to move at komi 7, so an int8 network saw
Black's komi 7.5 or 8 as 7 while White's moved freely. A network that reads its komi plane would
misjudge every half-point game as Black. So each calibration position is put at one of the komis
of ``CALIBRATION_KOMI`` in turn (zero encoder), and the ranges cover the komis servers play.

The int8 file lies beside the fp32 export (``x.onnx`` -> ``x.int8.onnx``, in the model's folder
or the user cache, by the same rules) and carries in its ONNX metadata the SHA-256 of the
``.keras`` file and the recipe (format and calibration data): a changed model or recipe is
quantized again, never served stale. :func:`int8_runner` is what ``BatchEvaluator(...,
runtime="int8")`` uses; it quantizes in a child process (at start-up, never on a move's time)
and returns None when it cannot, so the caller falls back to fp32. The engine's ``--prepare``
(``scripts/setup_env.sh`` runs it) makes the int8 files of a config's networks ahead, so that no
game waits for them.

    python -m dlgo.inference.quantize MODEL.keras          # make (or check) the int8 file
    python -m dlgo.inference.quantize_report MODEL.keras   # accuracy and speed against fp32, JSON
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from dlgo.encoders import get_encoder_by_name
from dlgo.inference.files import LoadedModel, ModelFileError
from dlgo.inference.komi import with_komi
from dlgo.inference.onnx_cache import DIGEST_KEY, ORDER_KEY, cache_paths, checked_runner, network_digest, onnx_runner
from dlgo.inference.runners import OnnxRunner, stamp_onnx

__all__ = [
    "FORMATS",
    "DEFAULT_FORMAT",
    "RECIPE_KEY",
    "CALIBRATION_DIR",
    "int8_paths",
    "calibration_games",
    "calibration_size",
    "CALIBRATION_KOMI",
    "encoded_positions",
    "recipe",
    "quantize_onnx",
    "quantize_model",
    "open_int8",
    "int8_runner",
    "ensure_int8",
    "quantize_in_subprocess",
]

log = logging.getLogger(__name__)

FORMATS = ("qoperator", "qdq")
# QOperator (QLinearConv, ...) ran faster than QDQ on the AVX-512 VNNI CPU it was measured on,
# at the same accuracy (see ``--report``).
DEFAULT_FORMAT = "qoperator"
RECIPE_KEY = "dlgo.int8_recipe"
CALIBRATION_DIR = Path(__file__).with_name("calibration")
CALIBRATION_POSITIONS = 256  # spread evenly over the calibration games
# Komis the positions are put at in turn: handicap games' 0.5 to 9, beyond the usual 5.5-8 both ways.
CALIBRATION_KOMI = (7.0, 0.5, 5.5, 6.5, 7.5, 8.0, 9.0)
HELD_OUT_POSITIONS = 256
_BATCH = 16


def int8_paths(model_path: str | os.PathLike, digest: str) -> list[Path]:
    """Where the int8 file of a model may be: beside each place its fp32 export may be."""
    return [p.with_name(f"{p.stem}.int8.onnx") for p in cache_paths(model_path, digest)]


def calibration_games(board_size: int) -> tuple[list[Path], list[Path]]:
    """The shipped games of one board size, split into (calibration, held out): the last
    quarter of them (at least one, when there are two or more) is held out."""
    games = sorted(CALIBRATION_DIR.glob(f"game-{board_size}x{board_size}-*.sgf"))
    held = len(games) // 4 if len(games) >= 4 else min(1, len(games) - 1)
    return games[: len(games) - held], games[len(games) - held :]


def calibration_size(loaded: LoadedModel) -> int:
    """The board size to calibrate at: the first size the model was trained for that has shipped
    games, else (a size-independent network) any shipped size, the largest first."""
    for size in loaded.card.board_sizes:
        if calibration_games(size)[0]:
            return size
    open_size = loaded.card.input_shape[0] is None
    shipped = sorted({int(p.name.split("-")[1].split("x")[0]) for p in CALIBRATION_DIR.glob("game-*.sgf")})
    if open_size and shipped:
        return shipped[-1]
    raise ModelFileError(f"{loaded.path}: no calibration games for board sizes {loaded.card.board_sizes}")


def encoded_positions(
    games: list[Path], encoder_name: str, board_size: int, limit: int, komis: tuple[float, ...] = ()
) -> np.ndarray:
    """Up to ``limit`` positions of the games (every position before a move, both players to
    move), spread evenly over them, as planes ``(n, rows, cols, planes)``; with ``komis`` (zero
    encoder), position ``i`` at komi ``komis[i % len(komis)]`` instead of its game's."""
    from dlgo.sgf import read_game

    encoder = get_encoder_by_name(encoder_name, board_size)
    states = []
    for path in games:
        game = read_game(path, log_repairs=False)
        states.extend(game.states()[:-1])
    if not states:
        raise ValueError(f"no positions in {len(games)} games of {board_size}x{board_size}")
    pick = np.unique(np.linspace(0, len(states) - 1, min(limit, len(states))).round().astype(int))
    x = encoder.encode_batch([states[i] for i in pick]).astype(np.float32)
    if komis and encoder_name == "zero":
        x = with_komi(x, np.resize(np.asarray(komis, dtype=np.float64), len(x)))
    return x


def _files_digest(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def recipe(fmt: str, board_size: int) -> str:
    """What an int8 file was made with; a file with another recipe is made again."""
    games, _ = calibration_games(board_size)
    komis = "/".join(f"{k:g}" for k in CALIBRATION_KOMI)
    calib = f"calib={board_size}x{board_size}:{_files_digest(games)[:16]}"
    return f"{fmt};w=int8-per-channel;a=uint8-minmax;{calib};komi={komis}"


def _batches(x: np.ndarray, name: str) -> Iterator[dict[str, np.ndarray]]:
    for start in range(0, len(x), _BATCH):
        yield {name: x[start : start + _BATCH]}


def quantize_onnx(
    fp32_path: str | os.PathLike,
    out_path: str | os.PathLike,
    calibration: np.ndarray,
    fmt: str = DEFAULT_FORMAT,
    extra_metadata: dict[str, str] | None = None,
) -> Path:
    """Quantize an fp32 ONNX file statically (weights int8 per channel, activations uint8,
    MinMax ranges over ``calibration`` planes) and write ``out_path`` atomically. The fp32
    file's metadata (model hash, output order) is kept, ``extra_metadata`` added."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if fmt not in FORMATS:
        raise ValueError(f"unknown int8 format {fmt!r}; known: {', '.join(FORMATS)}")
    fp32_path, out_path = Path(fp32_path), Path(out_path)
    source = onnx.load(str(fp32_path), load_external_data=False)
    metadata = {p.key: p.value for p in source.metadata_props}
    input_name = source.graph.input[0].name

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self._it = _batches(calibration, input_name)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self._it, None)

    # Work files beside the target: the finished file then replaces it atomically.
    with tempfile.TemporaryDirectory(prefix=f".{out_path.stem}-", dir=out_path.parent) as tmp:
        pre = Path(tmp) / "pre.onnx"
        # Fold and infer shapes first (ORT's advice); no symbolic shapes: that needs sympy.
        quant_pre_process(str(fp32_path), str(pre), skip_symbolic_shape=True)
        quantized = Path(tmp) / "int8.onnx"
        quantize_static(
            str(pre),
            str(quantized),
            Reader(),
            quant_format=QuantFormat.QOperator if fmt == "qoperator" else QuantFormat.QDQ,
            per_channel=True,
            weight_type=QuantType.QInt8,
            activation_type=QuantType.QUInt8,
        )
        stamp_onnx(quantized, {**metadata, **(extra_metadata or {})})
        os.replace(quantized, out_path)
    return out_path


def quantize_model(loaded: LoadedModel, fmt: str = DEFAULT_FORMAT, out_path: str | os.PathLike | None = None) -> Path:
    """Make the int8 file of a model file from its cached fp32 export (made first if missing):
    at ``out_path``, else beside the fp32 export, stamped with the recipe."""
    fp32 = onnx_runner(loaded)
    if fp32 is None or not fp32.path.is_file() or fp32.metadata.get(DIGEST_KEY) != network_digest(loaded.path):
        raise ModelFileError(f"{loaded.path}: no cached ONNX export to quantize")
    size = calibration_size(loaded)
    games, _ = calibration_games(size)
    x = encoded_positions(games, loaded.card.encoder, size, CALIBRATION_POSITIONS, CALIBRATION_KOMI)
    target = Path(out_path) if out_path is not None else fp32.path.with_name(f"{fp32.path.stem}.int8.onnx")
    stamped = {RECIPE_KEY: recipe(fmt, size), ORDER_KEY: ",".join(map(str, fp32.order))}
    quantize_onnx(fp32.path, target, x, fmt, stamped)
    log.info("quantized %s to %s (%s, %d calibration positions)", loaded.path, target, fmt, len(x))
    return target


def open_int8(loaded: LoadedModel, threads: int | None = None, fmt: str = DEFAULT_FORMAT) -> OnnxRunner | None:
    """An ONNX Runtime runner on the cached int8 file of ``loaded``'s model file, or None when
    there is none for this model content and recipe; imports no Keras."""
    if loaded.path is None:
        return None
    try:
        digest = network_digest(loaded.path)
        wanted = recipe(fmt, calibration_size(loaded))
    except (OSError, ModelFileError):
        return None
    for path in int8_paths(loaded.path, digest):
        if not path.is_file():
            continue
        try:
            runner = OnnxRunner.from_file(path, None, threads)
            meta = runner.metadata
            if meta.get(DIGEST_KEY) != digest or meta.get(RECIPE_KEY) != wanted:
                continue
            runner.reorder([int(j) for j in meta[ORDER_KEY].split(",")])
            runner.name = "onnxruntime-int8"
            return checked_runner(runner, loaded)
        except ModelFileError:
            raise
        except Exception as e:  # a damaged or foreign file: quantize again
            log.info("ignoring the int8 file %s: %s", path, e)
    return None


def ensure_int8(loaded: LoadedModel, fmt: str = DEFAULT_FORMAT) -> Path:
    """The int8 file of a model file, made here (in this process) unless a matching one is cached."""
    runner = open_int8(loaded, fmt=fmt)
    if runner is None:
        quantize_model(loaded, fmt)
        runner = open_int8(loaded, fmt=fmt)
    if runner is None:
        raise ModelFileError(f"{loaded.path}: the int8 file does not open")
    return runner.path


def quantize_in_subprocess(path: str | os.PathLike, fmt: str = DEFAULT_FORMAT, timeout: float = 600.0) -> str | None:
    """Make the cached int8 file of a model file in a child process (``python -m
    dlgo.inference.quantize FILE``): its memory and its threads never touch this process. None
    when it worked, else why not (one line)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    command = [sys.executable, "-m", "dlgo.inference.quantize", str(path), "--format", fmt]
    try:
        proc = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"the child process: {e}"
    if proc.returncode != 0:
        return ((proc.stderr or "").strip().splitlines()[-1:] or [f"exit status {proc.returncode}"])[0]
    return None


def int8_runner(loaded: LoadedModel, threads: int | None = None, fmt: str = DEFAULT_FORMAT) -> OnnxRunner | None:
    """A runner on the int8 model of a model file: the cached int8 file, else one made now (the
    fp32 export here, by ``onnx_runner``'s rules; the quantization in a child process). None,
    with one logged warning, when it cannot be had: the caller runs fp32."""
    try:
        runner = open_int8(loaded, threads, fmt)
        if runner is not None:
            return runner
        if loaded.path is None:
            log.warning("int8 needs a model file; running fp32")
            return None
        if onnx_runner(loaded, threads) is None:  # the fp32 export the child quantizes
            log.warning("%s: no ONNX export to quantize; running fp32", loaded.path)
            return None
        log.info("%s: no int8 file for this model yet; quantizing it", loaded.path)
        why = quantize_in_subprocess(loaded.path, fmt)
        runner = open_int8(loaded, threads, fmt) if why is None else None
        if runner is None:
            log.warning("%s: int8 quantization failed (%s); running fp32", loaded.path, why or "no usable int8 file")
        return runner
    except ModelFileError:
        raise
    except Exception as e:  # no quantization tools, an unsupported op, a full disk
        log.warning("%s: int8 quantization failed (%s); running fp32", loaded.path, e)
        return None


def main(argv: list[str] | None = None) -> int:
    """``python -m dlgo.inference.quantize MODEL.keras [--format F]``."""
    from dlgo.inference.files import load_model

    parser = argparse.ArgumentParser(prog="python -m dlgo.inference.quantize", description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", metavar="MODEL.keras")
    parser.add_argument("--format", choices=FORMATS, default=DEFAULT_FORMAT)
    args = parser.parse_args(argv)
    status = 0
    for name in args.models:
        try:
            print(ensure_int8(load_model(name, lazy=True), args.format))
        except Exception as e:
            print(f"quantize: {name}: {e}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
