"""The value network (book 13.3): one position per self-play game of the RL policy.

Successive positions of one game are nearly the same board with the same result: trained on all
of them a value network learns the games by heart (AlphaGo's paper measured exactly that
overfitting). So each self-play game of the RL policy gives one position, drawn uniformly from
the positions of the game, labelled with the game's result for the player to move there (+1
win, -1 loss: the book's code trained {0, 1} against a tanh output, a defect fixed here).

Positions are encoded with the ``alphago_value`` encoder (the 48 AlphaGo planes plus the
player-to-move plane) and written per task of ``games_per_task`` games as HDF5 files in the
book's layout (``states``, ``actions`` = the move played there, ``rewards``), resumable like all
self-play here. Every ``held_out_every``-th task is held out; the AlphaGo value network
(``dlgo.networks.alphago.value_network`` at ``filters`` width, tanh head) is trained by Adam on
the others with mean squared error and saved as a ``ValueAgent`` file with its card, which holds
the held-out MSE (an always-0 guess scores 1.0).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dlgo.alphago.pipeline.config import PipelineConfig
from dlgo.alphago.pipeline.stages import Stage, run_tasks
from dlgo.parallel import task_seed

__all__ = ["ValueTask", "play_value_task", "run_value", "position_of_game"]


@dataclass(frozen=True)
class ValueTask:
    index: int
    games: int
    policy: str
    board_size: int
    komi: float
    seed: int
    out: str


def position_of_game(record, rng: np.random.Generator):
    """(state, move index or -1 for a pass, reward for the player to move) at a uniformly drawn
    position of ``record`` (a ``dlgo.match.record.GameRecord``)."""
    from dlgo.goboard import GameState, Move
    from dlgo.gotypes import Player
    from dlgo.utils import point_from_coords

    moves = record.moves
    k = int(rng.integers(len(moves))) if moves else 0
    state = GameState.new_game(record.size, komi=record.komi)
    for _, text in moves[:k]:
        state = state.apply_move(Move.pass_turn() if text.lower() == "pass" else Move.play(point_from_coords(text)))
    mover = "B" if state.next_player == Player.black else "W"
    reward = 0.0 if record.winner is None else (1.0 if record.winner == mover else -1.0)
    action = -1
    if k < len(moves) and moves[k][1].lower() != "pass":
        point = point_from_coords(moves[k][1])
        action = (point.row - 1) * record.size + point.col - 1
    return state, action, reward


def play_value_task(task: ValueTask) -> dict:
    """Self-play games of the RL policy, one position each; the task's experience file last."""
    from dlgo.encoders import get_encoder_by_name
    from dlgo.rl.agents import load_rl_agent
    from dlgo.rl.experience import ExperienceBuffer, write_experience
    from dlgo.rl.simulate import simulate_game

    rng = np.random.default_rng(task.seed)
    black = load_rl_agent(task.policy, task.board_size)
    white = load_rl_agent(task.policy, task.board_size)
    encoder = get_encoder_by_name("alphago_value", task.board_size)
    states, actions, rewards = [], [], []
    for g in range(task.games):
        black.seed(int(rng.integers(2**31)))
        white.seed(int(rng.integers(2**31)))
        record = simulate_game(black, white, task.board_size, komi=task.komi, index=task.index * 1000 + g)
        state, action, reward = position_of_game(record, rng)
        states.append(encoder.encode(state))
        actions.append(action)
        rewards.append(reward)
    buffer = ExperienceBuffer(np.stack(states), np.array(actions), np.array(rewards))
    write_experience(buffer, Path(task.out) / f"task-{task.index:05d}.h5")
    return {"index": task.index, "games": task.games}


def _play(config: PipelineConfig, policy: str, out: Path, progress: bool) -> list[Path]:
    s = config.value
    per = max(1, s.games_per_task)
    counts = [min(per, s.games - start) for start in range(0, s.games, per)]
    files = [out / f"task-{t:05d}.h5" for t in range(len(counts))]
    tasks = [
        ValueTask(t, n, policy, config.board_size, config.komi, task_seed(config.seed, 7, t), str(out))
        for t, n in enumerate(counts)
        if not files[t].exists()
    ]
    done = s.games - sum(t.games for t in tasks)
    run_tasks(play_value_task, tasks, config.workers, s.games, done, "value self-play", progress)
    return files


def _load(files: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    from dlgo.rl.experience import iter_experience

    xs, ys = [], []
    for buf in iter_experience(files, 100_000):
        xs.append(buf.states.astype(np.float32))
        ys.append(np.sign(buf.rewards).astype(np.float32))
    return np.concatenate(xs), np.concatenate(ys)


def run_value(config: PipelineConfig, rl_policy: str, progress: bool = True) -> dict[str, str]:
    """Self-play positions and the trained value network ``value.keras`` (held-out MSE on its card)."""
    stage = Stage(config, "value", {"rl_policy": Path(rl_policy)})
    if (outputs := stage.done()) is not None:
        return outputs
    stage.begin()
    s = config.value
    files = _play(config, rl_policy, stage.dir / "positions", progress)
    held = [f for t, f in enumerate(files) if t % s.held_out_every == s.held_out_every - 1]
    train = [f for f in files if f not in held]
    if not held or not train:
        raise ValueError("value: too few tasks to hold some out (raise games or lower held_out_every)")
    x, y = _load(train)
    x_val, y_val = _load(held)

    import keras

    from dlgo.encoders import get_encoder_by_name
    from dlgo.networks.alphago import value_network
    from dlgo.rl.value import ValueAgent

    keras.utils.set_random_seed(config.seed)
    encoder = get_encoder_by_name("alphago_value", config.board_size)
    model = value_network(encoder.shape(), num_filters=s.filters)
    model.compile(optimizer=keras.optimizers.Adam(s.lr), loss="mse")
    best = keras.callbacks.ModelCheckpoint(str(stage.dir / "best.weights.h5"), save_best_only=True,
                                           save_weights_only=True)  # fmt: skip
    history = model.fit(x, y, batch_size=s.batch_size, epochs=s.epochs, validation_data=(x_val, y_val),
                        callbacks=[best], verbose=2 if progress else 0)  # fmt: skip
    model.load_weights(stage.dir / "best.weights.h5")  # the epoch with the lowest held-out MSE
    held_mse = float(np.mean((model.predict(x_val, verbose=0).reshape(-1) - y_val) ** 2))
    train_mse = float(np.mean((model.predict(x, verbose=0).reshape(-1) - y) ** 2))
    metrics = {
        "held_out_mse": round(held_mse, 4),
        "train_mse": round(train_mse, 4),
        "train_positions": int(len(y)),
        "held_out_positions": int(len(y_val)),
        "always_zero_mse": round(float(np.mean(y_val**2)), 4),
        "history": {k: [round(float(v), 4) for v in vals] for k, vals in history.history.items()},
    }
    ValueAgent(model, encoder).serialize(
        stage.dir / "value.keras",
        training={"command": "python -m dlgo.alphago.pipeline value", "games": s.games, "rl_policy": rl_policy},
        metrics={k: v for k, v in metrics.items() if k != "history"},
        notes="AlphaGo value network (book 13.3): one position per RL self-play game, tanh, +-1 targets",
    )
    (stage.dir / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n", encoding="utf-8")
    os.remove(stage.dir / "best.weights.h5")
    print(f"pipeline: value held-out MSE {held_mse:.4f} on {len(y_val)} positions", file=sys.stderr)
    return stage.finish({"value": "value.keras"}, {k: v for k, v in metrics.items() if k != "history"})
