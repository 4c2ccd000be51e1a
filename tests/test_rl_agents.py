"""The agents of book chapters 10-12 and their training targets, on 5x5 boards with tiny networks."""

from __future__ import annotations

import numpy as np
import pytest

from dlgo.agent.helpers import is_point_an_eye
from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.rl.base import clip_probs, one_hot_actions
from dlgo.rl.experience import ExperienceBuffer, ExperienceCollector
from dlgo.rl.policy import POLICY_CLIP, policy_gradient_targets
from dlgo.rl.value import value_targets

pytest.importorskip("keras")

from dlgo.rl.agents import load_rl_agent, new_agent  # noqa: E402

SIZE = 5


def eye_corner_state() -> GameState:
    """Black to play; (1, 1) is Black's eye."""
    board = Board(SIZE, SIZE)
    for p in (Point(1, 2), Point(2, 1), Point(2, 2), Point(3, 1), Point(3, 2), Point(1, 3), Point(2, 3)):
        board.place_stone(Player.black, p)
    return GameState.from_position(board, Player.black, 7.5)


def only_eyes_state() -> GameState:
    """Every empty point is one of Black's eyes: Black has no sensible play."""
    board = Board(SIZE, SIZE)
    eyes = {Point(1, 1), Point(3, 3), Point(5, 5), Point(1, 5), Point(5, 1)}
    for row in range(1, SIZE + 1):
        for col in range(1, SIZE + 1):
            if Point(row, col) not in eyes:
                board.place_stone(Player.black, Point(row, col))
    return GameState.from_position(board, Player.black, 7.5)


def test_clip_probs_keeps_every_move_possible_and_none_certain() -> None:
    p = clip_probs(np.array([1.0] + [0.0] * 24), POLICY_CLIP)
    assert p.sum() == pytest.approx(1.0)
    assert p.min() > 0 and p.max() < 1
    assert p[1] == pytest.approx(POLICY_CLIP / (1 - POLICY_CLIP + 24 * POLICY_CLIP))


def test_policy_gradient_target_is_the_reward_at_the_move() -> None:
    buf = ExperienceBuffer(np.zeros((3, SIZE, SIZE, 11)), [4, 0, 4], [1, -1, -1], [0.5, 0.25, -2])
    target = policy_gradient_targets(buf, 25)
    expected = np.zeros((3, 25))
    expected[0, 4], expected[1, 0], expected[2, 4] = 1, -1, -1
    assert np.array_equal(target, expected)
    with_advantage = policy_gradient_targets(buf, 25, use_advantage=True)
    assert with_advantage[0, 4] == 0.5 and with_advantage[1, 0] == 0.25 and with_advantage[2, 4] == -2


def test_value_targets_are_plus_minus_one_not_zero_one() -> None:
    buf = ExperienceBuffer(np.zeros((3, SIZE, SIZE, 11)), [0, 1, 2], [1, -1, 0])
    assert value_targets(buf).tolist() == [1.0, -1.0, 0.0]


@pytest.fixture(scope="module")
def agents():
    return {kind: new_agent(kind, SIZE, width=8, seed=3) for kind in ("pg", "q", "ac", "value")}


@pytest.mark.parametrize("kind", ["pg", "q", "ac", "value"])
def test_never_fills_its_own_eye_and_records_what_it_played(agents, kind) -> None:
    agent = agents[kind]
    state = eye_corner_state()
    assert is_point_an_eye(state.board, Point(1, 1), Player.black)
    collector = ExperienceCollector()
    agent.set_collector(collector)
    collector.begin_episode()
    for seed in range(5):
        agent.seed(seed)
        move = agent.select_move(state)
        assert move.is_play and move.point != Point(1, 1) and state.is_valid_move(move)
    collector.complete_episode(1)
    agent.set_collector(None)
    assert len(collector) == 5 and all(a != 0 for a in collector.actions)  # index 0 is the eye (1, 1)
    assert collector.states[0].shape == (SIZE, SIZE, 11)


@pytest.mark.parametrize("kind", ["pg", "q", "ac", "value"])
def test_passes_when_only_its_eyes_are_left(agents, kind) -> None:
    assert agents[kind].select_move(only_eyes_state()) == Move.pass_turn()


def _repeat(state: np.ndarray, n: int) -> np.ndarray:
    return np.repeat(state[None], n, axis=0)


def test_policy_gradient_makes_won_moves_likelier_and_lost_moves_rarer() -> None:
    agent = new_agent("pg", SIZE, width=8, seed=1)
    state = GameState.new_game(SIZE)
    x = agent.encoder.encode(state)
    before = agent.predict(state)
    buf = ExperienceBuffer(_repeat(x, 64), [12] * 32 + [6] * 32, [1.0] * 32 + [-1.0] * 32)
    agent.train(buf, lr=0.05, batch_size=16)
    after = agent.predict(state)
    assert after[12] > before[12] and after[6] < before[6]


def test_policy_gradient_with_a_baseline_follows_the_advantage_not_the_reward() -> None:
    """Won games whose moves the baseline expected to win by more: their advantage is negative."""
    agent = new_agent("pg", SIZE, width=8, seed=1)
    state = GameState.new_game(SIZE)
    x = agent.encoder.encode(state)
    before = agent.predict(state)
    buf = ExperienceBuffer(_repeat(x, 64), [12] * 32 + [6] * 32, [1.0] * 64, [-0.5] * 32 + [0.5] * 32)
    agent.train(buf, lr=0.05, batch_size=16, use_advantage=True)
    after = agent.predict(state)
    assert after[12] < before[12] and after[6] > before[6]


def test_q_network_has_board_and_action_inputs_and_learns_the_reward() -> None:
    agent = new_agent("q", SIZE, width=8, seed=1)
    assert [tuple(i.shape[1:]) for i in agent.model.inputs] == [(SIZE, SIZE, 11), (25,)]
    state = GameState.new_game(SIZE)
    x = agent.encoder.encode(state)
    buf = ExperienceBuffer(_repeat(x, 64), [12] * 32 + [6] * 32, [1.0] * 32 + [-1.0] * 32)
    for _ in range(5):
        agent.train(buf, lr=0.1, batch_size=16)
    values = agent.action_values(state, [12, 6])
    assert values[0] > 0.3 and values[1] < -0.3
    agent.set_temperature(0.0)
    assert agent.select_move(state) == Move.play(agent.encoder.decode_point_index(12))  # greedy


def test_q_values_of_all_moves_from_one_trunk_pass_equal_the_two_input_network() -> None:
    agent = new_agent("q", SIZE, width=8, seed=2)
    state = GameState.new_game(SIZE).apply_move(Move.play(Point(3, 3))).apply_move(Move.play(Point(2, 3)))
    points = [agent.encoder.encode_point(m.point) for m in state.legal_moves() if m.is_play]
    factored = agent.action_values(state, points)
    assert agent._head is not None  # the one-pass path was taken
    board = np.repeat(agent.encoder.encode(state)[None], len(points), axis=0)
    direct = agent.model([board, one_hot_actions(np.array(points), SIZE * SIZE)], training=False)
    np.testing.assert_allclose(factored, np.asarray(direct).reshape(-1), atol=1e-5)
    assert np.ptp(factored) > 0  # the moves get different values, so the check means something


def test_actor_critic_advantage_and_loss_weights() -> None:
    agent = new_agent("ac", SIZE, width=8, seed=1)
    state = GameState.new_game(SIZE)
    collector = ExperienceCollector()
    agent.set_collector(collector)
    collector.begin_episode()
    agent.select_move(state)
    value = agent.evaluate(state)[1]
    collector.complete_episode(reward=-1)
    assert collector.advantages[0] == pytest.approx(-1 - value, abs=1e-5)
    x = agent.encoder.encode(state)
    buf = ExperienceBuffer(_repeat(x, 32), [12] * 32, [1.0] * 32, [0.5] * 32)
    losses = agent.train(buf, lr=0.0, batch_size=32)  # lr 0: the loss of the weights as they are
    assert losses["loss"] == pytest.approx(1.0 * losses["policy_loss"] + 0.5 * losses["value_loss"], rel=1e-4)


def test_value_agent_learns_plus_minus_one_and_plays_the_move_that_hurts_the_opponent() -> None:
    agent = new_agent("value", SIZE, width=8, seed=1)
    assert agent.model.layers[-1].activation.__name__ == "tanh"
    state = GameState.new_game(SIZE)
    good, bad = state.apply_move(Move.play(Point(3, 3))), state.apply_move(Move.play(Point(1, 1)))
    # White to move after each: after Black's centre play White loses (-1), after the corner White wins (+1)
    x = agent.encoder.encode_batch([good, bad] * 32)
    buf = ExperienceBuffer(x, [0] * 64, [-1.0, 1.0] * 32)
    for _ in range(10):
        agent.train(buf, lr=0.1, batch_size=16)
    values = agent.evaluate([good, bad])
    assert values[0] < -0.3 and values[1] > 0.3
    scores = -agent.evaluate([state.apply_move(Move.play(Point(3, 3))), state.apply_move(Move.play(Point(1, 1)))])
    assert scores[0] > scores[1]


@pytest.mark.parametrize("kind", ["pg", "q", "ac", "value"])
def test_save_and_load_with_a_model_card(agents, kind, tmp_path) -> None:
    from dlgo.inference import read_card

    agent = agents[kind]
    path = agent.serialize(tmp_path / f"{kind}.keras", notes="test")
    card = read_card(path)
    assert card.extra["rl_agent"] == kind and card.encoder == "simple" and card.board_sizes == [SIZE]
    loaded = load_rl_agent(path)
    assert type(loaded) is type(agent)
    state = GameState.new_game(SIZE).apply_move(Move.play(Point(2, 2)))
    x = agent.encoder.encode(state)[None]
    if kind == "q":
        inputs = [np.repeat(x, 3, 0), one_hot_actions(np.array([0, 5, 9]), 25)]
        assert np.allclose(loaded._predict(inputs)[0], agent._predict(inputs)[0], atol=1e-5)
        # the same card as one-input networks, its second input named; the engine's loader refuses it
        from dlgo.inference import ModelFileError, load_model

        assert card.heads == ["value"] and card.input_shape == [SIZE, SIZE, 11]
        assert card.network["inputs"] == ["board", "action"]
        with pytest.raises(ModelFileError, match="several inputs"):
            load_model(path)
    else:
        for a, b in zip(loaded._predict(x), agent._predict(x)):
            assert np.allclose(a, b, atol=1e-5)


def test_the_registry_builds_each_agent_from_its_config(agents, tmp_path) -> None:
    from dlgo import agent_registry as registry

    paths = {kind: agents[kind].serialize(tmp_path / f"{kind}.keras") for kind in agents}
    for kind, path in paths.items():
        agent = registry.build_agent(kind, {"model": str(path), "temperature": 0.1, "seed": 4}, SIZE)
        assert agent.kind == kind and agent.temperature == 0.1
        assert agent.select_move(GameState.new_game(SIZE)).is_play
    with pytest.raises(Exception, match="not 'q'"):
        registry.build_agent("q", {"model": str(paths["pg"])}, SIZE)
    with pytest.raises(Exception, match="not 7x7"):
        registry.build_agent("pg", {"model": str(paths["pg"])}, 7)
    with pytest.raises(registry.AgentUnavailable):
        registry.build_agent("ac", {"model": str(tmp_path / "missing.keras")}, SIZE)


@pytest.mark.parametrize("kind", ["pg", "ac"])
def test_conv_trunk_policy_is_one_convolution_per_point(kind) -> None:
    """The ``conv`` trunk's policy has no per-point weights: the same parameters on every board
    size, and a probability for every point."""
    small = new_agent(kind, SIZE, trunk="conv", width=8, seed=1)
    state = GameState.new_game(SIZE).apply_move(Move.play(Point(2, 2)))
    probs = small._predict(small.encoder.encode(state)[None])[0][0]
    assert probs.shape == (SIZE * SIZE,) and abs(float(probs.sum()) - 1.0) < 1e-5
    if kind == "pg":
        assert small.model.count_params() == new_agent(kind, 9, trunk="conv", width=8).model.count_params()
    assert isinstance(small.select_move(state), Move)


def test_a_lost_move_is_pushed_down_to_the_sampling_floor_and_no_further(tmp_path) -> None:
    """Keras' cross-entropy of a softmax works on the logits and has no floor: a lost game's move
    would be pushed towards log p = -inf. The policy loss stops at the agents' sampling clip."""
    from dlgo.rl.policy import PolicyAgent

    agent = new_agent("pg", SIZE, width=8, seed=3)
    x = agent.encoder.encode(GameState.new_game(SIZE))
    buf = ExperienceBuffer(_repeat(x, 64), [7] * 64, [-1.0] * 64)
    losses = [agent.train(buf, lr=5.0, clipnorm=None, batch_size=8)["loss"] for _ in range(8)]
    assert min(losses) >= np.log(POLICY_CLIP) - 1e-3  # -sum(-1 * log(max(p, floor))) >= log(floor)
    assert losses[-1] < losses[0]  # it did push the move down
    probs = agent.predict(GameState.new_game(SIZE))
    assert np.all(np.isfinite(probs)) and probs[7] < 1e-3
    agent.serialize(tmp_path / "pg.keras")  # a model compiled with this loss saves and loads
    assert isinstance(load_rl_agent(tmp_path / "pg.keras"), PolicyAgent)
