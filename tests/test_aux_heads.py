"""KataGo's ownership and score heads: through the evaluator (cache, symmetries), the PUCT search
(tree-averaged ownership and score lead), the GTP engine's analysis and its dead-stone count.

The four-head network of ``aux_model`` answers a known function of the board: ownership is
tanh(1) at the mover's stones, -tanh(1) at the opponent's, 0 on empty points; the score is
SCORE_SCALE x (own stones - opponent stones) / points.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from aux_model import OWNERSHIP_AT_STONE, save_aux_models

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.networks.zero import SCORE_SCALE
from dlgo.search import PUCTAgent, SearchBudget
from dlgo.search.tree import ZeroTreeNode, move_index

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """(four-head model file, the same network with policy and value only), with cards."""
    pytest.importorskip("keras")
    return save_aux_models(tmp_path_factory.mktemp("aux"))


def _states(n: int = 12) -> list[GameState]:
    from dlgo.bench.nn import sample_states

    return sample_states(9, n, seed=3)


def _expected_ownership(state: GameState) -> np.ndarray:
    """The test network's ownership: the zero encoder's point order, the mover's view."""
    out = np.zeros(81)
    for row in range(1, 10):
        for col in range(1, 10):
            owner = state.board.get(Point(row, col))
            if owner is not None:
                out[9 * (row - 1) + col - 1] = OWNERSHIP_AT_STONE * (1 if owner is state.next_player else -1)
    return out


# --- evaluator ------------------------------------------------------------------------------------


def test_card_names_the_four_heads(models):
    from dlgo.inference import read_card

    assert read_card(models[0]).heads == ["policy", "value", "ownership", "score"]
    assert read_card(models[1]).heads == ["policy", "value"]


def test_evaluator_gives_aux_heads_and_the_same_policy_and_value(models):
    from dlgo.inference import BatchEvaluator

    states = _states()
    four, two = BatchEvaluator(models[0]), BatchEvaluator(models[1])
    assert four.has_aux and not two.has_aux
    full = four.evaluate_full(states)
    policy, value = two.evaluate(states)
    np.testing.assert_allclose(full["policy"], policy, atol=1e-6)
    np.testing.assert_allclose(full["value"], value, atol=1e-6)
    np.testing.assert_allclose(four.evaluate(states)[0], policy, atol=1e-6)  # evaluate() as before
    assert set(two.evaluate_full(states)) == {"policy", "value"}
    for i, state in enumerate(states):
        expected = _expected_ownership(state)
        np.testing.assert_allclose(full["ownership"][i], expected, atol=2e-3)  # float16 in the cache
        assert full["score"][i] == pytest.approx(SCORE_SCALE * np.sign(expected).sum() / 81, abs=1e-4)
    hits = four.stats["cache_hits"]
    again = four.evaluate_full(states)  # from the cache now
    assert four.stats["cache_hits"] == hits + len(states)
    np.testing.assert_array_equal(again["ownership"], full["ownership"])


@pytest.mark.parametrize("mode", ["random", "average", 3, 6])
def test_symmetries_map_ownership_back(models, mode):
    from dlgo.inference import BatchEvaluator

    states = _states()
    got = BatchEvaluator(models[0], symmetry_mode=mode, seed=5).evaluate_full(states)
    for i, state in enumerate(states):
        np.testing.assert_allclose(got["ownership"][i], _expected_ownership(state), atol=2e-3)


# --- search -----------------------------------------------------------------------------------------


class _AuxFake:
    """Uniform policy, value 0; ownership +1 (Black's) everywhere and a score of +3 for Black, in
    the mover's view as a network answers: a sign slip at any ply shows in the averages."""

    has_aux = True

    def evaluate_full(self, states):
        n = len(states)
        sign = np.array([1.0 if s.next_player is Player.black else -1.0 for s in states], dtype=np.float32)
        points = states[0].board.num_rows * states[0].board.num_cols
        return {
            "policy": np.full((n, points + 1), 1.0 / (points + 1), dtype=np.float32),
            "value": np.zeros(n, dtype=np.float32),
            "ownership": np.repeat(sign[:, None], points, axis=1),
            "score": 3.0 * sign,
        }

    def evaluate(self, states):
        out = self.evaluate_full(states)
        return out["policy"], out["value"]


def _tree_mean(node: ZeroTreeNode) -> tuple[np.ndarray, float, int]:
    """Sum of Black's ownership and score over every node with aux below and at ``node``."""
    own = node.aux.ownership.astype(np.float64) if node.aux is not None else 0.0
    score, count = (node.aux.score, 1) if node.aux is not None else (0.0, 0)
    for child in node.children.values():
        o, s, c = _tree_mean(child)
        own, score, count = own + o, score + s, count + c
    return own, score, count


@pytest.mark.parametrize("to_move", [Player.black, Player.white])
def test_search_averages_ownership_and_score_in_the_movers_view(to_move):
    state = GameState.new_game(5)
    if to_move is Player.white:
        state = state.apply_move(Move.play(Point(3, 3)))
    agent = PUCTAgent(_AuxFake(), rounds_per_move=120, batch_size=4, seed=1, early_stop=False)
    result = agent.search(state, SearchBudget(max_visits=120))
    assert result.ownership.shape == (5, 5)
    np.testing.assert_allclose(result.ownership, 1.0)  # Black's, whoever moves
    sign = 1.0 if to_move is Player.black else -1.0
    assert result.score_lead == pytest.approx(3.0 * sign)
    assert all(c.score_lead == pytest.approx(3.0 * sign) for c in result.candidates)
    # The sums kept on the way equal a walk over the tree.
    own, score, count = _tree_mean(agent.tree.root)
    assert count == 1 + agent.tree.root.aux.count_below > 100
    np.testing.assert_allclose(agent.tree.root.aux.mean()[0], own / count, atol=1e-5)


def test_self_play_keeps_no_ownership():
    agent = PUCTAgent(_AuxFake(), rounds_per_move=40, batch_size=4, seed=1, self_play=True)
    result = agent.search(GameState.new_game(5), SearchBudget(max_visits=40))
    assert result.ownership is None and result.score_lead is None and agent.tree.root.aux is None


def test_score_lead_is_the_subtree_mean_from_the_real_network(models):
    from dlgo.search.zero_agent import ZeroAgent

    def search(tree: str):
        agent = ZeroAgent.from_model(
            models[0], board_size=9, rounds_per_move=60, batch_size=4, seed=1, early_stop=False, tree=tree
        )
        return agent, agent.search(state, SearchBudget(max_visits=60))

    state = _states()[5]
    agent, result = search("python")
    assert agent.network_ownership and result.ownership.shape == (9, 9) and result.score_lead is not None
    root = agent.tree.root
    sign = 1.0 if state.next_player is Player.black else -1.0
    for c in result.candidates:
        child = root.children[root.branch_of(move_index(c.move, 9, 81))]
        _, score, count = _tree_mean(child)
        assert c.score_lead == pytest.approx(sign * score / count, abs=1e-4)
    # The compiled tree (the default) reports the same maps and leads from the same search.
    compiled, same = search("compiled")
    assert type(compiled.tree).__name__ == "CompiledPUCTSearch"
    np.testing.assert_allclose(same.ownership, result.ownership, atol=1e-3)
    assert same.score_lead == pytest.approx(result.score_lead, abs=1e-3)
    assert [(c.move, c.visits) for c in same.candidates] == [(c.move, c.visits) for c in result.candidates]
    assert [c.score_lead for c in same.candidates] == pytest.approx([c.score_lead for c in result.candidates], abs=1e-3)


def test_two_head_network_searches_as_before(models):
    from dlgo.inference import BatchEvaluator

    state = _states()[5]
    results = []
    for path in models:
        agent = PUCTAgent(BatchEvaluator(path), rounds_per_move=80, batch_size=4, pipeline=False, seed=1)
        results.append(agent.search(state, SearchBudget(max_visits=80)))
    four, two = results
    assert two.ownership is None and two.score_lead is None
    assert all(c.score_lead is None for c in two.candidates)
    assert [(c.move, c.visits) for c in four.candidates] == [(c.move, c.visits) for c in two.candidates]


# --- the GTP engine -----------------------------------------------------------------------------------


def _engine(model, *sets: str):
    from gtp_client import InProcessEngine

    eng = InProcessEngine(
        "agent=zero",
        f"zero.model={model}",
        "zero.batch_size=4",
        "zero.rounds=40",
        "time.default_seconds=0",
        "engine.board_size=9",
        "analysis.visits=40",
        *sets,
        config=None,
    )
    eng.engine.agents.get(9, 9)  # built (the analysis streams below last a second)
    return eng


def _stream(eng, line: str) -> list[str]:
    """The info lines of an analysis stream, stopped after a second by an input line."""
    threading.Timer(1.0, lambda: (eng._stdin_w.write(b"\n"), eng._stdin_w.flush())).start()
    raw = eng.ask_raw(line)
    eng.channel.next_line()  # the line that ended it, as the engine's loop would read it next
    assert raw.startswith("=") and raw.endswith("\n\n"), raw
    return [x for x in raw.split("\n") if x.startswith("info ")]


def test_kata_analyze_prints_score_lead_and_network_ownership(models):
    eng = _engine(models[0])
    try:
        eng.ok("play b C7")
        eng.ok("play w G3")
        line = _stream(eng, "kata-analyze b interval 10 ownership true")[-1]
        assert " scoreLead " in line and " scoreMean " in line
        values = [float(v) for v in line.split(" ownership ")[1].split()]
        assert len(values) == 81
        # Rows from the top, the side to move's view: C7 is Black's (to move), G3 White's.
        assert values[9 * 2 + 2] == pytest.approx(OWNERSHIP_AT_STONE, abs=0.05)
        assert values[9 * 6 + 6] == pytest.approx(-OWNERSHIP_AT_STONE, abs=0.05)
        lz = _stream(eng, "lz-analyze b 10")[-1]
        assert "scoreLead" not in lz and "ownership" not in lz
        board = eng.ok("dlgo-ownership").split("\n")[-9:]
        grid = [[float(v) for v in row.split()] for row in board]
        assert grid[2][2] > 0.7 and grid[6][6] < -0.7  # GoGui's map: +1 Black
    finally:
        eng.close()


def test_kata_analyze_without_the_heads_uses_playouts(models):
    eng = _engine(models[1], "analysis.ownership_playouts=50")
    try:
        eng.ok("play b C7")
        line = _stream(eng, "kata-analyze w interval 10 ownership true")[-1]
        assert "scoreLead" not in line and len(line.split(" ownership ")[1].split()) == 81
    finally:
        eng.close()


# A finished-looking board: Black owns A-E, White F-J; a white stone at B5 and a black one at H5
# sit alone in the other's area. Playouts call both dead; the test network's ownership keeps
# every stone its own colour's, so with it nothing is dead.
_WALLS = [("b", f"E{r}") for r in range(1, 10)] + [("w", f"F{r}") for r in range(1, 10)] + [("w", "B5"), ("b", "H5")]


@pytest.mark.parametrize(
    ("model", "method", "dead"),
    [(0, "auto", ""), (0, "network", ""), (0, "playouts", "B5 H5"), (1, "auto", "B5 H5")],
)
def test_dead_stones_switch(models, model, method, dead):
    eng = _engine(models[model], f"scoring.dead_stones={method}", "scoring.network_visits=30")
    try:
        for colour, vertex in _WALLS:
            eng.ok(f"play {colour} {vertex}")
        assert eng.engine.session.counts_with_network() == (model == 0 and method != "playouts")
        assert " ".join(sorted(eng.ok("final_status_list dead").split())) == dead
        # Area, komi 7.5: with both dead Black has A-E (45), White F-J (36); with both alive the
        # empty points touch both colours and count for nobody: 10 stones each.
        assert eng.ok("final_score") == ("B+1.5" if dead else "W+7.5")
    finally:
        eng.close()


@pytest.mark.parametrize("runtime", ["fp32", pytest.param("int8", marks=pytest.mark.slow)])
def test_the_trainers_four_head_network_drives_the_engine(tmp_path, runtime):
    """The network the Zero loop trains (``zero_model`` with both heads and global pooling), saved
    with its card, quantized or not, gives the engine's analysis its ownership and score lead."""
    pytest.importorskip("keras")
    pytest.importorskip("onnxruntime")
    import keras

    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import BatchEvaluator, save_model
    from dlgo.networks.zero import zero_model

    keras.utils.set_random_seed(5)
    encoder = get_encoder_by_name("zero", 9)
    model = zero_model(encoder.num_planes, blocks=3, filters=8, ownership=True, score=True, global_pooling=True)
    path = tmp_path / "trained-shape.keras"
    save_model(model, path, encoder, [9])
    states = _states(4)
    keras_own = np.asarray(model(encoder.encode_batch(states))[2])
    full = BatchEvaluator(path, runtime=runtime).evaluate_full(states)
    assert full["ownership"].shape == (4, 81)
    tolerance = 2e-3 if runtime == "fp32" else 0.1  # kept as float16; int8: calibrated activations
    np.testing.assert_allclose(np.asarray(full["ownership"], np.float32), keras_own, atol=tolerance)
    eng = _engine(path, f"zero.runtime={runtime}")
    try:
        eng.ok("play b E5")
        line = _stream(eng, "kata-analyze w interval 10 ownership true")[-1]
        assert " scoreLead " in line
        values = [float(v) for v in line.split(" ownership ")[1].split()]
        assert len(values) == 81 and all(-1.0 <= v <= 1.0 for v in values)
    finally:
        eng.close()
