"""The engine's heap on glibc, kept from growing over days of games.

A bot plays game after game in one process. With glibc's defaults its resident memory kept
rising: 369 MB after game 10 of a soak, 420-500 MB from game 45 on (``python -m dlgo.bench.soak``,
docs/ogs.md), while the Python objects it holds stayed flat (tracemalloc over 30 games: +7 MB).
The growth is the allocator's: each thread that meets a locked arena gets a new one (up to 8 per
core), and after a large block is freed glibc raises its mmap threshold, so the search's large
arrays (a fresh tree arena each new root) come from the heap and leave it fragmented. So:

- :func:`tune_malloc` (at start-up, before any thread): at most two arenas, and a fixed mmap
  threshold of 256 KiB, so large arrays are mapped and given back whole when freed;
- :func:`trim_heap` (at every new game): the free pages at the heap's top given back
  (``malloc_trim``), so what a finished game used is not carried into the next.

Both do nothing where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util

__all__ = ["tune_malloc", "trim_heap"]

_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameters
_M_ARENA_MAX = -8
MMAP_THRESHOLD = 256 * 1024
ARENAS = 2

_libc: ctypes.CDLL | None | bool = False  # False: not looked up yet; None: not glibc


def _glibc() -> ctypes.CDLL | None:
    global _libc
    if _libc is False:
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _libc = libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
        except OSError:
            _libc = None
    return _libc or None


def tune_malloc() -> bool:
    """Fewer arenas and a fixed mmap threshold; True when glibc took them."""
    libc = _glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(_M_ARENA_MAX, ARENAS)) and bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def trim_heap() -> None:
    """Give the heap's free pages back to the system."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
