"""What each optional part of the package needs, and one clear line when it is not installed.

Playing needs only the runtime (numpy, numba, onnxruntime, sgfmill); training, exporting and
quantizing networks need the ``train`` extra (Keras, TensorFlow, tf2onnx, onnx, h5py), the
browser page the ``web`` extra (Flask). A command of an extra that is not installed stops at once
with the ``pip install`` line that fixes it (exit status 2), instead of an ``ImportError``
traceback from deep inside.

Training runs on whichever backend Keras is told (``KERAS_BACKEND``): TensorFlow by default, JAX
or PyTorch on GPU machines whose images have no TensorFlow (``scripts/gpu_train.sh``,
``scripts/gpu_lease.sh``), so the ``train`` extra asks for the chosen backend's module, not
TensorFlow's.
"""

from __future__ import annotations

import importlib.util
import os
import sys

__all__ = ["EXTRAS", "keras_backend_module", "missing_modules", "require_extra"]

# The modules each extra brings that its commands import (setup.cfg's extras_require lists the
# distributions). "tensorflow" in "train" stands for Keras' backend (keras_backend_module).
EXTRAS: dict[str, tuple[str, ...]] = {
    "train": ("keras", "tensorflow", "h5py"),
    "export": ("keras", "tensorflow", "onnx", "tf2onnx"),
    "web": ("flask",),
}
# An extra's modules that come with another extra's install.
_INSTALLED_BY = {"export": "train"}
# Keras 3's backends and the module each needs (keras.config.backend's names).
_BACKEND_MODULES = {name: name for name in ("tensorflow", "jax", "torch", "numpy", "openvino")}


def keras_backend_module() -> str:
    """The module Keras' backend needs, as ``KERAS_BACKEND`` chooses it (TensorFlow when unset)."""
    backend = os.environ.get("KERAS_BACKEND", "tensorflow").strip().lower() or "tensorflow"
    return _BACKEND_MODULES.get(backend, "tensorflow")


def missing_modules(extra: str) -> list[str]:
    names = EXTRAS[extra]
    if extra == "train":  # trains on any backend; exporting (tf2onnx) needs TensorFlow itself
        names = tuple(keras_backend_module() if name == "tensorflow" else name for name in names)
    return [name for name in names if importlib.util.find_spec(name) is None]


def require_extra(extra: str, command: str) -> None:
    """Exit with one line on stderr (status 2) when ``extra``'s modules are not installed."""
    missing = missing_modules(extra)
    if missing:
        package = _INSTALLED_BY.get(extra, extra)
        print(
            f"{command}: needs the '{package}' extra ({', '.join(missing)} not installed): "
            f"pip install 'dlgo-engine[{package}]' (in a checkout: scripts/setup_env.sh {package})",
            file=sys.stderr,
        )
        raise SystemExit(2)
