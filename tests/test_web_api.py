"""The web server's API without a browser (dlgo_web, book 8.2): the book's endpoint, the page's
games, and bad input answered with a 4xx message while the game stays as it was."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the web server needs Flask (pip install -e .)")

from dlgo import agent_registry as registry  # noqa: E402
from dlgo.goboard import GameState, Move  # noqa: E402
from dlgo.gotypes import Player  # noqa: E402
from dlgo.play.errors import AgentBuildError  # noqa: E402
from dlgo.utils import point_from_coords  # noqa: E402
from dlgo_web import create_app, load_bots  # noqa: E402
from dlgo_web.app import MAX_SGF_BYTES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = [str(ROOT / "configs/engine/random.toml"), str(ROOT / "configs/engine/mcts.toml")]
QUICK = ["mcts.rounds=150", "time.default_seconds=0", "pass.playouts=100", "scoring.playouts=200"]


@pytest.fixture(scope="module")
def client():
    app = create_app(load_bots(CONFIGS, QUICK))
    return app.test_client()


def wait_for_bot(client, game_id: str, seconds: float = 60.0) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = client.get(f"/api/games/{game_id}").get_json()
        if not state["thinking"]:
            return state
        time.sleep(0.05)
    raise AssertionError("the bot did not move in time")


def new_game(client, **settings) -> dict:
    response = client.post("/api/games", json={"bot": "mcts", "size": 9, **settings})
    assert response.status_code == 201, response.get_json()
    return wait_for_bot(client, response.get_json()["id"])


def test_the_bots_are_the_configs_with_their_agents(client):
    data = client.get("/api/bots").get_json()
    assert [b["name"] for b in data["bots"]] == ["random", "mcts"]
    assert data["bots"][1]["agents"] == {"9": "mcts", "13": "mcts", "19": "mcts"}
    assert data["bots"][1]["sizes"] == [9, 13, 19]


def test_the_shipped_default_config_lists_its_agents_by_size():
    bots = load_bots([str(ROOT / "configs/engine/default.toml")])
    described = bots.get("default").describe()
    assert described["agents"] == {"9": "zero", "13": "zero", "19": "zero"}
    assert bots.get("default").agent_name(7) == "mcts"


def test_the_books_endpoint_answers_as_the_book_specifies(client):
    response = client.post("/select-move/mcts", json={"board_size": 9, "moves": ["E5", "D4", "pass"]})
    assert response.status_code == 200
    data = response.get_json()
    assert set(data) == {"bot_move", "diagnostics"}
    assert data["bot_move"] == "pass" or data["bot_move"][0] in "ABCDEFGHJ"
    assert data["bot_move"] not in ("E5", "D4")
    # the book's page posts a JSON string with a form content type: read it all the same
    response = client.post("/select-move/random", data='{"board_size": 9, "moves": []}', content_type="text/plain")
    assert response.status_code == 200 and response.get_json()["bot_move"] != ""


@pytest.mark.parametrize(
    "path, body, status, words",
    [
        ("/select-move/nobody", {"board_size": 9, "moves": []}, 404, "unknown bot"),
        ("/select-move/mcts", "{not json", 400, "malformed"),
        ("/select-move/mcts", {"board_size": 30, "moves": []}, 422, "board_size"),
        ("/select-move/mcts", {"board_size": 9, "moves": ["E5", "E5"]}, 422, "occupied"),
        ("/select-move/mcts", {"board_size": 9, "moves": ["I5"]}, 422, "not a move"),
        ("/select-move/mcts", {"board_size": 9, "moves": ["pass", "pass"]}, 409, "over"),
        ("/api/games", {"bot": "mcts", "size": 9, "komi": "lots"}, 422, "komi"),
        ("/api/games", {"bot": "mcts", "size": 9, "handicap": 1}, 422, "handicap"),
        ("/api/games", {"bot": "nobody", "size": 9}, 404, "unknown bot"),
        ("/api/games", {"bot": "mcts", "size": 9, "colour": "green"}, 422, "colour"),
    ],
)
def test_bad_requests_get_a_clear_4xx_answer(client, path, body, status, words):
    if isinstance(body, str):
        response = client.post(path, data=body, content_type="application/json")
    else:
        response = client.post(path, json=body)
    assert response.status_code == status
    assert words in response.get_json()["error"]


def test_a_size_the_bot_does_not_play_is_refused(tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text('agent = "alphabeta"\n')  # game-tree search plays boards up to 7x7 only
    client = create_app(load_bots([str(config)])).test_client()
    response = client.post("/select-move/tiny", json={"board_size": 9, "moves": []})
    assert response.status_code == 422 and "does not play 9x9" in response.get_json()["error"]
    response = client.post("/api/games", json={"bot": "tiny", "size": 9})
    assert response.status_code == 422 and "does not play 9x9" in response.get_json()["error"]


NINE_ONLY = 'agent = "alphabeta"\n\n[size.9]\nagent = "random"\n'  # game-tree search plays up to 7x7


def test_a_bot_that_plays_9x9_only_is_refused_other_sizes_by_name(tmp_path):
    config = tmp_path / "nine.toml"
    config.write_text(NINE_ONLY)
    client = create_app(load_bots([str(config)])).test_client()
    assert client.get("/api/bots").get_json()["bots"][0]["sizes"] == [9]
    for path, body in (
        ("/select-move/nine", {"board_size": 19, "moves": []}),
        ("/select-move/nine", {"board_size": 13, "moves": ["D4"]}),
        ("/api/games", {"bot": "nine", "size": 19}),
        ("/api/games", {"bot": "nine", "size": 13, "colour": "white"}),
    ):
        response = client.post(path, json=body)
        size = body.get("board_size", body.get("size"))
        assert response.status_code == 422, (path, body)
        assert response.get_json()["error"] == f"bot 'nine' does not play {size}x{size}: it plays 9x9"
    assert client.post("/select-move/nine", json={"board_size": 9, "moves": []}).status_code == 200
    sgf = client.post("/api/games/sgf", json={"sgf": "(;GM[1]SZ[19];B[pd])", "bot": "nine"})
    assert sgf.status_code == 422 and "'nine' does not play 19x19" in sgf.get_json()["error"]


NETWORK_AGENT = "web-test-9x9-network"


@pytest.fixture(params=[ValueError, AgentBuildError], ids=["ValueError", "AgentBuildError"])
def network_9x9(request, tmp_path):
    """A bot whose agent is offered on every size but fails to build off 9x9, raising what a 9x9
    network's loader raises (``ModelFileError``, a ValueError) or what the play layer does."""

    def build(params, size: int):
        if size != 9:
            raise request.param(f"the model plays 9x9 only, not {size}x{size}")
        return registry.build_agent("random", {}, size)

    registry.register(registry.AgentType(NETWORK_AGENT, "fails off 9x9", {}, build, searches=False))
    config = tmp_path / "net9.toml"
    config.write_text(f'agent = "{NETWORK_AGENT}"\n')
    yield create_app(load_bots([str(config)])).test_client()
    del registry.REGISTRY[NETWORK_AGENT]


def test_an_agent_that_cannot_be_built_for_the_size_is_a_422_not_a_500(network_9x9):
    response = network_9x9.post("/select-move/net9", json={"board_size": 19, "moves": ["D4"]})
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error.startswith("bot 'net9' cannot play 19x19: ") and "9x9 only" in error
    assert network_9x9.post("/select-move/net9", json={"board_size": 9, "moves": []}).status_code == 200


@pytest.mark.parametrize("name", ["pg-9x9", "q-9x9", "ac-9x9"])
def test_the_shipped_9x9_networks_are_refused_on_19x19(name):
    """The issue's case: a 9x9 network's bot was offered on 19x19 and answered HTTP 500."""
    pytest.importorskip("keras", reason="the 9x9 networks need Keras")
    config = ROOT / "configs/engine" / f"{name}.toml"
    client = create_app(load_bots([str(config)])).test_client()
    response = client.post(f"/select-move/{name}", json={"board_size": 19, "moves": []})
    assert response.status_code == 422 and f"'{name}'" in response.get_json()["error"]
    assert "19x19" in response.get_json()["error"]
    assert client.get("/api/bots").get_json()["bots"][0]["sizes"] == [9]
    response = client.post("/api/games", json={"bot": name, "size": 19})
    assert response.status_code == 422 and f"'{name}' does not play 19x19" in response.get_json()["error"]


def test_a_game_plays_undoes_and_rejects_illegal_moves_without_changing(client):
    game = new_game(client)
    assert game["to_move"] == "black" and game["human"] == "black" and not game["moves"]
    gid = game["id"]
    response = client.post(f"/api/games/{gid}/play", json={"move": "E5"})
    assert response.status_code == 200 and response.get_json()["thinking"] is True
    # out of turn while the bot thinks: refused, nothing changes
    assert client.post(f"/api/games/{gid}/play", json={"move": "D4"}).status_code in (200, 409)
    state = wait_for_bot(client, gid)
    assert [m[0] for m in state["moves"]][:2] == ["black", "white"]
    assert state["analysis"]["candidates"] and state["analysis"]["candidates"][0]["pv"]
    assert len(state["ownership"]) == 9 and all(len(row) == 9 for row in state["ownership"])
    before = client.get(f"/api/games/{gid}").get_json()
    for bad, words in (({"move": "E5"}, "occupied"), ({"move": "J10"}, "off the 9x9"), ({"move": 5}, "text")):
        response = client.post(f"/api/games/{gid}/play", json=bad)
        assert response.status_code == 422 and words in response.get_json()["error"]
    bad_json = client.post(f"/api/games/{gid}/play", data="{", content_type="application/json")
    assert bad_json.status_code == 400
    assert client.get(f"/api/games/{gid}").get_json()["moves"] == before["moves"]
    undone = client.post(f"/api/games/{gid}/undo").get_json()
    assert undone["moves"] == [] and undone["to_move"] == "black"
    assert client.post(f"/api/games/{gid}/undo").status_code == 409
    assert client.get("/api/games/nope").status_code == 404


def test_ko_is_explained():
    client = create_app(load_bots(CONFIGS[:1], QUICK)).test_client()
    game = client.post("/api/games", json={"bot": "random", "size": 9}).get_json()
    session = client.application.extensions["dlgo_games"].get(game["id"])
    session.wait(10)
    # A ko on the left edge: White takes at A2 and Black may not retake at A3 at once.
    moves = [("black", "A3"), ("white", "A4"), ("black", "B2"), ("white", "B3"), ("black", "A1"), ("white", "A2")]
    with session.lock:
        session.game.load(GameState.new_game(9), [(Player[c], Move.play(point_from_coords(v))) for c, v in moves])
    response = client.post(f"/api/games/{game['id']}/play", json={"move": "A3"})
    assert response.status_code == 422 and "ko" in response.get_json()["error"]
    assert client.get(f"/api/games/{game['id']}").get_json()["ko"] == "A3"


def test_a_slow_search_stops_from_the_page():
    client = create_app(load_bots(CONFIGS[1:], ["mcts.rounds=10000000", "time.default_seconds=0"])).test_client()
    gid = client.post("/api/games", json={"bot": "mcts", "size": 9, "colour": "white"}).get_json()["id"]
    time.sleep(0.5)
    assert client.get(f"/api/games/{gid}").get_json()["thinking"]
    started = time.monotonic()
    assert client.post(f"/api/games/{gid}/stop").status_code == 200
    state = wait_for_bot(client, gid, 20)
    assert time.monotonic() - started < 10
    assert state["moves"] and state["moves"][0][0] == "black" and state["to_move"] == "white"
    assert client.post(f"/api/games/{gid}/stop").status_code == 409  # nothing to stop now


def test_undo_while_the_bot_thinks_drops_its_search_and_its_move():
    client = create_app(load_bots(CONFIGS[1:], ["mcts.rounds=10000000", "time.default_seconds=0"])).test_client()
    gid = client.post("/api/games", json={"bot": "mcts", "size": 9}).get_json()["id"]
    assert client.post(f"/api/games/{gid}/play", json={"move": "E5"}).get_json()["thinking"]
    time.sleep(0.3)
    undone = client.post(f"/api/games/{gid}/undo").get_json()
    assert undone["moves"] == [] and not undone["thinking"]
    assert client.application.extensions["dlgo_games"].get(gid).wait(20)  # the dropped search ended
    state = client.get(f"/api/games/{gid}").get_json()
    assert state["moves"] == [] and state["error"] is None and not state["thinking"]
    assert client.post(f"/api/games/{gid}/play", json={"move": "C3"}).get_json()["thinking"]  # the game goes on
    assert client.post(f"/api/games/{gid}/stop").status_code == 200
    state = wait_for_bot(client, gid, 20)
    assert [m[0] for m in state["moves"]] == ["black", "white"] and state["moves"][0][1] == "C3"


def test_several_games_at_once_keep_their_own_state(client):
    ids = [client.post("/api/games", json={"bot": "mcts", "size": 9}).get_json()["id"] for _ in range(3)]
    for gid, vertex in zip(ids, ("C3", "E5", "G7")):
        assert client.post(f"/api/games/{gid}/play", json={"move": vertex}).status_code == 200
    states = [wait_for_bot(client, gid) for gid in ids]
    assert [s["moves"][0][1] for s in states] == ["C3", "E5", "G7"]
    assert all(len(s["moves"]) == 2 for s in states)


def test_sgf_download_and_upload_continue_the_game(client):
    game = new_game(client, handicap=2, colour="white")
    assert game["handicap"] == 2 and game["to_move"] == "white"
    gid = game["id"]
    assert client.post(f"/api/games/{gid}/play", json={"move": "C3"}).status_code == 422  # a handicap stone
    assert client.post(f"/api/games/{gid}/play", json={"move": "E5"}).status_code == 200
    wait_for_bot(client, gid)
    sgf = client.get(f"/api/games/{gid}/sgf")
    assert sgf.status_code == 200 and "attachment" in sgf.headers["Content-Disposition"]
    text = sgf.get_data(as_text=True)
    assert "HA[2]" in text and "AB[cg][gc]" in text and ";W[ee]" in text
    uploaded = client.post("/api/games/sgf", json={"sgf": text, "bot": "mcts", "colour": "white"})
    assert uploaded.status_code == 201
    copy = uploaded.get_json()
    assert copy["moves"] == client.get(f"/api/games/{gid}").get_json()["moves"]
    assert copy["handicap"] == 2 and copy["to_move"] == "white"


@pytest.mark.parametrize(
    "sgf, status, words",
    [
        ("(;GM[1]SZ[30];B[ee])", 422, "cannot read"),
        ("not an sgf at all", 422, "cannot read"),
        ("(;GM[1]SZ[9]C[" + "x" * (MAX_SGF_BYTES + 10) + "])", 413, "at most"),
    ],
)
def test_bad_sgf_uploads_are_refused(client, sgf, status, words):
    response = client.post("/api/games/sgf", json={"sgf": sgf, "bot": "mcts"})
    assert response.status_code == status and words in response.get_json()["error"]


def test_a_body_over_the_limit_is_refused(client):
    response = client.post("/api/games/sgf", data=b"{" + b" " * (2 << 20) + b"}", content_type="application/json")
    assert response.status_code == 413 and "too large" in response.get_json()["error"]


def test_a_whole_game_ends_with_a_count_and_dead_stones(client):
    gid = new_game(client, bot="random")["id"]
    client.post(f"/api/games/{gid}/play", json={"move": "E5"})
    state = wait_for_bot(client, gid)
    for _ in range(200):
        if state["result"]:
            break
        response = client.post(f"/api/games/{gid}/play", json={"move": "pass"})
        assert response.status_code == 200, response.get_json()
        state = wait_for_bot(client, gid)
    result = state["result"]
    assert result and result["result"].startswith("W+") and "dead" in result
    assert client.post(f"/api/games/{gid}/play", json={"move": "A1"}).status_code == 409
    assert "RE[W+" in client.get(f"/api/games/{gid}/sgf").get_data(as_text=True)
