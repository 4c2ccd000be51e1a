"""How many leaves a batch of the PUCT search holds (``SearchSettings.batch_growth``): at most the
tree's visits / ``batch_growth``, up to ``batch_size``, in both trees, so that the virtual losses
of the leaves in flight never spread a small tree."""

from __future__ import annotations

import pytest
from test_compiled_search import EncodedProjectionEvaluator, _random_game

from dlgo.play.config import ConfigError, load_config
from dlgo.search import PUCTSearch, SearchBudget, SearchSettings
from dlgo.search.compiled import CompiledPUCTSearch


class CountingEvaluator(EncodedProjectionEvaluator):
    """The pinned evaluator, recording how many positions each call asks for: ``evaluate`` for
    the Python tree, ``forward`` (encoded planes) for the compiled one; neither calls the other."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.sizes: list[int] = []

    def evaluate(self, states):
        self.sizes.append(len(states))
        return super().evaluate(states)

    def forward(self, planes):
        self.sizes.append(len(planes))
        return super().forward(planes)


def _within_growth(sizes: list[int], growth: int, batch_size: int) -> bool:
    """Each call no larger than the tree's visits before it / growth (the root's call counts one)."""
    visits = 0
    for n in sizes:
        if n > max(1, min(batch_size, max(1, visits) // growth)):
            return False
        visits += n
    return True


@pytest.mark.parametrize("tree", ["python", "compiled"])
@pytest.mark.parametrize("growth", [4, 32])
def test_batches_grow_with_the_tree(tree: str, growth: int) -> None:
    size = 5
    state = _random_game(size, 6, 4)[-1]
    settings = SearchSettings(batch_size=16, batch_growth=growth, early_stop=False, pipeline=False)
    evaluator = CountingEvaluator(size)
    search = (PUCTSearch if tree == "python" else CompiledPUCTSearch)(evaluator, settings)
    search.search(state, SearchBudget(max_visits=1200))
    assert _within_growth(evaluator.sizes, growth, 16)
    assert max(evaluator.sizes) == 16  # a large tree reaches the full batch
    if growth == 32:  # one leaf a call until the tree has 64 visits
        assert evaluator.sizes[:40] == [1] * 40


def test_a_slower_growth_means_more_calls_for_the_same_visits() -> None:
    size = 5
    state = _random_game(size, 6, 5)[-1]
    calls = {}
    for growth in (4, 64):
        evaluator = CountingEvaluator(size)
        settings = SearchSettings(batch_size=16, batch_growth=growth, early_stop=False, pipeline=False)
        CompiledPUCTSearch(evaluator, settings).search(state, SearchBudget(max_visits=600))
        calls[growth] = len(evaluator.sizes)
    assert calls[64] > calls[4]


def test_settings_and_config_check_the_growth() -> None:
    with pytest.raises(ValueError, match="batch_growth"):
        SearchSettings(batch_growth=0)
    assert load_config(None, ["zero.batch_growth=32"]).get("zero.batch_growth") == 32
    assert load_config(None).get("zero.batch_growth") == 4
    with pytest.raises(ConfigError, match="batch_growth"):
        load_config(None, ["zero.batch_growth=0"])
