"""Positions where the opponent has just passed, made from counted games: value targets for the
moment a bot meets on a server when its opponent passes with the board still open.

Self-play almost never reaches such a position (both players pass only at the end), so the value
head has never been taught what a pass means there: in an OGS game the 9x9 network gave Black
81-94% after White's passes while the count, ours and GNU Go's, was W+2. Every late position of a
counted game (at least ``min_stones`` of the points occupied) gives a second row here: the same
board and player to move, encoded as if the opponent had just passed (the pass plane set, the
last-move planes one move older, the ko plane kept: a pass changes no board), with the game's
counted result as its value target and no policy target (nobody's move after that pass was
searched). When the board is settled the count is what both passing would give, and a pass only
adds a move for the side to move, so the label can err only against it.

    python -m dlgo.zero.teacher split selfplay/9x9/20261206-084324 --out runs/passed9/src --holdout-every 8
    python -m dlgo.zero.passed --data runs/passed9/src --out runs/passed9/data
    python -m dlgo.zero.teacher train --data runs/passed9/data --init weights/zero-9x9-10x128.keras \\
        --out runs/passed9/net --heads value --rounds 4 --steps 100 --batch-size 128 --lr 0.005

``OUT/train`` and ``OUT/holdout`` hold the source's chunks and the new rows (chunks at the source's
iteration plus ``--iteration-offset``); ``OUT/holdout-passed`` the held-out new rows alone, for
measuring the value there (``experiments/value_calibration.py``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from dlgo.encoders.zero import PLANES
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer

__all__ = ["opponent_passed", "passed_rows", "add_passed_rows", "main"]

_PASS = PLANES.index("last_move_pass")
_LAST = [PLANES.index(f"last_move_{k}") for k in (1, 2, 3, 4)]
_OWN, _OPPONENT, _ON_BOARD = (PLANES.index(n) for n in ("own_stones", "opponent_stones", "on_board"))


def opponent_passed(states: np.ndarray) -> np.ndarray:
    """``states`` (zero planes ``[n, rows, cols, 16]``) as they would be had the opponent just
    passed: the same board and player to move, the pass plane set on the board, the last moves
    one older (the oldest dropped)."""
    out = np.array(states, copy=True)
    out[..., _LAST[1:]] = states[..., _LAST[:-1]]  # the move before last is the last one was
    out[..., _LAST[0]] = 0
    out[..., _PASS] = out[..., _ON_BOARD]
    return out


def passed_rows(buffer: ZeroExperienceBuffer, min_stones: float) -> ZeroExperienceBuffer | None:
    """The opponent-passed rows of ``buffer``'s counted positions (``aux_mask`` 1) with at least
    ``min_stones`` of the points occupied, whose own last move was not a pass; None when none."""
    if not len(buffer) or buffer.aux_mask is None:
        return None
    states = np.asarray(buffer.states)
    points = states[..., _ON_BOARD].sum(axis=(1, 2))
    stones = states[..., _OWN].sum(axis=(1, 2)) + states[..., _OPPONENT].sum(axis=(1, 2))
    already = states[:, 0, 0, _PASS] > 0
    chosen = np.flatnonzero((buffer.aux_mask > 0) & (stones >= min_stones * points) & ~already)
    if not len(chosen):
        return None
    rows = buffer.take(chosen)
    return ZeroExperienceBuffer(
        opponent_passed(rows.states),
        np.zeros_like(rows.policies),  # value only: no search after the pass
        rows.rewards,
        ownership=rows.ownership,
        score=rows.score,
        aux_mask=rows.aux_mask,
        root_values=None,
    )


def add_passed_rows(
    source: ReplayBuffer, target: ReplayBuffer, min_stones: float, iteration_offset: int, alone: ReplayBuffer | None
) -> tuple[int, int]:
    """``source``'s chunks linked into ``target``, and beside each its opponent-passed rows (also
    into ``alone`` when given). Returns (chunks read, rows made); chunks there already are kept."""
    made = 0
    chunks = [c for c in source.chunks() if c.iteration < iteration_offset]
    for chunk in chunks:
        target.link(chunk.path, chunk.iteration, chunk.task, chunk.positions)
        rows = passed_rows(ZeroExperienceBuffer.load(chunk.path), min_stones)
        if rows is None:
            continue
        name = (chunk.iteration + iteration_offset, chunk.task, len(rows))
        path = target.chunk_path(*name)
        if not path.exists():
            rows.save(path)
        made += len(rows)
        if alone is not None:
            alone.link(path, *name)
    return len(chunks), made


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dlgo.zero.passed", description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="a data folder (train/, holdout/) of counted games")
    p.add_argument("--out", required=True, help="the data folder to write (train/, holdout/, holdout-passed/)")
    p.add_argument("--min-stones", type=float, default=0.45, help="the occupied share of the board from which")
    p.add_argument("--iteration-offset", type=int, default=500, help="added to a chunk's iteration for its new rows")
    args = p.parse_args(argv)
    if not 0.0 <= args.min_stones <= 1.0:
        raise SystemExit(f"--min-stones {args.min_stones}: a share of the board, within [0, 1]")
    if args.iteration_offset <= 0:
        raise SystemExit(f"--iteration-offset {args.iteration_offset}: must be > 0")
    data, out = Path(args.data), Path(args.out)
    if not (data / "train").is_dir():
        raise SystemExit(f"{data / 'train'}: no such folder (a data folder of `dlgo.zero.teacher split` or `counted`)")
    for side in ("train", "holdout"):
        alone = ReplayBuffer(out / "holdout-passed") if side == "holdout" else None
        read, made = add_passed_rows(
            ReplayBuffer(data / side), ReplayBuffer(out / side), args.min_stones, args.iteration_offset, alone
        )
        print(f"passed: {side}: {read} chunks, {made} opponent-passed rows", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
