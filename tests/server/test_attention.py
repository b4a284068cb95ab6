"""Attention (issue 63, item 5), the server's side: a player's lobby socket hears "your-move"
when the other seat moves in a game they are not looking at, nobody else hears it, a quiet
socket (``/ws/lobby?only=attention``) hears it without the list, and a rematch offer comes as
attention too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_player_paths_server import ONLINE_DUEL, duel_of_two, me
from test_players import another
from test_server_helpers import create, legal_move, served, socket

from dorf.server.lobby.attention import Turns


def heard_until_pong(lobby: Any) -> list[dict[str, Any]]:
    """What a lobby socket heard before the answer to a ping (everything queued before it)."""
    lobby.send_json({"type": "ping"})
    heard = []
    while (message := lobby.receive_json())["type"] != "pong":
        heard.append(message)
    return [m for m in heard if m["type"] == "attention"]


def next_attention(lobby: Any) -> dict[str, Any]:
    """The next attention a lobby socket hears (on PostgreSQL it comes over the bus, a moment
    later)."""
    while (message := lobby.receive_json())["type"] != "attention":
        pass
    return message


@pytest.mark.storage
def test_your_move_reaches_the_players_lobby_socket_and_nobody_elses(db: Path) -> None:
    with served(db) as ann:
        bob, carl = another(ann), another(ann)
        me(ann), me(bob), me(carl)
        made = create(ann, "duel", ONLINE_DUEL, seed=None)
        game_id = made["id"]
        with (
            ann.websocket_connect("/ws/lobby") as ann_lobby,
            bob.websocket_connect("/ws/lobby?only=attention") as bob_quiet,
            carl.websocket_connect("/ws/lobby") as carl_lobby,
        ):
            assert ann_lobby.receive_json()["type"] == "lobby"
            assert carl_lobby.receive_json()["type"] == "lobby"
            for lobby in (ann_lobby, bob_quiet, carl_lobby):
                heard_until_pong(lobby)
            joined = bob.post(f"/api/games/{game_id}/join", json={"invite": made["invites"]["1"]})
            assert joined.status_code == 200, joined.text
            tokens = {0: (ann, made["tokens"]["0"]), 1: (bob, joined.json()["token"])}
            lobbies = {0: ann_lobby, 1: bob_quiet}
            # The game begins: both place at once, both are told (on PostgreSQL a moment later,
            # over the lobby's channel: waited for here, so that it is not taken for the next).
            for lobby in lobbies.values():
                assert next_attention(lobby)["game"] == game_id
            client, token = tokens[0]
            with socket(client, game_id, [token]) as sock:
                state = sock.sync()
                mover = state["game"]["waiting"][0]
            other = 1 - mover
            client, token = tokens[mover]
            with socket(client, game_id, [token]) as sock:
                state = sock.sync()
                assert sock.request(legal_move(state, mover))["type"] == "ok"
                after = sock.sync()["game"]["waiting"]
            assert after == [other]  # the Duel: both place a tile, the other has still to
            assert next_attention(lobbies[other]) == {
                "type": "attention",
                "kind": "your-move",
                "game": game_id,
                "mode": "duel",
                "text": "Your move: The Duel",
            }
            assert heard_until_pong(lobbies[other]) == []  # once
            assert heard_until_pong(carl_lobby) == []  # not their game: nothing, not even its id
            assert heard_until_pong(lobbies[mover]) == []  # who moved is not told of it


@pytest.mark.storage
def test_a_quiet_socket_hears_no_list_and_a_rematch_comes_as_attention(db: Path) -> None:
    with served(db) as ann:
        bob = another(ann)
        game_id, ann_token, _ = duel_of_two(ann, bob)
        assert (
            ann.post(f"/api/games/{game_id}/resign", json={"token": ann_token, "seat": 0}).status_code == 200
        )
        with bob.websocket_connect("/ws/lobby?only=attention") as quiet:
            assert quiet.receive_json() == {"type": "listening"}
            quiet.send_json({"type": "ping"})
            assert quiet.receive_json() == {"type": "pong"}  # no list, no seekers
            made = ann.post(f"/api/games/{game_id}/rematch", json={})
            assert made.status_code == 201, made.text
            message = quiet.receive_json()
            while message["type"] == "rematch":
                message = quiet.receive_json()
            assert message == {
                "type": "attention",
                "kind": "rematch",
                "game": made.json()["id"],
                "mode": "duel",
                "text": f"{me(ann)['name']} offers a rematch",
                "name": me(ann)["name"],
            }


class _Seat:
    def __init__(self, kind: str, player_id: str | None, claimed: bool = True) -> None:
        self.kind, self.player_id, self.claimed = kind, player_id, claimed


class _Session:
    def __init__(self, seats: list[_Seat], waiting: tuple[int, ...], over: bool = False) -> None:
        self.seats, self._waiting, self.is_over, self.mode = seats, waiting, over, "coop"

    def waiting(self) -> tuple[int, ...]:
        return self._waiting


class _Game:
    def __init__(self, session: _Session) -> None:
        self.id, self.session = "g1", session


def test_a_player_already_deciding_is_not_told_again_and_a_free_seat_means_not_started() -> None:
    told: list[tuple[str, ...]] = []
    turns = Turns(lambda *args: told.append(args))
    seats = [_Seat("here", "lea"), _Seat("online", "max"), _Seat("online", None, claimed=False)]
    turns.turned(_Game(_Session(seats, (0,))))  # type: ignore[arg-type]
    assert told == []  # an invited seat is still free: the game has not begun
    seats[2] = _Seat("online", "nia")
    for waiting in ((0,), (0,), (1,), (1,), (2,), (0, 2), (2,), (0, 1, 2)):
        turns.turned(_Game(_Session(seats, waiting)))  # type: ignore[arg-type]
    # (0, 2) after (2,): lea's turn came; (2,) after (0, 2): lea decided, nia still has to;
    # then everyone but nia, who was deciding and is not told again.
    assert [t[0] for t in told] == ["lea", "max", "nia", "lea", "nia", "lea", "max"]
    assert told[0] == ("lea", "your-move", "g1", "coop", "Your move: The Board Game")
    turns.turned(_Game(_Session(seats, (), over=True)))  # type: ignore[arg-type]
    assert "g1" not in turns.deciding


def test_attention_needs_a_player(db: Path) -> None:
    """A visitor's socket (no player) hears no attention: it has no games."""
    with served(db) as ann:
        visitor = TestClient(ann.app)
        visitor.portal = ann.portal
        with visitor.websocket_connect("/ws/lobby?only=attention") as quiet:
            assert heard_until_pong(quiet) == []


def test_a_quiet_socket_never_takes_the_room_of_a_front_pages_socket(db: Path) -> None:
    """Every page of a player opens a quiet socket: they are counted apart, as many again."""
    with served(db, max_connections_per_address=1) as ann:
        me(ann)
        with ann.websocket_connect("/ws/lobby?only=attention") as quiet:
            assert quiet.receive_json() == {"type": "listening"}
            with ann.websocket_connect("/ws/lobby") as front:
                assert front.receive_json()["type"] == "lobby"  # let in beside the quiet one
                with ann.websocket_connect("/ws/lobby?only=attention") as second:
                    refused = second.receive_json()
                    assert refused["type"] == "error" and refused["code"] == "busy", refused


def test_a_proposal_reaches_the_lobby_of_the_player_who_places_the_tile(db: Path) -> None:
    """Ann and Bob at a cooperative table: whoever does not place proposes, and the placer's
    lobby socket hears ``proposal``; the proposer's own hears nothing of it."""
    with served(db) as ann:
        bob = another(ann)
        me(ann), me(bob)
        seats = [{"kind": "here", "name": "Ann"}, {"kind": "online", "name": "Bob"}]
        made = ann.post("/api/games", json={"mode": "coop", "seats": seats})
        assert made.status_code == 201, made.text
        game = made.json()
        joined = bob.post(f"/api/games/{game['id']}/join", json={"invite": game["invites"]["1"]})
        assert joined.status_code == 200, joined.text
        tokens = {0: (ann, game["tokens"]["0"]), 1: (bob, joined.json()["token"])}
        with (
            ann.websocket_connect("/ws/lobby?only=attention") as ann_quiet,
            bob.websocket_connect("/ws/lobby?only=attention") as bob_quiet,
        ):
            lobbies = {0: ann_quiet, 1: bob_quiet}
            for lobby in lobbies.values():
                heard_until_pong(lobby)
            client, token = tokens[0]
            with socket(client, game["id"], [token]) as sock:
                state = sock.sync()
            active = state["game"]["waiting"][0]
            proposer = 1 - active
            client, token = tokens[active]
            with socket(client, game["id"], [token]) as sock:
                q, r, rots = sock.sync()["you"]["legal"][str(active)][0]
            client, token = tokens[proposer]
            with socket(client, game["id"], [token]) as sock:
                sock.sync()
                answer = sock.request({"type": "propose", "seat": proposer, "at": [q, r], "rot": rots[0]})
                assert answer["type"] == "ok", answer
            told = next_attention(lobbies[active])
            assert told["kind"] == "proposal" and told["game"] == game["id"] and told["mode"] == "coop"
            assert heard_until_pong(lobbies[active]) == []
            assert heard_until_pong(lobbies[proposer]) == []
