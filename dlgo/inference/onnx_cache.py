"""ONNX exports of model files, cached so that playing needs no Keras and no TensorFlow.

Exporting a ``.keras`` model to ONNX means importing TensorFlow and tracing the model: several
seconds. It is done once per model file and kept:

- beside the model (``x.keras`` -> ``x.onnx``) when that folder is writable,
- else in the user cache, ``$XDG_CACHE_HOME/dlgo/onnx/`` (default ``~/.cache/dlgo/onnx/``) as
  ``x-<hash>.onnx``, so a read-only tree (a shared checkout, an installed package) works too.

Each export carries, in its ONNX metadata, the SHA-256 of the ``.keras`` file it came from
(``dlgo.model_sha256``) and which ONNX output gives each Keras output (``dlgo.output_order``,
checked against Keras at export time). :func:`open_cached` finds a matching export by content,
so an edited or replaced model is never served by a stale export, and opens it with ONNX
Runtime alone. :func:`onnx_runner` is what ``BatchEvaluator`` uses: the cached export, else a
new one (written to the cache; made in a child process unless the Keras model is loaded
already), else None (the caller compiles the Keras model instead).

``python -m dlgo.inference.onnx_cache MODEL.keras ...`` makes the exports ahead of time.
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import sys
from pathlib import Path

from dlgo.inference.files import LoadedModel, ModelFileError, check_model, is_onnx_network
from dlgo.inference.onnx_meta import OnnxFormatError, read_metadata
from dlgo.inference.runners import OnnxRunner, export_onnx, stamp_onnx

__all__ = [
    "DIGEST_KEY",
    "ORDER_KEY",
    "model_digest",
    "network_digest",
    "user_cache_dir",
    "cache_paths",
    "open_cached",
    "checked_runner",
    "onnx_runner",
    "export_in_subprocess",
]

log = logging.getLogger(__name__)

DIGEST_KEY = "dlgo.model_sha256"
ORDER_KEY = "dlgo.output_order"

_digests: dict[tuple[str, int, int], str] = {}


def model_digest(path: str | os.PathLike) -> str:
    """SHA-256 of the file's bytes (hex), remembered per (path, size, mtime)."""
    path = Path(path)
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    digest = _digests.get(key)
    if digest is None:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        digest = _digests[key] = h.hexdigest()
    return digest


def network_digest(path: str | os.PathLike) -> str:
    """What identifies a network's content, which its exports and int8 files carry: the SHA-256
    of its ``.keras`` file; for a network given as its ONNX export, the digest of the ``.keras``
    file it was exported from (its metadata), else of the export itself."""
    if is_onnx_network(path):
        try:
            digest = read_metadata(path).get(DIGEST_KEY)
        except OnnxFormatError as e:
            raise ModelFileError(f"{path}: not a usable ONNX file ({e})") from None
        if digest:
            return digest
    return model_digest(path)


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/dlgo`` (default ``~/.cache/dlgo``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dlgo"


def cache_paths(model_path: str | os.PathLike, digest: str) -> list[Path]:
    """Where an export of this model may be, in the order they are tried: beside it, then the
    user cache."""
    model_path = Path(model_path)
    return [model_path.with_suffix(".onnx"), user_cache_dir() / "onnx" / f"{model_path.stem}-{digest[:16]}.onnx"]


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def _order(text: str | None) -> list[int] | None:
    try:
        return [int(x) for x in (text or "").split(",")] if text else None
    except ValueError:
        return None


def checked_runner(runner: OnnxRunner, loaded: LoadedModel) -> OnnxRunner:
    """The runner, after checking what the export takes and gives against the model card."""
    if len(runner.order) != len(loaded.card.heads):
        raise ModelFileError(f"{runner.path}: {len(runner.order)} outputs, the card has {len(loaded.card.heads)} heads")
    assert loaded.path is not None
    check_model(loaded.path, loaded.card, runner.input_shape, runner.output_sizes)
    return runner


def open_cached(loaded: LoadedModel, threads: int | None = None) -> OnnxRunner | None:
    """An ONNX Runtime runner on a cached export of ``loaded``'s file, or None; imports no Keras."""
    if loaded.path is None:
        return None
    if is_onnx_network(loaded.path):
        return _open_network_export(loaded, threads)
    try:
        digest = model_digest(loaded.path)
    except OSError:
        return None
    for path in cache_paths(loaded.path, digest):
        if not path.is_file():
            continue
        try:
            runner = OnnxRunner.from_file(path, None, threads)
            meta = runner.metadata
            order = _order(meta.get(ORDER_KEY))
            if meta.get(DIGEST_KEY) != digest or order is None:
                continue
            runner.reorder(order)
            return checked_runner(runner, loaded)
        except ModelFileError:
            raise
        except Exception as e:  # a damaged or foreign file: export again
            log.info("ignoring the ONNX file %s: %s", path, e)
    return None


def _open_network_export(loaded: LoadedModel, threads: int | None) -> OnnxRunner:
    """A network given as its ONNX export: that file and nothing else (there is no Keras model
    to export again from); ``ModelFileError`` naming it when it does not open or fit its card."""
    assert loaded.path is not None
    try:
        runner = OnnxRunner.from_file(loaded.path, None, threads)
        order = _order(runner.metadata.get(ORDER_KEY))
        if order is not None:
            runner.reorder(order)
    except Exception as e:  # ONNX Runtime raises its own types for a damaged file
        raise ModelFileError(f"{loaded.path}: not a usable ONNX network: {e}") from None
    return checked_runner(runner, loaded)


def _export_target(model_path: Path, digest: str) -> Path | None:
    for path in cache_paths(model_path, digest):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if _writable(path.parent) and (not path.exists() or os.access(path, os.W_OK)):
            return path
    return None


def export_in_subprocess(path: str | os.PathLike, timeout: float = 600.0) -> bool:
    """Make the cached export of a model file in a child process (``python -m
    dlgo.inference.onnx_cache FILE``): TensorFlow never loads here, and a thread waiting for it holds
    no lock other threads need (importing TensorFlow in-process stalls every thread for seconds
    on a busy machine). True when it worked."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "dlgo.inference.onnx_cache", str(path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        log.info("exporting %s in a child process failed: %s", path, e)
        return False
    if proc.returncode != 0:
        tail = (proc.stderr or "").strip().splitlines()[-1:] or ["no message"]
        log.info("exporting %s in a child process failed: %s", path, tail[0])
        return False
    return True


def onnx_runner(loaded: LoadedModel, threads: int | None = None) -> OnnxRunner | None:
    """A runner for a model file: a cached export (no Keras), else a new export kept in the
    cache, else None when ONNX Runtime cannot serve it. The export needs Keras and TensorFlow:
    unless this process has imported them already it is made in a child process, so this
    process still imports neither."""
    runner = open_cached(loaded, threads)
    if runner is not None or loaded.path is None or is_onnx_network(loaded.path):
        return runner
    # A child process unless TensorFlow is here already (then exporting here costs less).
    if not loaded.model_loaded and "keras" not in sys.modules and export_in_subprocess(loaded.path):
        runner = open_cached(loaded, threads)
        if runner is not None:
            return runner
    path = loaded.path
    try:
        digest = model_digest(path)
        meta = {DIGEST_KEY: digest}
        legacy = path.with_suffix(".onnx")  # an unstamped export (dlgo.zero.loop writes them)
        if legacy.is_file() and legacy.stat().st_mtime >= path.stat().st_mtime and os.access(legacy, os.W_OK):
            runner = OnnxRunner(loaded.model, legacy, threads)  # checks it against Keras
            stamp_onnx(legacy, {**meta, ORDER_KEY: ",".join(map(str, runner.order))})
            return runner
        target = _export_target(path, digest)
        if target is None:
            log.info("no writable place for the ONNX export of %s: exporting to a temporary file", path)
            return OnnxRunner(loaded.model, None, threads)
        tmp = target.with_name(f"{target.stem}.{os.getpid()}.new.onnx")
        try:
            export_onnx(loaded.model, tmp, meta)
            runner = OnnxRunner(loaded.model, tmp, threads)  # checks the export against Keras
            stamp_onnx(tmp, {ORDER_KEY: ",".join(map(str, runner.order))})
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        runner.path = target
        log.info("exported %s to %s", path, target)
        return runner
    except ModelFileError:
        raise
    except Exception as e:  # no onnxruntime or tf2onnx, an unsupported op, a failed check
        log.info("ONNX Runtime unavailable for %s (%s)", path, e)
        return None


def main(argv: list[str] | None = None) -> int:
    """``python -m dlgo.inference.onnx_cache MODEL.keras ...``: make (or check) the cached export of each."""
    from dlgo.inference.files import load_model

    status = 0
    for name in sys.argv[1:] if argv is None else argv:
        try:
            runner = onnx_runner(load_model(name))
        except ModelFileError as e:
            print(f"onnx_cache: {e}", file=sys.stderr)
            status = 2
            continue
        if runner is None:
            print(f"onnx_cache: {name}: ONNX Runtime cannot serve this model", file=sys.stderr)
            status = 1
        else:
            print(runner.path)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
