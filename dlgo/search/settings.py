"""The search settings: one typed object, the one place each setting has its name, default and check.

    settings = SearchSettings(rounds=400, exploration=1.5)
    settings = SearchSettings.from_config({"rounds": 400, "c_puct": 1.5})   # a config table, aliases too
    agent = ZeroAgent(evaluator, settings)

The engine's ``zero`` table (``dlgo.agent_registry`` derives its keys, defaults, docs and ranges
from the fields here), the Zero agent, the Zero loop's self-play and gating
(``dlgo.zero.selfplay.SelfPlaySettings.search``) and our engine in a match
(``dlgo.match.players.zero_engine_player``) all pass this object. The fields marked as config
keys are the engine's; the others (virtual loss, root noise, early stop, pipelining) are set in
code only. The book's and this engine's older names are accepted as aliases (``ALIASES``) in
configs, ``--set`` and keyword arguments, so old configs and the book's code keep working.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dlgo.search.base import SELECT_BY, TREES

__all__ = ["ALIASES", "ConfigKey", "SearchSettings", "config_keys", "range_problem"]

#: older names of a setting -> its name: the book's (``ZeroAgent(rounds_per_move=..., c=...)``,
#: book 14.2) and this engine's earlier config key ``c_puct`` (the Zero loop's configs use it)
ALIASES: dict[str, str] = {"rounds_per_move": "rounds", "c": "exploration", "c_puct": "exploration"}


@dataclass(frozen=True)
class ConfigKey:
    """What a setting says about itself: its doc line and its range (checked by
    ``SearchSettings`` and by the engine's config reader alike). ``key``: False for settings
    that no config sets."""

    doc: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None
    key: bool = True


def range_problem(
    value: Any, choices: tuple[Any, ...] | None, minimum: float | None, maximum: float | None
) -> str | None:
    """What is wrong with ``value`` against a setting's declared choices or range (None: nothing):
    the one check behind ``SearchSettings`` and the engine's config reader."""
    if choices is not None and value not in choices:
        return f"expected one of {', '.join(map(str, choices))}"
    if minimum is not None and value < minimum:
        return f"must be at least {minimum:g}"
    if maximum is not None and value > maximum:
        return f"must be at most {maximum:g}"
    return None


def _setting(default: Any, doc: str, **check: Any) -> Any:
    return field(default=default, metadata={"setting": ConfigKey(doc, **check)})


@dataclass(frozen=True)
class SearchSettings:
    """How a PUCT agent searches (book 14.2): its budget, its tree policy and its batches.

    ``rounds``: root visits per move (tree reuse counts), ``exploration``: the PUCT constant
    (book 2.0; AlphaGo's c_u 5). ``virtual_loss``: value a pending descent counts as (1 = a
    loss). ``noise_weight``/``dirichlet_alpha``: root noise, self-play only (alpha None: the
    thesis' ``min(1, 10 / legal moves)``). ``early_stop``: stop a limited search when the best
    move cannot be overtaken. ``pipeline``: evaluate one batch in a worker thread while the next
    one is collected (the network runs without the GIL, so tree work and network overlap; two
    batches of virtual losses are then in the tree). ``fpu_reduction``: negative: an unvisited
    move is worth 0, a draw (the book, AlphaGo Zero); else the node's network value less this
    times the square root of the visited moves' prior mass (Leela Zero's first-play urgency).
    ``score_utility``/``score_scale``: KataGo's score utility where the network has a score head
    and the tree keeps scores (the compiled tree, outside self-play): each visited move's Q gains
    ``score_utility * 2/pi * atan((its mean score - the root's) / score_scale)``.
    ``settled_count``: where the network has an ownership head and the tree keeps it (outside
    self-play), a leaf that the count of its points owned at least this much settles either way
    is backed up as a sure win or loss (``dlgo.search.settled``). ``batch_growth``: a batch
    holds at most the tree's visits / ``batch_growth`` leaves (and ``batch_size``), so the
    virtual losses in flight stay a small part of a small tree. ``select_by``: the move the
    result puts first (``dlgo.search.base.SELECT_BY``). ``tree``: ``dlgo.search.base.TREES``.
    """

    rounds: int = _setting(
        800, "search visits per move at most (a clock stops it sooner); the book's rounds_per_move", minimum=1
    )
    exploration: float = _setting(2.0, "PUCT exploration constant c (c_puct); the book's c (2.0)", minimum=0.0)
    batch_size: int = _setting(
        16, "leaves evaluated per network call (virtual loss spreads them)", minimum=1, maximum=256
    )
    batch_growth: int = _setting(
        4,
        "tree visits per leaf of a batch: a batch holds at most the tree's visits / this (and batch_size) "
        "leaves, so virtual losses do not spread a small tree",
        minimum=1,
        maximum=4096,
    )
    reuse_tree: bool = _setting(True, "keep the subtree of the moves played for the next search")
    tree: str = _setting(
        "compiled",
        "the search tree: compiled (numba arrays, one compiled call per batch) or python (node objects; "
        "a network with ownership and score heads always searches on it)",
        choices=TREES,
    )
    fpu_reduction: float = _setting(
        -1.0,
        "value of a move the search has not visited yet: negative = 0, a draw (the book, AlphaGo Zero); "
        "else the position's network value less this times sqrt(prior of the visited moves) (Leela Zero)",
    )
    score_utility: float = _setting(
        0.0,
        "KataGo's score utility, with a network that has a score head (not in self-play): a move's value "
        "gains this x 2/pi x atan((its expected score - the position's) / score_scale); 0 = win rate only",
        minimum=0.0,
    )
    score_scale: float = _setting(
        5.0, "points at which the score utility reaches half its factor (see score_utility)", minimum=0.01
    )
    settled_count: float = _setting(
        0.0,
        "with a network that has an ownership head (not in self-play): a leaf whose count, each point "
        "owned with at least this much, wins or loses whatever the unsure points do is a sure win or "
        "loss (dlgo.search.settled); 0 = the value head alone",
        minimum=0.0,
        maximum=1.0,
    )
    select_by: str = _setting(
        "visits",
        "the move played: visits (the most visited, the book) or lcb (the best lower confidence bound of "
        "the win rate among moves with at least a tenth of the top visits: Leela Zero, KataGo)",
        choices=SELECT_BY,
    )
    virtual_loss: float = _setting(1.0, "value a pending descent counts as (1 = a loss)", minimum=0.0, key=False)
    noise_weight: float = _setting(
        0.25, "weight of the Dirichlet noise at the root (self-play)", minimum=0.0, maximum=1.0, key=False
    )
    dirichlet_alpha: float | None = _setting(None, "the root noise's concentration (None: by legal moves)", key=False)
    early_stop: bool = _setting(True, "stop a limited search when the best move cannot be overtaken", key=False)
    pipeline: bool = _setting(True, "evaluate a batch while the next one is collected", key=False)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            check: ConfigKey = f.metadata["setting"]
            value = getattr(self, f.name)
            problem = range_problem(value, check.choices, check.minimum, check.maximum)
            if problem is not None:
                raise ValueError(f"{f.name}: {problem}, got {value!r}")

    def replace(self, **changes: Any) -> SearchSettings:
        """These settings with ``changes`` (names or ``ALIASES``); ``TypeError`` for a name that
        is no setting, ``ValueError`` for a name given twice or a value out of range."""
        return dataclasses.replace(self, **_canonical(changes)) if changes else self

    @classmethod
    def from_config(cls, table: Mapping[str, Any], base: SearchSettings | None = None) -> SearchSettings:
        """``base`` (None: the defaults) with the search keys of a config table (an agent's
        ``zero`` table or the Zero loop's ``[selfplay]``; aliases too), each converted to its
        setting's type; the table's other keys (``model``, ``seed``, ...) are not settings."""
        base = base or cls()
        types = {name: type(default) for name, (default, _) in _FIELDS.items() if default is not None}
        picked = {k: v for k, v in table.items() if ALIASES.get(k, k) in _CONFIG}
        return base.replace(**{k: types[ALIASES.get(k, k)](v) for k, v in picked.items()})

    def config(self) -> dict[str, Any]:
        """Every config key with its value: what an engine's ``zero`` table would say."""
        return {name: getattr(self, name) for name in _CONFIG}


def _canonical(changes: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in changes.items():
        key = ALIASES.get(name, name)
        if key not in _FIELDS:
            raise TypeError(f"unknown search setting {name!r}")
        if key in out:
            raise ValueError(f"{name} and {key} are the same setting: give one")
        out[key] = value
    return out


#: every setting: name -> (default, what it says about itself)
_FIELDS: dict[str, tuple[Any, ConfigKey]] = {
    f.name: (f.default, f.metadata["setting"]) for f in dataclasses.fields(SearchSettings)
}
_CONFIG = tuple(name for name, (_, check) in _FIELDS.items() if check.key)


def config_keys() -> dict[str, tuple[type, Any, ConfigKey]]:
    """The config keys in the engine's order: name -> (type, default, doc and range), from which
    ``dlgo.agent_registry`` makes the ``zero`` table's schema."""
    return {name: (type(_FIELDS[name][0]), _FIELDS[name][0], _FIELDS[name][1]) for name in _CONFIG}
