"""The analysis queue holds queries, not positions, and is bounded by the bytes of its records.

Found by a hostile sweep: each long, distinct record waiting in ``dlgo-analysis``'s queue held
its replayed positions (about 42 MB for a 1,083-move 19x19 record: every position keeps the
superko hashes of all before it), so 40 queued records grew the process from 232 MB to 1.9 GB
and the documented 1,000-turn limit let input reach out-of-memory.
"""

from __future__ import annotations

import json

import pytest

from dlgo.analysis import QueueFull, TurnOptions
from dlgo.analysis.positions import RECORD_BYTES_PER_MOVE, RecordTurn, ReplayCache, replay
from dlgo.analysis.scheduler import Job, Scheduler
from dlgo.goboard import GameState
from dlgo_analysis.protocol import parse_line

MOVES = [["B", "D4"], ["W", "Q16"], ["B", "D16"], ["W", "Q4"], ["B", "K10"], ["W", "C3"]]


def _query(query_id: str, moves=MOVES, **fields) -> str:
    base = {"id": query_id, "moves": moves, "rules": "chinese", "boardXSize": 19, "boardYSize": 19}
    return json.dumps({**base, **fields})


def test_a_query_waits_as_its_record_and_is_replayed_when_searched():
    query = parse_line(_query("q", analyzeTurns=[0, 3, 6]))
    assert [turn for turn, _ in query.turns] == [0, 3, 6]
    assert all(isinstance(source, RecordTurn) and not isinstance(source, GameState) for _, source in query.turns)
    record = query.turns[0][1].record
    assert all(source.record is record for _, source in query.turns)  # one record for its turns
    states = replay(record)
    for turn, source in query.turns:
        built = source.state()
        assert built.board.zobrist_hash() == states[turn].board.zobrist_hash()
        assert built.next_player is states[turn].next_player and built.move_number == states[turn].move_number


def test_turns_of_one_game_follow_each_other_across_queries():
    first = parse_line(_query("a", analyzeTurns=[3])).turns[0][1]
    second = parse_line(_query("b", analyzeTurns=[4])).turns[0][1]
    other = parse_line(_query("c", moves=[["B", "C4"], *MOVES[1:]], analyzeTurns=[4])).turns[0][1]
    assert second.follows(first) and not first.follows(second) and not other.follows(first)


def _jobs(key: str, source_turns: list[RecordTurn]) -> list[Job]:
    return [Job(key, s.turn, s, TurnOptions(), lambda answer: None, lambda message: None) for s in source_turns]


def test_the_queue_counts_each_record_once_and_refuses_what_would_overflow_its_bytes():
    long_game = [["B" if i % 2 == 0 else "W", f"{'ABCDEFGHJKLMNOPQRST'[i % 19]}{1 + i // 19}"] for i in range(300)]
    record = parse_line(_query("long", moves=long_game, analyzeTurns=[0])).turns[0][1].record
    size = RECORD_BYTES_PER_MOVE * (len(record.moves) + 1)
    scheduler = Scheduler(pool=None, threads=0, max_queued=1000, max_queued_bytes=2 * size + size // 2)
    try:
        cache = ReplayCache()
        scheduler.submit(_jobs("a", [RecordTurn(record, t, cache) for t in range(0, 300, 10)]))
        assert scheduler.queued_bytes == size  # thirty turns, one record
        again = parse_line(_query("b", moves=long_game, analyzeTurns=[1])).turns[0][1].record
        scheduler.submit(_jobs("b", [RecordTurn(again, 1)]))
        assert scheduler.queued_bytes == 2 * size
        third = parse_line(_query("c", moves=long_game, analyzeTurns=[2])).turns[0][1].record
        with pytest.raises(QueueFull, match="--max-queued-mb"):
            scheduler.submit(_jobs("c", [RecordTurn(third, 2)]))
        assert scheduler.waiting == 31 and scheduler.queued_bytes == 2 * size  # refused whole
        scheduler.terminate("b")
        assert scheduler.queued_bytes == size
        scheduler.submit(_jobs("c", [RecordTurn(third, 2)]))
        assert scheduler.waiting == 31
    finally:
        scheduler.terminate(None)
        scheduler.close(finish=False)
    assert scheduler.queued_bytes == 0


def test_the_replay_cache_keeps_a_bounded_number_of_positions():
    cache = ReplayCache(size=8, max_positions=10)
    for komi in (5.5, 6.5, 7.5):  # three games that share nothing (komi is part of the position)
        record = parse_line(_query("k", komi=komi)).turns[0][1].record
        replay(record, cache)
    assert cache._positions() <= 10  # noqa: SLF001 - the bound itself is what is tested
