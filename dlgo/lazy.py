"""Package names that load their module on first use (PEP 562 ``__getattr__``).

Importing a package should cost nothing heavy: Keras, TensorFlow and the numba kernels load
when a name that needs them is first used. A package lists where each name lives:

    __getattr__ = lazy_names(__name__, {"PolicyAgent": ".policy", "QAgent": ".qlearning"})
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Mapping
from typing import Any

__all__ = ["LazyNames", "lazy_names"]


class LazyNames:
    """A package's ``__getattr__``: ``homes`` maps each lazy name to the absolute name of the
    module it lives in (``tests/test_architecture.py`` reads them as import arrows)."""

    def __init__(self, package: str, homes: Mapping[str, str]) -> None:
        self.package = package
        self.homes = {name: importlib.util.resolve_name(home, package) for name, home in homes.items()}

    def __call__(self, name: str) -> Any:
        if name not in self.homes:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(self.homes[name]), name)
        setattr(sys.modules[self.package], name, value)  # a loaded name is looked up once
        return value


def lazy_names(package: str, homes: Mapping[str, str]) -> LazyNames:
    """The ``__getattr__`` of ``package``: ``homes`` maps a name to its module (relative with a
    leading dot); a loaded name is kept in the package, so it is looked up once."""
    return LazyNames(package, homes)
