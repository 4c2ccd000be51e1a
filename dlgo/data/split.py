"""Train/test split BY GAME, fixed by a seed: no position of a test game is ever trained on.

The book's text tested on games before 2014 and trained on later ones; its code drew 100 random
test games with seed 1337, and its data generator then validated on training chunks anyway
(book 7.2.2-7.2.3; docs/book-differences.md, 5 and 7). Here every game is assigned by a hash of its game id
(``<archive>/<member>``, see ``dlgo.data.archives``) and the seed:

    test  <=>  blake2b("split:<seed>:<game id>") / 2**64  <  test_fraction

so the assignment of a game never depends on which other games or archives are present, on the
order of reading, or on how many games are sampled; ``dlgo.evaluate --split test`` recomputes it
from the same two numbers. Samples of N games take the first N in a second hash order
("order:<seed>:<game id>"), so a larger sample contains every smaller one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Split", "DEFAULT_SEED", "DEFAULT_TEST_FRACTION"]

DEFAULT_SEED = 1337
DEFAULT_TEST_FRACTION = 0.02


def _unit(text: str) -> float:
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


@dataclass(frozen=True)
class Split:
    seed: int = DEFAULT_SEED
    test_fraction: float = DEFAULT_TEST_FRACTION

    def __post_init__(self) -> None:
        if not 0.0 <= self.test_fraction < 1.0:
            raise ValueError(f"test fraction {self.test_fraction} outside [0, 1)")

    def is_test(self, game_id: str) -> bool:
        return _unit(f"split:{self.seed}:{game_id}") < self.test_fraction

    def part(self, game_id: str) -> str:
        """``"test"`` or ``"train"``."""
        return "test" if self.is_test(game_id) else "train"

    def order_key(self, game_id: str) -> float:
        return _unit(f"order:{self.seed}:{game_id}")

    def select(
        self, game_ids: Iterable[str], train_games: int | None = None, test_games: int | None = None
    ) -> tuple[list[str], list[str]]:
        """(train ids, test ids): each part in hash order, cut to the number asked (None: all)."""
        train: list[str] = []
        test: list[str] = []
        for game_id in dict.fromkeys(game_ids):
            (test if self.is_test(game_id) else train).append(game_id)
        train.sort(key=self.order_key)
        test.sort(key=self.order_key)
        return train[:train_games] if train_games is not None else train, (
            test[:test_games] if test_games is not None else test
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Split:
        return cls(seed=int(data.get("seed", DEFAULT_SEED)), test_fraction=float(data.get("test_fraction", 0.0)))
