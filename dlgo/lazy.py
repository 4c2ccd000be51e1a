"""Package names that load their module on first use (PEP 562 ``__getattr__``).

Importing a package should cost nothing heavy: Keras, TensorFlow and the numba kernels load
when a name that needs them is first used. A package lists where each name lives:

    __getattr__ = lazy_names(__name__, {"PolicyAgent": ".policy", "QAgent": ".qlearning"})
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``homes`` maps a name to its module (relative with a
    leading dot); a loaded name is kept in the package, so it is looked up once."""

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name], package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
