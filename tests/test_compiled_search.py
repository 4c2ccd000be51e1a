"""The compiled PUCT tree (``dlgo.search.arena``, ``dlgo.search.compiled``) against the Python one.

The compiled search must be the same search: the same root visit counts as the pinned Python
search for the same evaluations, the same board after every play, the same planes and legal
moves as the zero encoder (superko included), the same tree reuse, and a consistent tree after
an evaluation fails.
"""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest
from test_search_pinned import PINNED, ProjectionEvaluator, _midgame

from dlgo.encoders import get_encoder_by_name
from dlgo.encoders.features import legal_move_mask, zobrist_array
from dlgo.encoders.zero import KOMI_SCALE, encode_position
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.kernels import flood_words
from dlgo.search import PUCTAgent, PUCTSearch, SearchBudget, SearchSettings
from dlgo.search import arena as A
from dlgo.search.base import best_move_unsure
from dlgo.search.compiled import CompiledPUCTSearch
from dlgo.search.tree import first_play_value


class EncodedProjectionEvaluator(ProjectionEvaluator):
    """The pinned evaluator with ``BatchEvaluator``'s encoded-planes protocol."""

    encoder_name = "zero"
    has_aux = False

    def __init__(self, size: int, fail_after: int | None = None) -> None:
        super().__init__(size)
        self.calls = 0
        self.fail_after = fail_after

    def _answer(self, planes: np.ndarray):
        x = planes.reshape(len(planes), -1).astype(np.float64)
        logits = x @ self.policy_weights
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True), np.tanh(x @ self.value_weights)

    def start_encoded(self, keys, planes):
        return planes.copy()

    def forward(self, planes):
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise RuntimeError("the network failed")
        return self._answer(planes)

    def finish_encoded(self, planes, raw):
        return raw

    def evaluate_encoded(self, keys, planes):
        return self._answer(planes)


class AuxProjectionEvaluator(ProjectionEvaluator):
    """The pinned evaluator plus ownership and score heads (fixed projections of the planes)."""

    has_aux = True

    def __init__(self, size: int) -> None:
        super().__init__(size)
        rng = np.random.default_rng(11)
        features = self.encoder.num_planes * size * size
        self.own_weights = rng.normal(size=(features, size * size)) * 0.2
        self.score_weights = rng.normal(size=features) * 2.0

    def aux(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = x.reshape(len(x), -1).astype(np.float64)
        return np.tanh(x @ self.own_weights).astype(np.float32), (x @ self.score_weights).astype(np.float32)

    def evaluate_full(self, states):
        policy, value = self.evaluate(states)
        ownership, score = self.aux(self.encoder.encode_batch(list(states)))
        return {"policy": policy, "value": value, "ownership": ownership, "score": score}


class EncodedAuxProjectionEvaluator(EncodedProjectionEvaluator):
    has_aux = True

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self._aux = AuxProjectionEvaluator(size)

    def encoded_aux(self, planes):
        return self._aux.aux(planes)


def _random_game(size: int, moves: int, seed: int) -> list[GameState]:
    """States of a random game with many captures (small board), passes now and then."""
    rng = random.Random(seed)
    state = GameState.new_game(size)
    states = [state]
    for _ in range(moves):
        legal = [m for m in state.legal_moves() if m.is_play]
        move = Move.pass_turn() if not legal or rng.random() < 0.05 else rng.choice(legal)
        state = state.apply_move(move)
        if state.is_over():
            break
        states.append(state)
    return states


@pytest.mark.parametrize("pipeline", [False, True])
@pytest.mark.parametrize("size", [9, 7])
def test_the_compiled_search_visits_as_pinned(pipeline: bool, size: int) -> None:
    state = _midgame(9, 3) if size == 9 else GameState.new_game(7)
    settings = SearchSettings(batch_size=8, early_stop=False, pipeline=pipeline)
    search = CompiledPUCTSearch(EncodedProjectionEvaluator(size), settings)
    result = search.search(state, SearchBudget(max_visits=400))
    counts = search.statistics().visit_counts
    assert {int(i): int(counts[i]) for i in np.flatnonzero(counts)} == PINNED[(pipeline, size)]
    assert result.visits == 400
    assert sum(c.visits for c in result.candidates) == 399


@pytest.mark.parametrize("seed, fpu_reduction", [(1, -1.0), (2, -1.0), (3, 0.25)])
def test_both_trees_agree_on_long_searches_with_passes_captures_and_reuse(seed: int, fpu_reduction: float) -> None:
    """Thousands of visits on a small board (finished games, ko, the arrays grown) and tree reuse
    after two moves: the same counts, values and principal variations."""
    size = 5
    game = _random_game(size, 14, seed)
    state = game[-1]
    settings = SearchSettings(batch_size=8, early_stop=False, pipeline=False, fpu_reduction=fpu_reduction)
    python = PUCTSearch(ProjectionEvaluator(size), settings)
    compiled = CompiledPUCTSearch(EncodedProjectionEvaluator(size), settings)
    for step in range(3):
        results = [s.search(state, SearchBudget(max_visits=2500 + 500 * step)) for s in (python, compiled)]
        a, b = python.statistics(), compiled.statistics()
        assert np.array_equal(a.visit_counts, b.visit_counts)
        assert a.root_value == pytest.approx(b.root_value, abs=1e-9)
        assert [c.pv for c in results[0].candidates[:3]] == [c.pv for c in results[1].candidates[:3]]
        assert python.most_visited() == compiled.most_visited()
        state = state.apply_move(python.most_visited())
        if state.is_over():
            break
        answers = [m for m in state.legal_moves() if m.is_play]
        state = state.apply_move(Move.pass_turn() if step == 1 or not answers else answers[seed % len(answers)])
        if state.is_over():
            break


@pytest.mark.parametrize("seed", [1, 2])
def test_both_trees_average_ownership_and_score_alike(seed: int) -> None:
    """A network with ownership and score heads: the same averaged ownership map and score leads
    (the root's and every move's) from both trees, with tree reuse; none in self-play."""
    size = 5
    state = _random_game(size, 12, seed)[-1]
    settings = SearchSettings(batch_size=8, early_stop=False, pipeline=seed == 2)
    python = PUCTSearch(AuxProjectionEvaluator(size), settings)
    compiled = CompiledPUCTSearch(EncodedAuxProjectionEvaluator(size), settings)
    for step in range(3):
        a, b = (s.search(state, SearchBudget(max_visits=1500 + 500 * step)) for s in (python, compiled))
        assert a.visits == b.visits and a.ownership.shape == b.ownership.shape == (size, size)
        np.testing.assert_allclose(b.ownership, a.ownership, atol=1e-4)
        assert b.score_lead == pytest.approx(a.score_lead, abs=1e-4)
        assert [c.move for c in a.candidates] == [c.move for c in b.candidates]
        assert [c.score_lead for c in b.candidates] == pytest.approx([c.score_lead for c in a.candidates], abs=1e-4)
        af = compiled._arena.af
        assert af[0, A.COUNT_BELOW] + 1 == (af[: compiled._arena.used[0], A.HAS_AUX] > 0).sum()
        state = state.apply_move(compiled.most_visited())
        if state.is_over():
            break
    plain = CompiledPUCTSearch(EncodedAuxProjectionEvaluator(size), settings)
    result = plain.search(GameState.new_game(size), SearchBudget(max_visits=200), self_play=True)
    assert result.ownership is None and result.score_lead is None and plain._arena.own.shape[1] == 0


def test_play_matches_the_rules_core_board_and_hash() -> None:
    for seed in range(4):
        for before, after in zip(*(lambda g: (g[:-1], g[1:]))(_random_game(7, 120, seed))):
            move = after.last_move
            if not move.is_play:
                continue
            board = before.board
            w = board.num_cols + 2
            colors = np.frombuffer(board.padded_colors, np.int8).copy()
            zob, _ = zobrist_array(board.num_rows, board.num_cols)
            ws = np.zeros(flood_words(len(colors)) + len(colors), np.int32)
            h = A.play(
                colors,
                w,
                before.next_player.value,
                move.point.row * w + move.point.col,
                zob,
                np.uint64(board.zobrist_hash()),
                ws,
            )
            assert bytes(colors.tobytes()) == after.board.padded_colors
            assert int(h) == after.board.zobrist_hash()


def _encode_like_the_search(state: GameState) -> tuple[np.ndarray, np.ndarray]:
    board = state.board
    w = board.num_cols + 2
    color = state.next_player.value
    zob, wtm = zobrist_array(board.num_rows, board.num_cols)
    history = np.zeros(4, np.int32)
    last_pass = False
    s = state
    for k in range(4):
        if s is None or s.last_move is None:
            break
        if s.last_move.is_play:
            history[k] = s.last_move.point.row * w + s.last_move.point.col
        elif k == 0:
            last_pass = True
        s = s.previous_state
    h0 = board.zobrist_hash() ^ (wtm if color == Player.black.value else 0)
    komi = state.komi if color != Player.black.value else -state.komi
    earlier = np.sort(np.fromiter(state.previous_states, np.uint64, len(state.previous_states)))
    out = np.zeros((board.num_rows, board.num_cols, 16), np.float32)
    moves = np.zeros(board.num_rows * board.num_cols + 1, np.int32)
    colors = np.frombuffer(board.padded_colors, np.int8).copy()
    count = encode_position(
        colors,
        w,
        color,
        zob,
        np.uint64(h0),
        komi / KOMI_SCALE,
        history,
        last_pass,
        earlier,
        np.zeros(1, np.uint64),
        0,
        out,
        moves,
    )
    return out, moves[:count]


def test_the_compiled_encoding_equals_the_zero_encoder_with_superko() -> None:
    """Random 5x5 and 7x7 games (many captures, so ko and superko points come up)."""
    superko_seen = 0
    for size, seeds in ((5, range(6)), (7, range(3))):
        encoder = get_encoder_by_name("zero", size)
        for seed in seeds:
            for state in _random_game(size, 150, seed):
                planes, moves = _encode_like_the_search(state)
                assert np.array_equal(planes, encoder.encode(state))
                w = size + 2
                indices = [size * size if p == 0 else (p // w - 1) * size + (p % w - 1) for p in moves]
                assert indices == np.flatnonzero(legal_move_mask(state)).tolist()
                superko_seen += int(planes[:, :, 6].sum() > 0)
    assert superko_seen > 0


def test_a_failed_evaluation_leaves_a_consistent_tree_that_searches_on() -> None:
    evaluator = EncodedProjectionEvaluator(9, fail_after=20)
    search = CompiledPUCTSearch(evaluator, SearchSettings(batch_size=8, early_stop=False, pipeline=True))
    state = _midgame(9, 3)
    with pytest.raises(RuntimeError, match="network failed"):
        search.search(state, SearchBudget(max_visits=5000))
    tree = search._arena
    used = int(tree.used[0])
    assert not (tree.ni[:used, A.STATUS] == A.PENDING).any() or all(
        tree.child[tree.ni[n, A.PEDGE]] != n for n in np.flatnonzero(tree.ni[:used, A.STATUS] == A.PENDING)
    )
    evaluated = np.flatnonzero(tree.ni[:used, A.STATUS] == A.EVALUATED)
    for node in evaluated:  # no virtual visit left behind: visits through a node = its edges' sum
        span = tree.edges(int(node))
        assert tree.nf[node, A.TOTAL] == tree.N[span].sum()
    before = search._visits()
    evaluator.fail_after = None
    result = search.search(state, SearchBudget(max_visits=before + 200))
    assert result.visits == before + 200


def test_self_play_noise_statistics_and_sampling() -> None:
    evaluator = EncodedProjectionEvaluator(9)
    agent = PUCTAgent(evaluator, rounds_per_move=200, self_play=True, seed=5, temperature_moves=10)
    assert isinstance(agent.tree, CompiledPUCTSearch)
    state = GameState.new_game(9)
    move = agent.select_move(state)
    stats = agent.last_statistics
    assert stats.visit_counts.sum() == 199 and stats.visits == 200 and stats.new_visits == 199
    assert move.is_play and stats.visit_counts[(move.point.row - 1) * 9 + move.point.col - 1] > 0
    noisy = agent.tree._arena.prior[agent.tree.root_span].copy()
    clean = agent.tree._clean_priors.copy()
    assert not np.allclose(noisy, clean) and clean.sum() == pytest.approx(1.0, abs=1e-5)
    agent.self_play = False  # a competitive search from the same root gets the clean priors back
    agent.search(state, SearchBudget(max_visits=300))
    assert np.array_equal(agent.tree._arena.prior[agent.tree.root_span], clean)


def test_a_game_that_ends_in_the_tree_is_scored_by_area() -> None:
    """After a pass, the pass in the tree ends the game: White (komi 7.5, empty 5x5 board but
    one black stone) wins as area says, and the search sees it."""
    state = GameState.new_game(5).apply_move(Move.play(Point(3, 3))).apply_move(Move.pass_turn())
    evaluator = EncodedProjectionEvaluator(5)
    evaluator._answer = lambda planes: (np.full((len(planes), 26), 1 / 26), np.zeros(len(planes)))  # no opinion
    search = CompiledPUCTSearch(evaluator, SearchSettings(batch_size=4, early_stop=False))
    search.search(state, SearchBudget(max_visits=300))
    tree, span = search._arena, search.root_span
    pass_edge = span.stop - 1
    assert tree.emove[pass_edge] == 0 and tree.N[pass_edge] > 0
    end = tree.child[pass_edge]
    assert tree.ni[end, A.STATUS] == A.TERMINAL
    assert tree.nf[end, A.VALUE] == -1.0  # White to move there, Black has 25 points against 7.5
    assert tree.W[pass_edge] == tree.N[pass_edge]  # every visit of that pass: Black wins


def test_the_agent_picks_the_python_tree_when_asked_or_when_the_evaluator_cannot_give_maps() -> None:
    assert isinstance(PUCTAgent(EncodedProjectionEvaluator(9), tree="python").tree, PUCTSearch)
    assert isinstance(PUCTAgent(EncodedAuxProjectionEvaluator(9)).tree, CompiledPUCTSearch)
    no_maps = EncodedProjectionEvaluator(9)
    no_maps.has_aux = True  # heads, but no ``encoded_aux``
    assert isinstance(PUCTAgent(no_maps).tree, PUCTSearch)
    assert isinstance(PUCTAgent(no_maps, self_play=True).tree, CompiledPUCTSearch)  # no maps in self-play
    assert isinstance(PUCTAgent(ProjectionEvaluator(9)).tree, PUCTSearch)  # no encoded protocol
    with pytest.raises(ValueError, match="tree: expected one of"):
        PUCTAgent(ProjectionEvaluator(9), tree="rust")


def test_first_play_urgency() -> None:
    priors = np.array([0.5, 0.3, 0.2], np.float32)
    visits = np.array([3.0, 0.0, 1.0])
    assert first_play_value(priors, visits, 0.4, -1.0) == 0.0  # the book: an unvisited move is a draw
    assert first_play_value(priors, visits, 0.4, 0.5) == pytest.approx(0.4 - 0.5 * np.sqrt(0.7))
    # With FPU the search of a won position stays on its good move longer than with Q = 0.
    evaluator = EncodedProjectionEvaluator(9)
    state = _midgame(9, 3)
    spread = []
    for fpu in (-1.0, 0.0):
        search = CompiledPUCTSearch(evaluator, SearchSettings(batch_size=8, early_stop=False, fpu_reduction=fpu))
        search.search(state, SearchBudget(max_visits=400))
        spread.append(int((search.statistics().visit_counts > 0).sum()))
    assert spread[0] != spread[1]


def test_a_root_whose_evaluation_failed_is_evaluated_again() -> None:
    """A failed root evaluation (a new position) must not leave the previous position's search
    reusing the half-made tree."""
    evaluator = EncodedProjectionEvaluator(9)
    search = CompiledPUCTSearch(evaluator, SearchSettings(batch_size=8))
    first, other = _midgame(9, 3), _midgame(9, 4)
    search.search(first, SearchBudget(max_visits=100))
    evaluator.fail_after = evaluator.calls
    with pytest.raises(RuntimeError, match="network failed"):
        search.search(other, SearchBudget(max_visits=100))
    evaluator.fail_after = None
    result = search.search(first, SearchBudget(max_visits=100))
    assert result.visits == 100 and result.candidates


@pytest.mark.parametrize("tree", ["compiled", "python"])
def test_a_search_whose_time_does_not_bank_never_stops_early(tree: str) -> None:
    """A limited search stops once the most visited move cannot be overtaken, unless its budget
    says the time left would be lost (a fixed time per move, a byo-yomi period): then it runs to
    its limit, deepening the tree that the next move reuses."""
    state = _midgame(9, 3)
    settings = SearchSettings(batch_size=8, pipeline=False)
    if tree == "compiled":
        search = CompiledPUCTSearch(EncodedProjectionEvaluator(9), settings)
    else:
        search = PUCTSearch(ProjectionEvaluator(9), settings)
    early = search.search(state, SearchBudget(max_visits=1000)).visits
    search.clear()
    full = search.search(state, SearchBudget(max_visits=1000, banks_time=False)).visits
    assert early < 1000 and full == 1000, (early, full)


@pytest.mark.parametrize("tree", ["compiled", "python"])
def test_a_search_runs_past_its_deadline_only_while_the_best_move_is_unsure(tree: str) -> None:
    """``SearchBudget.unsure_deadline``: past ``deadline`` the search goes on while the best move
    leads the second by less than ``unsure_visit_ratio`` in visits; never in self-play, and never
    past the visit limit or the stop event."""
    state = _midgame(9, 3)

    def visits(ratio: float | None, self_play: bool = False) -> int:
        settings = SearchSettings(batch_size=8, pipeline=False)
        if tree == "compiled":
            search = CompiledPUCTSearch(EncodedProjectionEvaluator(9), settings)
        else:
            search = PUCTSearch(ProjectionEvaluator(9), settings)
        now = time.monotonic()
        budget = SearchBudget(max_visits=600, deadline=now - 1.0)  # the deadline has passed
        if ratio is not None:
            budget.unsure_deadline, budget.unsure_visit_ratio = now + 600.0, ratio
        return search.search(state, budget, self_play=self_play).visits

    assert visits(None) < 100  # no extension: one batch past the deadline
    assert visits(1e9) == 600  # always unsure: on to the visit limit
    assert visits(1.0) < 100  # never unsure
    assert visits(1e9, self_play=True) < 100
    assert best_move_unsure(np.array([10.0, 6.0, 1.0]), 2.0) and not best_move_unsure(np.array([13.0, 6.0]), 2.0)
    assert not best_move_unsure(np.array([5.0]), 2.0)
    stopped = SearchBudget(max_visits=600, deadline=0.0, unsure_deadline=time.monotonic() + 600.0)
    stopped.stop = threading.Event()
    stopped.stop.set()
    assert not stopped.may_run_on(10)


def test_root_priors_are_the_networks_policy_over_the_root_moves():
    agent = PUCTAgent(EncodedProjectionEvaluator(9), batch_size=8, seed=3)
    assert agent.tree.root_priors() is None  # no search yet
    agent.tree.search(GameState.new_game(9), SearchBudget(max_visits=32))
    priors = agent.tree.root_priors()
    assert priors.shape == (82,) and priors.sum() == pytest.approx(1.0, abs=1e-5)
    visited = np.flatnonzero(agent.tree.last_statistics.visit_counts)
    assert set(visited) <= set(np.flatnonzero(priors))
