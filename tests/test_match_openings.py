"""dlgo.match.openings and the referee's games from openings (GoGui twogtp's -openings): each
pair of games starts from the next SGF's position, the opening counts but is no one's time."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import FAKE_ENGINE, QUICK, fake_player

from dlgo.match import GameRules, play_game
from dlgo.match.duel import main as duel_main
from dlgo.match.openings import Opening, load_openings, opening_for_game
from dlgo.match.summary import summarise

COLUMNS = "ABCDEFGHJ"
# Black walls column E, White column F: 45 points to 36 once both pass (B+1.5 at komi 7.5).
WALLS = [(c, f"{col}{row}") for row in range(1, 10) for c, col in (("B", "E"), ("W", "F"))]


def sgf_of(moves: list[tuple[str, str]], size: int = 9, extra: str = "") -> str:
    def point(vertex: str) -> str:
        if vertex == "pass":
            return ""
        col = COLUMNS.index(vertex[0])
        row = int(vertex[1:])
        return "abcdefghijklmnopqrs"[col] + "abcdefghijklmnopqrs"[size - row]

    nodes = "".join(f";{c}[{point(v)}]" for c, v in moves)
    return f"(;GM[1]FF[4]SZ[{size}]KM[7.5]{extra}{nodes})"


def test_openings_from_a_folder_in_name_order_one_per_pair_of_games(tmp_path):
    (tmp_path / "b.sgf").write_text(sgf_of([("B", "C3"), ("W", "G7")]))
    (tmp_path / "a.sgf").write_text(sgf_of([("B", "E5")]))
    (tmp_path / "notes.txt").write_text("not an opening")
    openings = load_openings([tmp_path], 9)
    assert openings == (Opening("a.sgf", (("B", "E5"),)), Opening("b.sgf", (("B", "C3"), ("W", "G7"))))
    names = [opening_for_game(openings, i).name for i in range(6)]
    assert names == ["a.sgf", "a.sgf", "b.sgf", "b.sgf", "a.sgf", "a.sgf"]  # pairs, then round again
    assert opening_for_game((), 3) is None
    assert Opening.from_json(json.loads(json.dumps(openings[1].to_json()))) == openings[1]


@pytest.mark.parametrize(
    "text, message",
    [
        (sgf_of([("B", "E5")], size=13), "a 13x13 game, but the match is played on 9x9"),
        (sgf_of([("W", "E5")], extra="AB[cc]"), "setup stones"),
        (sgf_of([("B", "E5"), ("W", "pass"), ("B", "pass")]), "ends with two passes"),
        (sgf_of([("B", "E5"), ("W", "E5")]), "move 2 .W E5. is on an occupied point"),
    ],
)
def test_an_opening_that_cannot_start_the_game_is_named(tmp_path, text, message):
    path = tmp_path / "bad.sgf"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as error:
        load_openings([path], 9)
    assert "bad.sgf" in str(error.value)


def test_missing_or_empty_openings_are_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        load_openings([tmp_path / "nowhere.sgf"], 9)
    with pytest.raises(ValueError, match="no .sgf files"):
        load_openings([tmp_path], 9)


def test_a_game_from_an_opening_counts_it_but_times_only_the_players():
    rules = GameRules(size=9, move_timeout=2.0, command_timeout=10.0, openings=(Opening("walls.sgf", tuple(WALLS)),))
    assert GameRules.from_json(json.loads(json.dumps(rules.to_json()))) == rules
    records = [play_game(fake_player("pass", "me"), fake_player("pass", "you"), rules, index=0)]
    records.append(play_game(fake_player("pass", "you"), fake_player("pass", "me"), rules, index=1))
    for record in records:
        assert (record.opening, record.opening_moves) == ("walls.sgf", 18)
        assert record.moves[:18] == [list(m) for m in WALLS]
        assert record.moves[18:] == [["B", "pass"], ["W", "pass"]]
        assert (record.reason, record.result) == ("score", "B+1.5")
        assert record.times[:18] == [0.0] * 18
    mine = summarise(records, "me", "you")["players"]["me"]
    assert mine["moves"] == 2  # its two passes, none of the opening's


def test_the_player_after_the_opening_moves_first():
    # The opening ends with Black's move: White's genmove comes first, and Black crashes after it.
    rules = GameRules(size=9, move_timeout=2.0, command_timeout=10.0, openings=(Opening("one", (("B", "E5"),)),))
    record = play_game(fake_player("crash", "black"), fake_player("pass", "white"), rules)
    assert record.moves == [["B", "E5"], ["W", "pass"]]
    assert (record.winner, record.reason, record.fault) == ("W", "crash", "B")


def test_openings_and_handicap_exclude_each_other():
    with pytest.raises(ValueError, match="exclude"):
        GameRules(size=9, handicap=2, openings=(Opening("one", (("B", "E5"),)),))
    assert QUICK.openings == ()


def test_duel_names_an_opening_it_cannot_use(tmp_path, capsys):
    bad = tmp_path / "big.sgf"
    bad.write_text(sgf_of([("B", "E5")], size=13))
    fake = f"{sys.executable} {FAKE_ENGINE} pass"
    code = duel_main(
        ["--engine-cmd", fake, "--opponent-cmd", fake, "--openings", str(bad), "--out", str(tmp_path / "m")]
    )
    assert code == 2
    assert "big.sgf: a 13x13 game" in capsys.readouterr().err
