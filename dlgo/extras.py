"""What each optional part of the package needs, and one clear line when it is not installed.

Playing needs only the runtime (numpy, numba, onnxruntime, sgfmill); training, exporting and
quantizing networks need the ``train`` extra (Keras, TensorFlow, tf2onnx, onnx, h5py), the
browser page the ``web`` extra (Flask). A command of an extra that is not installed stops at once
with the ``pip install`` line that fixes it (exit status 2), instead of an ``ImportError``
traceback from deep inside.
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["EXTRAS", "missing_modules", "require_extra"]

# The modules each extra brings that its commands import (setup.cfg's extras_require lists the
# distributions).
EXTRAS: dict[str, tuple[str, ...]] = {
    "train": ("keras", "tensorflow", "h5py"),
    "export": ("keras", "tensorflow", "onnx", "tf2onnx"),
    "web": ("flask",),
}
# An extra's modules that come with another extra's install.
_INSTALLED_BY = {"export": "train"}


def missing_modules(extra: str) -> list[str]:
    return [name for name in EXTRAS[extra] if importlib.util.find_spec(name) is None]


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
