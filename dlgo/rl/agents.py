"""Making and loading the agents of book chapters 9-12 by kind: "pg", "q", "ac", "value".

agent = new_agent("pg", board_size=9)                 # an untrained network (book 9.3.3)
agent.serialize("runs/pg/pg-0000.keras")              # .keras + model card
agent = load_rl_agent("runs/pg/pg-0000.keras")        # the card says which agent it is
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dlgo.encoders import get_encoder_by_name

if TYPE_CHECKING:
    from dlgo.rl.base import RLAgent

__all__ = ["AGENT_KINDS", "new_agent", "load_rl_agent", "agent_from_params", "agent_kind", "agent_class"]

AGENT_KINDS = ("pg", "q", "ac", "value")


def agent_class(kind: str) -> type[RLAgent]:
    if kind == "pg":
        from dlgo.rl.policy import PolicyAgent

        return PolicyAgent
    if kind == "q":
        from dlgo.rl.qlearning import QAgent

        return QAgent
    if kind == "ac":
        from dlgo.rl.actor_critic import ACAgent

        return ACAgent
    if kind == "value":
        from dlgo.rl.value import ValueAgent

        return ValueAgent
    raise ValueError(f"unknown agent kind {kind!r}; known: {', '.join(AGENT_KINDS)}")


def new_agent(
    kind: str,
    board_size: int,
    *,
    encoder: str = "simple",
    trunk: str = "tiny",
    width: int = 32,
    seed: int | None = None,
) -> RLAgent:
    """An agent of ``kind`` on a fresh network (the book starts from random weights, 9.3.3;
    its encoder was ``simple``, its trunk ``large``)."""
    from dlgo.rl import networks

    if seed is not None:
        import keras

        keras.utils.set_random_seed(seed)
    enc = get_encoder_by_name(encoder, board_size)
    build = {
        "pg": networks.policy_network,
        "q": networks.q_network,
        "ac": networks.actor_critic_network,
        "value": networks.value_network,
    }
    if kind not in build:
        raise ValueError(f"unknown agent kind {kind!r}; known: {', '.join(AGENT_KINDS)}")
    return agent_class(kind)(build[kind](enc, trunk, width), enc, seed=seed)


def agent_kind(path: str | os.PathLike) -> str:
    """The kind written on a model file's card (no Keras needed); ``ValueError`` if it has none."""
    from dlgo.inference.files import check_model_file

    card = check_model_file(path)
    kind = card.extra.get("rl_agent")
    if kind not in AGENT_KINDS:
        raise ValueError(f"{path}: not a model of book chapters 9-12 (its card has no rl_agent field)")
    return kind


def load_rl_agent(
    path: str | os.PathLike,
    board_size: int | None = None,
    *,
    kind: str | None = None,
    seed: int | None = None,
    backend: str = "auto",
) -> RLAgent:
    """The agent saved at ``path`` (its card names the kind; ``kind`` checks it)."""
    import keras

    from dlgo.inference.files import ModelFileError, check_model_file

    card = check_model_file(path)
    found = agent_kind(path)
    if kind is not None and found != kind:
        raise ModelFileError(f"{path}: a {found!r} model, not {kind!r}")
    size = card.board_sizes[0]
    if board_size is not None and board_size != size:
        raise ModelFileError(f"{path}: the model plays {size}x{size} only, not {board_size}x{board_size}")
    try:
        model = keras.saving.load_model(path, compile=False)
    except Exception as e:  # Keras raises many types for a bad file
        raise ModelFileError(f"{path}: cannot load the Keras model: {e}") from e
    return agent_class(found)(model, get_encoder_by_name(card.encoder, size), seed=seed, backend=backend)


def agent_from_params(params: Mapping[str, Any], board_size: int, *, kind: str) -> RLAgent:
    """The ``pg``, ``q``, ``ac`` or ``value`` agent kind (``kind``; ``dlgo.agent_registry``): its
    config table, every key given and the model file checked. Keras loads here."""
    agent = load_rl_agent(params["model"], board_size, kind=kind, seed=params["seed"])
    agent.set_temperature(float(params["temperature"]))
    return agent


def load_agent_spec(spec: str, board_size: int, seed: int | None = None) -> Any:
    """``random`` (the book's RandomBot) or the path of a saved agent: the players of a match."""
    if spec == "random":
        from dlgo.agent.naive import RandomBot

        return RandomBot(seed=seed)
    return load_rl_agent(spec, board_size, seed=seed)


def train_version(
    parent: str | os.PathLike,
    files: list[Path],
    out: str | os.PathLike,
    settings: dict[str, Any],
    command: str,
    chunk_size: int = 50_000,
) -> dict[str, Any]:
    """One training pass of the agent saved at ``parent`` over the experience ``files`` (book
    10.2, 11.2, 12.3), saved at ``out`` with its card (generation, parent, decisions, settings,
    seconds, losses). The card is in place before the model, so a model file is a whole version
    (a stopped run leaves at most a temporary file). Returns the card's training fields."""
    import time

    from dlgo.inference.card import card_path, read_card
    from dlgo.rl.experience import experience_size, iter_experience

    agent = load_rl_agent(parent)
    began = time.monotonic()
    losses = agent.train(iter_experience(files, chunk_size), **settings)
    training = {
        "command": command,
        "generation": int(read_card(parent).training.get("generation", 0)) + 1,
        "parent": Path(parent).name,
        "decisions": sum(experience_size(f) for f in files),
        "settings": settings,
        "seconds": round(time.monotonic() - began, 1),
        "losses": losses,
    }
    out = Path(out)
    tmp = out.with_name(f"{out.stem}.partial.keras")
    card_training = {k: v for k, v in training.items() if k != "losses"}
    agent.serialize(tmp, training=card_training, metrics={"train_losses": losses})
    os.replace(card_path(tmp), card_path(out))
    os.replace(tmp, out)
    return training


__all__ += ["load_agent_spec", "train_version"]
