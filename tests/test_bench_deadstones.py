"""The dead-stone benchmark reads counted records and scores each playout policy on them."""

from __future__ import annotations

import json

from conftest import CAPTURING_RACE

from dlgo.bench.deadstones import counted_games, main


def race_sgf(result: str) -> str:
    """The capturing-race position as a record's setup, Black to play, with ``result``."""
    stones: dict[str, list[str]] = {"X": [], "O": []}
    for r, line in enumerate(CAPTURING_RACE.split()):
        for c, ch in enumerate(line):
            if ch in stones:
                stones[ch].append("abcdefghi"[c] + "abcdefghi"[r])
    ab = "".join(f"[{p}]" for p in stones["X"])
    aw = "".join(f"[{p}]" for p in stones["O"])
    return f"(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]RE[{result}]AB{ab}AW{aw}PL[B])"


def test_only_games_ended_by_a_count_with_a_clear_margin_are_used(tmp_path):
    (tmp_path / "a.sgf").write_text(race_sgf("W+2"))
    (tmp_path / "b.sgf").write_text(race_sgf("W+R"))  # resigned: nothing to count
    (tmp_path / "c.sgf").write_text(race_sgf("W+0.5"))  # too close for area against territory
    games = counted_games([str(tmp_path)], games=10, margin=1.0, min_moves=0)
    assert [g.game_id for g in games] == ["a.sgf"]
    assert games[0].winner == "W" and games[0].margin == 2.0


def test_the_fast_policy_finds_the_winner_random_playouts_miss(tmp_path, capsys):
    (tmp_path / "race.sgf").write_text(race_sgf("W+2"))
    assert main(["--sources", str(tmp_path), "--games", "5", "--margin", "1", "--min-moves", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 1 and out["board_sizes"] == [9]
    assert out["policies"]["fast"]["winner_found"] == 1
    assert out["policies"]["random"]["winner_found"] == 0
    assert out["policies"]["random"]["missed"] == ["race.sgf"]
