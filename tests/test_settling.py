"""After the opponent's pass: the moves that can still change the count (dlgo.agent.settling), the
strings the opponent cannot approach (dlgo.approach), and the decision that uses them."""

from __future__ import annotations

from conftest import state_from

from dlgo.agent.settling import is_settled, own_territory, settling_moves
from dlgo.agent.termination import EndOfGamePolicy, ResignPolicy, pass_when_opponent_passed, settle_after_pass
from dlgo.approach import cannot_be_approached, captured_at_once
from dlgo.deadstones import count
from dlgo.goboard import Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.search import CandidateInfo
from dlgo.utils import point_from_coords


def _walls(komi: float = 7.5) -> GameState:
    """9x9: Black's wall on column D, White's on column F, column E empty (nine dame); White has
    just passed and Black, to move, loses the count by 7.5 (36 points each, komi)."""
    board = Board(9, 9)
    for row in range(1, 10):
        board.place_stone(Player.black, Point(row, 4))
        board.place_stone(Player.white, Point(row, 6))
    return GameState.from_position(board, Player.white, komi).apply_move(Move.pass_turn())


def _seki() -> GameState:
    """The top left of a 9x9 game (a case record at move 68): Black's A8-B8 and White's two
    strings around it share the liberties A7 and A9; whoever fills one is captured. White passed."""
    diagram = """
    .OOOX....
    XXOXXX.X.
    .O.OX.X..
    OOOOX..XX
    OXXXX..XO
    XOOXOXXOO
    XXOOOXOO.
    .XXOOO.OX
    X.XXOOOOO
    """
    return state_from(diagram, Player.white, komi=7.0).apply_move(Move.pass_turn())


def _candidate(vertex: str, winrate: float) -> CandidateInfo:
    return CandidateInfo(move=Move.play(point_from_coords(vertex)), visits=200, winrate=winrate)


def test_dame_can_change_the_count_and_own_territory_cannot() -> None:
    state = _walls()
    counted = count(state, 200)
    assert counted.wins(Player.white)
    moves = settling_moves(state, counted.status)
    assert moves.neutral == {Point(row, 5) for row in range(1, 10)}
    assert not moves.disputed and not moves.tactical
    territory = own_territory(state, counted.status, Player.black)
    assert territory == {Point(row, col) for row in range(1, 10) for col in range(1, 4)}
    assert not is_settled(moves, counted.result, Player.black)  # nine dame, 7.5 behind
    assert is_settled(moves, counted.result, Player.black, dame_score=False)  # worth nothing by territory


def test_too_few_dame_to_make_up_the_margin_is_settled() -> None:
    state = _walls(komi=10.5)  # 10.5 behind with nine dame
    counted = count(state, 200)
    assert is_settled(settling_moves(state, counted.status), counted.result, Player.black)
    decision = settle_after_pass(state, [_candidate("E5", 0.9)], EndOfGamePolicy(), counted)
    assert decision.move.is_resign and "can no longer change" in decision.reason
    quiet = EndOfGamePolicy(resign=ResignPolicy(enabled=False))
    assert settle_after_pass(state, [_candidate("E5", 0.9)], quiet, counted).move.is_pass


def test_the_search_is_asked_only_which_settling_move() -> None:
    state = _walls()
    counted = count(state, 200)
    policy = EndOfGamePolicy()
    # The value calls the game won and likes a move inside Black's own territory best.
    cands = [_candidate("B5", 0.9), _candidate("E5", 0.6)]
    assert settle_after_pass(state, cands, policy, counted).move == Move.play(Point(5, 5))
    # No settling move searched: the first dame in the rules' order, not B5.
    decision = settle_after_pass(state, [_candidate("B5", 0.9)], policy, counted)
    assert decision.move == Move.play(Point(1, 5)), decision.reason
    # Every move hopeless: resign.
    assert settle_after_pass(state, [_candidate("E5", 0.02)], policy, counted).move.is_resign


def test_a_seki_the_playouts_doubt_is_not_approachable() -> None:
    state = _seki()
    assert cannot_be_approached(state, point_from_coords("A8"))
    assert not cannot_be_approached(state, point_from_coords("J2"))  # one stone in White's area
    counted = count(state, 400)
    seki = {p for group in counted.status.seki for p in group}
    assert {point_from_coords("A8"), point_from_coords("B8")} <= seki
    assert counted.wins(Player.black), counted.result  # GNU Go: B+3
    # Black must not fill A7 or A9: each is a self-atari that loses the seki.
    moves = settling_moves(state.apply_move(Move.pass_turn()).apply_move(Move.pass_turn()), counted.status)
    assert point_from_coords("A7") not in moves.points and point_from_coords("A9") not in moves.points


def test_a_seki_whose_attacker_lacks_a_liberty_it_cannot_add() -> None:
    """A game against GNU Go level 1 (2026-12-07), after White's pass: Black's B1 and B2 shares A1
    and C2 with White's A2 and White's big bottom string, whose other liberty is its eye at A3.
    White at A1 leaves A1-A2 in atari, but adding the missing liberty first (A3, the eye) leaves
    the whole string to be captured at C2: a seki. The count called B1 and B2 dead, W+0.5, and the
    engine resigned a game GNU Go counts B+6.5."""
    state = state_from(
        """
        ..XOOO.OX
        ..XXO.OOX
        XX.XXOOOX
        OX.XOOOXX
        OX..XOX..
        OOXXXXXX.
        .OOOX...X
        OX.OOXXXX
        .XOOOOOOX
        """,
        Player.black,
    )
    assert cannot_be_approached(state, point_from_coords("B2"))
    counted = count(state, 400)
    seki = {p for group in counted.status.seki for p in group}
    assert {point_from_coords("B1"), point_from_coords("B2")} <= seki
    assert not counted.dead_stones()
    assert counted.wins(Player.black), counted.result


def test_a_string_in_doubt_captured_in_one_move_is_dead() -> None:
    """The end of a game against GNU Go level 1 (2026-12-07): Black's last stone C1 is in atari,
    its liberty D1 an eye of Black's group. White takes it at D1 (Black may not retake the ko)
    and the eye with it. The count called C1 alive (B+1.5), so Black passed instead of saving it
    at D1 and lost by half a point (GNU Go: W+2.5 with C1 dead)."""
    state = state_from(
        """
        O.OOOOOOO
        OO.OXOOXX
        .OOXXOOOX
        OXXX.XOXX
        OOOXX.XX.
        XOOX.XXO.
        XOXX.XOOX
        XOOX.X...
        .OX.X....
        """,
        Player.white,
    )
    assert captured_at_once(state, point_from_coords("C1"))
    assert not captured_at_once(state, point_from_coords("E1"))  # two liberties and more
    for playouts in (400, 1000):  # the pass rule's and final_score's (before, 1000 called C1 alive)
        counted = count(state, playouts)
        assert point_from_coords("C1") in counted.dead_stones()
        assert counted.wins(Player.white), counted.result


def test_a_string_in_atari_around_a_region_makes_no_eye() -> None:
    """A game through gtp2ogs against GNU Go level 1 (2026-12-07), after White's pass: White's
    H8-J8 and Black's H9 are both in atari on J9. Black takes H8-J8 there; White's J9 would take
    H9 and be taken back with three stones. The two-eye check read H9-J9 as White's eye (so H8-J8
    alive and H9 dead), and Black, winning, played J9 "to capture living stones" instead of passing:
    a point inside its own territory under territory rules (GNU Go: J9 Black's territory)."""
    state = state_from(
        """
        ..OOOOOX.
        O.OXOXXOO
        ..OXX..XX
        OOOX.X...
        XOX.X....
        XXX.X..X.
        X.XX..O..
        .........
        .........
        """,
        Player.black,
    )
    counted = count(state, 400)
    dead = set(counted.dead_stones())
    assert {point_from_coords("H8"), point_from_coords("J8")} <= dead
    assert point_from_coords("H9") not in dead
    decision = pass_when_opponent_passed(state, counted)
    assert decision is not None and decision.move.is_pass, decision


def test_a_two_point_eye_is_approachable_by_a_throw_in() -> None:
    # Black's corner string around the two-point eye A1-B1, White all around: White's throw-in at
    # A1 is taken back at B1, which leaves the string one liberty, so it can still be killed.
    state = state_from(
        """
        .....
        .....
        OOOO.
        XXXO.
        ..XO.
        """,
        Player.white,
    )
    assert not cannot_be_approached(state, point_from_coords("A2"))


def test_a_string_with_two_eyes_cannot_be_approached() -> None:
    board = Board(5, 5)
    for vertex in ("B1", "D1", "A2", "B2", "C2", "D2", "E2"):
        board.place_stone(Player.black, point_from_coords(vertex))
    for vertex in ("A3", "B3", "C3", "D3", "E3"):
        board.place_stone(Player.white, point_from_coords(vertex))
    state = GameState.from_position(board, Player.white, 7.5)
    assert cannot_be_approached(state, point_from_coords("B2"))


def test_a_capturing_race_the_count_misreads_is_not_settled() -> None:
    """A game through gtp2ogs against GNU Go level 1 (2026-12-07), after White's pass: our count
    calls Black's A2, B2 and B1 dead and White's lower left string alive (W+0.5), and the engine
    resigned. The two share C1 and C2, White's other liberties are A3 and A6 (A6 also the only
    other liberty of its upper string), Black's A1 and A3: with Black to move it is a race, and
    KataGo (a measure only) rates A3 B+9.7, C2 B+5.3, C1 B+3.8 (before it: B+7.0). Its liberties
    are settling moves now, so the count is not settled and the search is asked."""
    state = state_from(
        """
        .OOOOOOX.
        XXXOOXOX.
        OOOOXXX..
        .OXX..XX.
        OXXXXXOO.
        OOXOOXXO.
        .OOOX.XX.
        XX.OXX...
        .X.OOX...
        """,
        Player.black,
    )
    counted = count(state, 1000)
    assert not counted.wins(Player.black)  # the count still misreads the race
    moves = settling_moves(state, counted.status)
    assert {point_from_coords(v) for v in ("A3", "C1", "C2")} <= moves.tactical
    assert not is_settled(moves, counted.result, Player.black)
    policy = EndOfGamePolicy(resign=ResignPolicy(threshold=0.2))
    decision = settle_after_pass(state, [_candidate("C1", 0.70), _candidate("F3", 0.71)], policy, counted)
    assert decision.move == Move.play(point_from_coords("C1")), decision


def test_a_stone_enclosed_only_by_its_own_dead_stones_is_dead() -> None:
    """A game through gtp2ogs against GNU Go level 1 (2026-12-07): GNU Go (White) passed on an
    open board, every white stone dead (GNU Go: B+73.5). Its B3 looked unapproachable, its
    liberties A3 and B4 enclosed by White's A2, A4, B5 and C4, so our count let it live, and the
    one living stone made the whole lower side neutral: the engine, Black, played on at F5, E6
    and A6, inside its own territory, until its count's margin passed the dame. With White's
    dead stones off the board B3 can be approached, so it is dead too, and Black passes."""
    state = state_from(
        """
        .......O.
        .....XO..
        .XXX.XXOX
        ...O...X.
        .OO.O.O..
        O.OX...O.
        .OX.X.XX.
        OXX......
        .........
        """,
        Player.black,
    )
    b3 = point_from_coords("B3")
    assert cannot_be_approached(state, b3)  # as the board stands
    counted = count(state, 400)
    assert b3 in set(counted.dead_stones())
    assert counted.wins(Player.black) and counted.result.winning_margin > 60, counted.result
    decision = pass_when_opponent_passed(state, counted)
    assert decision is not None and decision.move.is_pass, decision
