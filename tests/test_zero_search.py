"""PUCT search (dlgo.search) and the Zero agent (dlgo.zero): PUCT arithmetic, signs, finished games,
budgets, and analysis through the GTP engine on a tiny network."""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest
from conftest import position

from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.search import (
    PUCTSearch,
    SearchBudget,
    SearchSettings,
    ZeroTreeNode,
    dirichlet_alpha,
    puct_scores,
    terminal_value,
    visit_distribution,
)
from dlgo.search.zero_agent import ZeroAgent

# --- fake evaluators: deterministic priors and values ---------------------------------------------


class HashEvaluator:
    """Priors and value drawn from a generator seeded by the position (same position, same answer)."""

    def __init__(self, sharpness: float = 1.0, delay: float = 0.0) -> None:
        self.sharpness = sharpness
        self.delay = delay
        self.calls = 0
        self.positions = 0

    def evaluate(self, states):
        self.calls += 1
        self.positions += len(states)
        if self.delay:
            time.sleep(self.delay * len(states))
        size = states[0].board.num_rows * states[0].board.num_cols + 1
        policies, values = [], []
        for s in states:
            rng = np.random.default_rng(s.situation_hash() & 0xFFFFFFFF)
            logits = rng.normal(size=size) * self.sharpness
            p = np.exp(logits - logits.max())
            policies.append(p / p.sum())
            values.append(rng.uniform(-0.6, 0.6))
        return np.array(policies), np.array(values)


class MaterialEvaluator:
    """Uniform priors; value = tanh(0.3 * (own stones - opponent stones)) for the player to move."""

    def evaluate(self, states):
        size = states[0].board.num_rows * states[0].board.num_cols + 1
        values = []
        for s in states:
            stones = [c for _, c in s.board.stones()]
            own = sum(1 for c in stones if c is s.next_player)
            values.append(math.tanh(0.3 * (own - (len(stones) - own))))
        return np.full((len(states), size), 1.0 / size), np.array(values)


class ConstantEvaluator:
    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def evaluate(self, states):
        size = states[0].board.num_rows * states[0].board.num_cols + 1
        return np.full((len(states), size), 1.0 / size), np.full(len(states), self.value)


def check_tree(node: ZeroTreeNode) -> int:
    """Every branch's W and n equal its child's totals with the sign flipped; returns nodes seen."""
    seen = 1
    for pos, child in node.children.items():
        n, w = node.visits[pos], node.total_values[pos]
        if child.terminal:
            assert w == pytest.approx(-n * child.value)
            continue
        child_n = 1 + child.total_visits
        child_w = child.value + (child.total_values.sum() if child.total_values is not None else 0.0)
        assert n == child_n
        assert w == pytest.approx(-child_w)
        seen += check_tree(child)
    if node.visits is not None:
        assert node.total_visits == node.visits.sum()
        assert all(pos in node.children for pos in np.flatnonzero(node.visits))
    return seen


# --- PUCT ------------------------------------------------------------------------------------------


def test_puct_matches_the_books_worked_example():
    """Book table 14.2: A (Q 0.1, n 2, P 0.068), B (Q -0.5, n 1, P 0.042), C (n 0, P 0.038), N 3."""
    priors = np.array([0.068, 0.042, 0.038])
    visits = np.array([2.0, 1.0, 0.0])
    total_values = np.array([0.2, -0.5, 0.0])
    q = np.array([0.1, -0.5, 0.0])
    exploration = puct_scores(priors, visits, total_values, 1.0) - q
    assert exploration == pytest.approx([0.039, 0.036, 0.065], abs=1e-3)  # the book truncates
    c1 = puct_scores(priors, visits, total_values, 1.0)
    assert int(np.argmax(c1)) == 0 and c1[0] == pytest.approx(0.139, abs=5e-4)
    c4 = puct_scores(priors, visits, total_values, 4.0)
    assert int(np.argmax(c4)) == 2
    assert c4[2] == pytest.approx(0.263, abs=5e-3) and c4[0] == pytest.approx(0.257, abs=5e-3)

    node = ZeroTreeNode(None, 0.0, np.array([0, 1, 2], np.int16), priors.astype(np.float32), False)
    node.ensure_stats()
    node.visits[:] = visits
    node.total_values[:] = total_values
    node.total_visits = 3.0
    assert node.select_branch(1.0) == 0
    assert node.select_branch(4.0) == 2


def test_unvisited_node_follows_the_priors():
    node = ZeroTreeNode(None, 0.0, np.arange(4, dtype=np.int16), np.array([0.1, 0.5, 0.3, 0.1], np.float32), False)
    assert node.select_branch(2.0) == 1


# --- signs and finished games ---------------------------------------------------------------------


def test_sign_flips_every_ply_and_the_capture_is_found():
    # White's three stones on the first line have one liberty left (D1): Black takes them.
    state = position(5, [(2, 1), (2, 2), (2, 3), (3, 4)], [(1, 1), (1, 2), (1, 3)], Player.black)
    agent = ZeroAgent(MaterialEvaluator(), batch_size=8, seed=1)
    result = agent.search(state, SearchBudget(max_visits=400))
    assert result.best.move == Move.play(Point(1, 4))
    assert result.best.winrate > 0.7
    assert check_tree(agent.tree.root) > 50


def test_terminal_value_is_the_exact_area_count():
    # Black owns columns 1-3 (15 points), White columns 4-5 (10): komi decides.
    black = [(r, 3) for r in range(1, 6)]
    white = [(r, 4) for r in range(1, 6)]
    for komi, black_wins in ((0.5, True), (7.5, False)):
        state = position(5, black, white, Player.white, komi).apply_move(Move.pass_turn())
        end = state.apply_move(Move.pass_turn())
        assert end.is_over()
        # White is to move in the finished game.
        assert terminal_value(end) == (-1.0 if black_wins else 1.0)


@pytest.mark.parametrize("komi, pass_wins", [(0.5, True), (7.5, False)])
def test_passing_after_a_pass_is_scored_exactly(komi, pass_wins):
    black = [(r, 3) for r in range(1, 6)]
    white = [(r, 4) for r in range(1, 6)]
    state = position(5, black, white, Player.white, komi).apply_move(Move.pass_turn())
    agent = ZeroAgent(ConstantEvaluator(0.0), batch_size=4, seed=2)
    result = agent.search(state, SearchBudget(max_visits=300))
    by_move = {c.move: c for c in result.candidates}
    pass_info = by_move[Move.pass_turn()]
    assert pass_info.winrate == (1.0 if pass_wins else 0.0)
    if pass_wins:
        assert result.best.move.is_pass
    else:
        assert not result.best.move.is_pass
    check_tree(agent.tree.root)


def test_finished_game_gives_an_empty_result():
    state = GameState.new_game(5).apply_move(Move.pass_turn()).apply_move(Move.pass_turn())
    result = ZeroAgent(ConstantEvaluator()).search(state, SearchBudget(max_visits=10))
    assert result.candidates == [] and result.visits == 0


# --- tree reuse -----------------------------------------------------------------------------------


def test_tree_reuse_keeps_the_subtree_of_both_moves():
    agent = ZeroAgent(HashEvaluator(), batch_size=8, early_stop=False, seed=3)
    state = GameState.new_game(7)
    first = agent.search(state, SearchBudget(max_visits=600))
    ours = first.best
    after_ours = state.apply_move(ours.move)
    reused = agent.search(after_ours, SearchBudget(max_visits=1))
    assert reused.visits == ours.visits  # nothing new searched: the subtree was there
    reply = reused.best
    after_reply = after_ours.apply_move(reply.move)
    again = agent.search(after_reply, SearchBudget(max_visits=1))
    assert again.visits == reply.visits > 1
    more = agent.search(after_reply, SearchBudget(max_visits=reply.visits + 50))
    assert more.visits == reply.visits + 50
    check_tree(agent.tree.root)


def test_no_reuse_for_an_unrelated_position_or_when_off():
    agent = ZeroAgent(HashEvaluator(), batch_size=8, seed=4)
    agent.search(GameState.new_game(7), SearchBudget(max_visits=200))
    other = GameState.new_game(7).apply_move(Move.play(Point(1, 1)))
    other = other.apply_move(Move.play(Point(7, 7)))
    result = agent.search(other.apply_move(Move.play(Point(4, 4))), SearchBudget(max_visits=1))
    assert result.visits == 1
    off = ZeroAgent(HashEvaluator(), batch_size=8, reuse_tree=False, seed=4)
    state = GameState.new_game(7)
    best = off.search(state, SearchBudget(max_visits=200)).best
    assert off.search(state.apply_move(best.move), SearchBudget(max_visits=1)).visits == 1
    # An empty board of another size has the same hash: still a different game.
    assert agent.search(GameState.new_game(5), SearchBudget(max_visits=1)).visits == 1


# --- self-play mode -------------------------------------------------------------------------------


def test_noise_only_in_self_play_mode():
    state = GameState.new_game(7)
    evaluator = HashEvaluator()
    clean = ZeroTreeNode.from_evaluation(state, *[a[0] for a in evaluator.evaluate([state])])

    competitive = ZeroAgent(evaluator, seed=5)
    result = competitive.search(state, SearchBudget(max_visits=50))
    assert np.array_equal(competitive.tree.root.priors, clean.priors)
    assert competitive.tree.root.network_priors is None

    selfplay = ZeroAgent(evaluator, self_play=True, seed=5)
    result = selfplay.search(state, SearchBudget(max_visits=50))
    root = selfplay.tree.root
    assert not np.allclose(root.priors, clean.priors)
    assert root.priors.sum() == pytest.approx(1.0, abs=1e-5)
    assert np.array_equal(root.network_priors, clean.priors)
    # Reported priors are the network's, not the noisy ones.
    by_index = dict(zip(root.moves.tolist(), clean.priors.tolist()))
    for c in result.candidates:
        index = 7 * (c.move.point.row - 1) + c.move.point.col - 1 if c.move.is_play else 49
        assert c.prior == pytest.approx(by_index[index])
    # Back in competitive use the clean priors return.
    selfplay.self_play = False
    selfplay.search(state, SearchBudget(max_visits=60))
    assert np.array_equal(selfplay.tree.root.priors, clean.priors)
    assert dirichlet_alpha(50) == 0.2 and dirichlet_alpha(5) == 1.0


def test_self_play_temperature_and_statistics():
    agent = ZeroAgent(HashEvaluator(sharpness=0.3), rounds_per_move=64, self_play=True, temperature_moves=2, seed=6)
    state = GameState.new_game(5)
    assert agent.temperature(state) == 1.0
    moves = {agent.select_move(state) for _ in range(12)}
    assert len(moves) > 1  # sampled from the visit counts
    stats = agent.last_statistics
    assert stats.visit_counts.shape == (26,)
    assert stats.visit_counts.sum() == stats.visits - 1 >= 63
    assert -1.0 <= stats.root_value <= 1.0 and -1.0 <= stats.best_value <= 1.0
    assert stats.distribution().sum() == pytest.approx(1.0)
    later = state.apply_move(Move.play(Point(3, 3))).apply_move(Move.play(Point(2, 2)))
    assert agent.temperature(later) == 0.0
    assert ZeroAgent(HashEvaluator()).temperature(state) == 0.0
    assert visit_distribution(np.array([1.0, 3.0]), 0.0).tolist() == [0.0, 1.0]


def test_self_play_does_not_stop_early():
    agent = ZeroAgent(HashEvaluator(sharpness=4.0), self_play=True, seed=7)
    assert agent.search(GameState.new_game(5), SearchBudget(max_visits=300)).visits == 300


# --- batching -------------------------------------------------------------------------------------


def test_batched_search_visits_like_unbatched():
    state = GameState.new_game(7)
    dists = {}
    for batch in (1, 16):
        evaluator = HashEvaluator(sharpness=1.5)
        agent = ZeroAgent(evaluator, batch_size=batch, early_stop=False, seed=8)
        agent.search(state, SearchBudget(max_visits=1200))
        dists[batch] = agent.last_statistics.distribution()
        check_tree(agent.tree.root)
        if batch > 1:
            assert evaluator.positions / evaluator.calls > 8  # leaves really went in batches
    tv = 0.5 * np.abs(dists[1] - dists[16]).sum()
    assert tv < 0.15, tv
    assert int(np.argmax(dists[16])) in np.argsort(dists[1])[-2:]


def test_virtual_losses_are_gone_after_a_failed_evaluation():
    class Failing(HashEvaluator):
        def evaluate(self, states):
            if len(states) > 1:
                raise RuntimeError("boom")
            return super().evaluate(states)

    search = PUCTSearch(Failing(), SearchSettings(batch_size=8))
    with pytest.raises(RuntimeError):
        search.search(GameState.new_game(5), SearchBudget(max_visits=100))
    check_tree(search.root)


# --- budgets ------------------------------------------------------------------------------------


def test_time_budget_and_stop_event():
    agent = ZeroAgent(HashEvaluator(delay=0.002), batch_size=8, seed=9)
    start = time.monotonic()
    result = agent.search(GameState.new_game(7), SearchBudget(max_seconds=0.4))
    elapsed = time.monotonic() - start
    # Upper bounds generous: the point is that the search stops at all, on a loaded machine too.
    assert 0.3 < elapsed < 5.0 and result.visits > 20

    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    start = time.monotonic()
    agent.clear_tree()
    agent.search(GameState.new_game(7), SearchBudget(stop=stop))  # no other limit: only the event ends it
    assert time.monotonic() - start < 5.0


def test_early_stop_when_the_best_move_cannot_be_overtaken():
    agent = ZeroAgent(HashEvaluator(sharpness=6.0), batch_size=8, seed=10)
    result = agent.search(GameState.new_game(5), SearchBudget(max_visits=2000))
    assert result.visits < 2000
    first, second = result.candidates[0].visits, result.candidates[1].visits
    assert first - second > 2000 - result.visits


def test_progress_reports_and_candidates():
    reports = []
    agent = ZeroAgent(HashEvaluator(delay=0.001), batch_size=4, seed=11)
    result = agent.search(
        GameState.new_game(5), SearchBudget(max_seconds=0.5), on_progress=reports.append, progress_interval=0.1
    )
    assert len(reports) >= 2
    assert sum(c.visits for c in result.candidates) == result.visits - 1
    visits = [c.visits for c in result.candidates]
    assert visits == sorted(visits, reverse=True)
    for c in result.candidates:
        assert 0.0 <= c.lcb <= c.winrate <= 1.0 and 0.0 < c.prior < 1.0
        assert c.pv[0] == c.move


# --- a tiny real network, through the GTP engine ---------------------------------------------------


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A tiny untrained Zero network with its card (TensorFlow is slow to start: built once)."""
    pytest.importorskip("keras")
    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import save_model
    from dlgo.networks.zero import zero_model

    encoder = get_encoder_by_name("zero", 9)
    path = tmp_path_factory.mktemp("zero") / "tiny.keras"
    save_model(zero_model(encoder.num_planes, blocks=1, filters=8), path, encoder, [9])
    return path


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_agent_on_a_tiny_network(tiny_model):
    agent = ZeroAgent.from_model(tiny_model, board_size=9, rounds_per_move=48, batch_size=8, early_stop=False, seed=1)
    state = GameState.new_game(9)
    move = agent.select_move(state)
    assert state.is_valid_move(move)
    stats = agent.last_statistics
    assert stats.visit_counts.shape == (82,) and stats.visits >= 48
    assert 0 < agent.diagnostics()["evaluations"] <= stats.visits  # finished games need no network
    # The same network plays 5x5 too (fully convolutional).
    small = GameState.new_game(5)
    assert small.is_valid_move(agent.select_move(small))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_engine_plays_and_analyses_with_the_zero_agent(tiny_model):
    from gtp_client import InProcessEngine

    eng = InProcessEngine(
        "agent=zero",
        f"zero.model={tiny_model}",
        "zero.batch_size=4",
        "zero.rounds=40",
        "time.default_seconds=0",  # visits only: the first move waits for the agent to be built
        "engine.board_size=9",
        config=None,
    )
    try:
        move = eng.ok("genmove b")
        assert move and move != "resign"
        assert "visits" in eng.ok("gomill-explain_last_move")
        # lz-analyze streams info lines until the next input line arrives.
        threading.Timer(1.0, lambda: (eng._stdin_w.write(b"\n"), eng._stdin_w.flush())).start()
        raw = eng.ask_raw("lz-analyze w 20")
        lines = raw.split("\n")
        assert lines[0] == "="
        infos = [line for line in lines if line.startswith("info ")]
        assert infos, raw
        first = infos[-1].split(" info ")[0].split()
        fields = dict(zip(first[1 : first.index("pv") : 2], first[2 : first.index("pv") : 2]))
        assert int(fields["visits"]) > 0 and 0 <= int(fields["winrate"]) <= 10000
        assert 0 <= int(fields["prior"]) <= 10000 and fields["move"] == first[first.index("pv") + 1]
        assert raw.endswith("\n\n")
    finally:
        eng.close()


def test_missing_weights_are_named_at_the_first_genmove(tmp_path):
    from gtp_client import InProcessEngine

    missing = tmp_path / "nothing.keras"
    eng = InProcessEngine("agent=zero", f"zero.model={missing}", config=None)
    try:
        assert eng.ok("name") == "dlgo"
        error = eng.fail("genmove b")
        assert "model file" in error and "nothing.keras" in error and "not found" in error
    finally:
        eng.close()


@pytest.mark.parametrize("name, agent", [("zero-9x9", "zero"), ("zero-19x19", "zero"), ("alphago-19x19", "alphago")])
def test_shipped_network_configs_load(name, agent):
    from gtp_client import ROOT

    from dlgo.play.config import load_config

    config = load_config(str(ROOT / "configs" / "engine" / f"{name}.toml"))
    assert config.agent_name() == agent
    params = config.section(agent)
    required = {"zero": ["model"], "alphago": ["policy_model", "value_model"]}[agent]
    assert all(params[key] for key in required)
    for key, value in params.items():
        if key.endswith("model") and value:  # optional ones (alphago.rollout_model) may be empty
            assert value.startswith("../../weights/") and value.endswith(".keras")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_pondering_grows_the_tree_the_next_genmove_starts_from(tiny_model):
    from gtp_client import InProcessEngine

    eng = InProcessEngine(
        "agent=zero",
        f"zero.model={tiny_model}",
        "zero.rounds=30",
        "zero.batch_size=4",
        "engine.ponder=true",
        "engine.board_size=9",
        "time.default_seconds=0",  # visits only: the first move waits for the agent to be built
        config=None,
    )
    runner = threading.Thread(target=eng.engine.run, daemon=True)
    runner.start()

    def send(line: str) -> None:
        eng._stdin_w.write(line.encode() + b"\n")
        eng._stdin_w.flush()

    def wait_for(count: int, timeout: float = 60.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            responses = eng._out.getvalue().decode().split("\n\n")[:-1]
            if len(responses) >= count:
                return responses
            time.sleep(0.02)
        raise TimeoutError(eng._out.getvalue())

    try:
        send("genmove b")
        ours = wait_for(1)[0]
        assert ours.startswith("= ") and ours != "= resign"
        (agent,) = eng.engine.agents._agents.values()
        time.sleep(1.0)  # the opponent thinks; we ponder
        pondered = agent.tree.statistics()  # the compiled tree (zero.tree) or the Python one alike
        assert agent.tree.root_state is eng.engine.game.state and pondered.visits > 30
        reply = agent.tree.most_visited()
        index = 81 if reply.is_pass else 9 * (reply.point.row - 1) + reply.point.col - 1
        reply_visits = int(pondered.visit_counts[index])
        vertex = "pass" if reply.is_pass else "ABCDEFGHJ"[reply.point.col - 1] + str(reply.point.row)
        send(f"play w {vertex}")
        send("genmove b")
        responses = wait_for(3)
        assert responses[1] == "= " and responses[2].startswith("= ")  # play answers "= " (GNU Go framing)
        assert agent.last_result.visits >= max(reply_visits, 30) and reply_visits > 1  # the pondered subtree
    finally:
        send("quit")
        runner.join(10)
        eng.close()


def test_pipelined_search_with_a_single_move_does_not_spin():
    """White's only legal move is a pass: every descent reaches the one leaf already under
    evaluation, so the collected batch is empty; the search must finish the pending batch
    (it used to loop forever here)."""
    board = Board(2, 2)
    board.place_stone(Player.black, Point(1, 1))
    board.place_stone(Player.black, Point(2, 2))
    state = GameState.from_position(board, Player.white, komi=0.5)
    assert [m for m in state.legal_moves() if m.is_play] == []
    agent = ZeroAgent(HashEvaluator(delay=0.001), batch_size=8, pipeline=True, early_stop=False, seed=1)
    result = {}
    worker = threading.Thread(target=lambda: result.update(r=agent.search(state, SearchBudget(max_visits=40))))
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "the search spun on a batch of leaves already taken"
    assert result["r"].visits >= 40 and result["r"].candidates[0].move.is_pass
