"""Gumbel root search with sequential halving (Danihelka et al., "Policy improvement by planning
with Gumbel", ICLR 2022), on the compiled tree of ``dlgo.search.compiled``.

    outcome = gumbel_search(tree, state, visits=64, rng=rng)
    outcome.move            # the move to play: the best of the last halving round
    outcome.policy_target   # the improved policy, softmax(logits + sigma(completed Q))

At the root, ``considered`` moves are drawn without replacement by the Gumbel-top-k trick on the
network's policy, and the visit budget is spent on them in rounds of sequential halving: each
round gives every remaining move the same number of visits, then keeps the better half by
``g + logits + sigma(q)``. Below the root the tree searches by PUCT as always
(``arena.collect``'s ``root_quota`` steers only the root). The policy target is the improved
policy over every legal move, with the unvisited moves' Q completed by the value mix, so it
improves on the network's policy even with few visits, where visit counts are mostly noise:
the case of self-play on a CPU budget. Gumbel noise replaces the Dirichlet noise at the root.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from dlgo.goboard import GameState, Move

if TYPE_CHECKING:
    from dlgo.search.compiled import CompiledPUCTSearch
    from dlgo.search.puct import SearchStatistics

__all__ = [
    "GumbelOutcome",
    "gumbel_search",
    "halving_schedule",
    "fitted_considered",
    "completed_q",
    "sigma",
    "improved_policy",
]

# The paper's (and DeepMind's mctx's) constants of the monotone transform sigma.
C_VISIT = 50.0
C_SCALE = 0.1


@dataclass
class GumbelOutcome:
    move: Move
    policy_target: np.ndarray  # over the move indices (N*N + 1, pass last), sums to 1
    statistics: SearchStatistics


def halving_schedule(visits: int, considered: int) -> list[tuple[int, int]]:
    """Rounds of sequential halving as (moves still in, visits for each): about ``visits`` in
    all, the same share per round, the last round taking what is left."""
    if visits < 1 or considered < 1:
        raise ValueError("visits and considered must be at least 1")
    rounds = max(1, math.ceil(math.log2(considered)))
    out: list[tuple[int, int]] = []
    remaining, used = considered, 0
    for r in range(rounds):
        if r == rounds - 1:
            each = max(1, (visits - used) // remaining)
        else:
            each = max(1, visits // (rounds * remaining))
        out.append((remaining, each))
        used += each * remaining
        remaining = max(1, math.ceil(remaining / 2))
    return out


def fitted_considered(visits: int, considered: int) -> int:
    """The most moves, up to ``considered``, whose halving schedule stays within ``visits`` (one
    visit each in every round at least): a small budget considers fewer moves."""
    m = max(1, considered)
    while m > 1 and sum(count * each for count, each in halving_schedule(visits, m)) > visits:
        m -= 1
    return m


def completed_q(visits: np.ndarray, q: np.ndarray, priors: np.ndarray, network_value: float) -> np.ndarray:
    """Q of every branch, the unvisited ones given the value mix: the network's value and the
    prior-weighted Q of the visited branches, weighted 1 to the visits."""
    seen = visits > 0
    total = float(visits.sum())
    if not seen.any():
        return np.full(len(q), network_value)
    mass = float(priors[seen].sum())
    weighted = float((priors[seen] * q[seen]).sum() / mass) if mass > 0 else float(q[seen].mean())
    mixed = (network_value + total * weighted) / (1.0 + total)
    return np.where(seen, q, mixed)


def sigma(q: np.ndarray, visits: np.ndarray) -> np.ndarray:
    """The paper's monotone transform of Q: rescaled to [0, 1] over the branches, then times
    ``(C_VISIT + max visits) * C_SCALE``, so Q weighs more as the search grows."""
    low, high = float(q.min()), float(q.max())
    scaled = (q - low) / max(high - low, 1e-8)
    return (C_VISIT + float(visits.max(initial=0.0))) * C_SCALE * scaled


def improved_policy(
    logits: np.ndarray, visits: np.ndarray, q: np.ndarray, priors: np.ndarray, value: float
) -> np.ndarray:
    """``softmax(logits + sigma(completed Q))``: the policy target."""
    z = logits + sigma(completed_q(visits, q, priors, value), visits)
    z = np.exp(z - z.max())
    return z / z.sum()


def gumbel_search(
    tree: CompiledPUCTSearch,
    state: GameState,
    visits: int,
    considered: int = 16,
    rng: np.random.Generator | None = None,
    explore: bool = True,
) -> GumbelOutcome:
    """Search ``state`` with ``visits`` new root visits (about) by Gumbel sequential halving;
    the tree's statistics then carry the improved policy as their ``policy_target``.
    ``explore=False``: no Gumbel draw (the most probable moves, the best one played)."""
    from dlgo.search.compiled import CompiledPUCTSearch

    if not isinstance(tree, CompiledPUCTSearch):
        raise TypeError("Gumbel root search runs on the compiled tree (tree = 'compiled', a zero network)")
    if state.is_over():
        raise ValueError("the game is over: nothing to search")
    rng = rng if rng is not None else tree.rng
    # the tree of self-play (no ownership or score kept); the Gumbel draw explores: no Dirichlet noise
    tree.start_root(state, self_play=True, root_noise=False)
    span = tree.root_span
    start_visits = tree.root_visits
    priors = np.asarray(tree.arena.prior[span], np.float64)
    logits = np.log(np.maximum(priors, 1e-30))
    noise = rng.gumbel(size=len(priors)) if explore else np.zeros(len(priors))
    k = fitted_considered(visits, min(considered, len(priors)))
    remaining = np.argsort(-(noise + logits), kind="stable")[:k]
    quota = tree.arena.N[span].astype(np.float64)
    schedule = halving_schedule(visits, k)
    try:
        for r, (count, each) in enumerate(schedule):
            remaining = remaining[:count]
            quota[remaining] += each
            tree.root_quota = quota
            _run_until_quota(tree, span, quota)
            n, q, value = _root_view(tree, span)
            score = noise + logits + sigma(completed_q(n, q, priors, value), n)
            keep = schedule[r + 1][0] if r + 1 < len(schedule) else 1
            remaining = remaining[np.argsort(-score[remaining], kind="stable")[:keep]]
    finally:
        tree.root_quota = np.zeros(0, np.float64)
    n, q, value = _root_view(tree, span)
    target_over_branches = improved_policy(logits, n, q, priors, value)
    arena_ = tree.arena
    target = np.zeros(int(arena_.g[4]) + 1, np.float32)
    target[[arena_.zero_index(int(c)) for c in arena_.emove[span]]] = target_over_branches
    move = arena_.move(int(arena_.emove[span.start + int(remaining[0])]))
    stats = tree.statistics(new_visits=tree.root_visits - start_visits)
    stats = replace(stats, policy_target=target)
    tree.last_statistics = stats
    return GumbelOutcome(move=move, policy_target=target, statistics=stats)


def _root_view(tree: CompiledPUCTSearch, span: slice) -> tuple[np.ndarray, np.ndarray, float]:
    """Visits and Q of the root's branches and the network's value of the root (mover's view)."""
    from dlgo.search import arena

    arrays = tree.arena
    n = arrays.N[span].astype(np.float64)
    q = np.divide(arrays.W[span], n, out=np.zeros_like(n), where=n > 0)
    return n, q, float(arrays.nf[tree.root, arena.VALUE])


def _run_until_quota(tree: CompiledPUCTSearch, span: slice, quota: np.ndarray) -> None:
    tree.run_until(lambda: bool(np.all(tree.arena.N[span] >= quota)))
