"""Match statistics: Wilson score interval, Elo difference, exact binomial test against 50%.

A drawn game (jigo) counts half a win in the win rate and the Elo estimate, and is left out of
the binomial test (which asks whether decisive games split evenly).
"""

from __future__ import annotations

import math

__all__ = ["Z95", "wilson_interval", "elo_from_rate", "elo_interval", "binomial_p_value"]

Z95 = 1.959963984540054  # two-sided 95% quantile of the standard normal


def wilson_interval(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``score / n`` (``score`` may be fractional).

    ``n == 0`` gives the uninformative ``(0.0, 1.0)``.
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= score <= n:
        raise ValueError(f"score {score} outside 0..{n}")
    p = score / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo_from_rate(rate: float) -> float:
    """Elo difference that makes ``rate`` the expected score: ``400 log10(p / (1 - p))``.

    0 and 1 give minus and plus infinity.
    """
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate {rate} outside [0, 1]")
    if rate == 0.0:
        return -math.inf
    if rate == 1.0:
        return math.inf
    return 400.0 * math.log10(rate / (1.0 - rate))


def elo_interval(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson interval of the score rate mapped to Elo differences."""
    lo, hi = wilson_interval(score, n, z)
    return (elo_from_rate(lo), elo_from_rate(hi))


def binomial_p_value(wins: int, n: int) -> float:
    """Exact two-sided binomial test of ``wins`` out of ``n`` against p = 0.5.

    The probability, under a fair coin, of a split at least as uneven as the one seen.
    ``n == 0`` gives 1.0.
    """
    if n <= 0:
        return 1.0
    if not 0 <= wins <= n:
        raise ValueError(f"wins {wins} outside 0..{n}")
    tail = min(wins, n - wins)
    # Integer arithmetic until the one division: exact for any n.
    count = sum(math.comb(n, k) for k in range(tail + 1))
    return min(1.0, 2 * count / 2**n)
