"""Nobody can cheat: a laid tile stays, a finished game never changes, simultaneous placements
stay unseen, seeds cannot be predicted, who starts is the players' choice (issue 13, items 1-5)."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_server_helpers import Json, create, legal_move, play_out, served, socket

from dorf.campaign import CampaignError, Campaigns
from dorf.campaign.store import FinishedGame, read_finished_record
from dorf.formats.record import replay_record
from dorf.server.round import seats as seating

# --- 1. a laid tile stays, unless the game is a practice game ----------------------------------


def test_a_placement_is_final_in_a_game_that_is_not_practice(db: Path) -> None:
    with served(db) as client:
        made = create(client, seats=[{"kind": "here"}, {"kind": "computer", "player": "random"}])
        token = made["tokens"]["0"]
        with socket(client, made["id"], [token]) as sock:
            state = sock.sync()
            assert state["game"]["practice"] is False and state["game"]["undo"] is False
            assert sock.request(legal_move(state, 0))["type"] == "ok"
            state = sock.wait(lambda s: s["game"]["turn"] == 2)
            assert state["game"]["undo"] is False
            reply = sock.request({"type": "undo", "seat": 0})
            assert reply["type"] == "error" and reply["code"] == "no-undo", reply
            assert "practice" in reply["message"]
            over_http = client.post(f"/api/games/{made['id']}/undo", json={"token": token, "seat": 0})
            assert over_http.status_code == 409 and over_http.json()["error"]["code"] == "no-undo"
            assert sock.sync()["game"]["turn"] == 2


def test_a_practice_game_offers_undo_says_so_in_its_record_and_never_changes_once_over(db: Path) -> None:
    with served(db) as client:
        made = create(client, seats=[{"kind": "here", "name": "Ann"}], practice=True)
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            state = sock.sync()
            assert state["game"]["practice"] is True and state["game"]["undo"] is False  # nothing yet
            assert sock.request(legal_move(state, 0))["type"] == "ok"
            assert sock.sync()["game"]["undo"] is True
            final = play_out(sock, [0], random.Random(5))
            assert final["game"]["over"] and final["game"]["undo"] is False
            reply = sock.request({"type": "undo", "seat": 0})
            assert reply["type"] == "error" and reply["code"] == "game-over", reply
            assert sock.sync()["game"] == final["game"] | {"version": final["game"]["version"]}
        record = client.get(f"/api/games/{made['id']}/record").json()
        assert record["practice"] is True and record["game_id"] == made["id"]
        assert client.post("/api/campaigns", json={"name": "Family"}).status_code == 201
        refused = client.post("/api/campaigns/Family/record", json={"game": made["id"]})
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "practice-game"
        assert client.get("/api/campaigns/Family").json()["totals"]["games"] == 0
        decisions = len(record["decisions"])
    import sqlite3

    from dorf.server.storage.base import MOVE, UNDO, Change
    from dorf.server.storage.sqlite import SqliteTables

    tables = SqliteTables(db)
    never = "a finished game never changes"
    try:
        with pytest.raises(sqlite3.IntegrityError, match=never):  # an undo
            tables.write_changes([Change(made["id"], 99, UNDO, 0, keep=decisions - 1)])
        move = Change(made["id"], 99, MOVE, 0, decisions + 1, {"at": [9, 9], "rot": 0}, finished=True)
        with pytest.raises(sqlite3.IntegrityError, match=never):
            tables.write_changes([move])
        with pytest.raises(sqlite3.IntegrityError, match=never):  # nor one that would not end it
            tables.write_changes([Change(made["id"], 99, MOVE, 0, decisions + 1, {"at": [9, 9], "rot": 0})])
        assert len(tables.load_game(made["id"]).decisions) == decisions  # type: ignore[union-attr]
    finally:
        tables.close()


def test_practice_is_not_offered_with_online_seats(db: Path) -> None:
    with served(db) as client:
        body = {"mode": "coop", "practice": True, "seats": [{"kind": "here"}, {"kind": "online"}]}
        refused = client.post("/api/games", json=body)
        assert refused.status_code == 400 and "one screen" in refused.json()["error"]["message"]
        assert client.post("/api/games", json={"practice": "yes"}).status_code == 400


def test_the_command_line_refuses_a_practice_record_in_one_line(tmp_path: Path) -> None:
    from dorf.cli import main
    from dorf.formats.record import record_of
    from dorf.games.coop import CoopGame

    state = CoopGame(seed=4).new_state()
    while not state.is_over:
        state.play(state.legal_placements()[0])
    record = record_of(state, ["Ann"]) | {"practice": True}
    path = tmp_path / "practice.json"
    path.write_text(json.dumps(record))
    with pytest.raises(CampaignError, match="practice game"):
        read_finished_record(path)
    db = tmp_path / "campaign.sqlite3"
    assert main(["campaign", "new", "Family", "--db", str(db)]) == 0
    assert main(["campaign", "record", "Family", "--from-record", str(path), "--db", str(db)]) == 2


def test_a_campaign_holds_a_game_once_by_id_or_by_seed_and_decisions(tmp_path: Path) -> None:
    from dorf.campaign.pad import Limits, read_pad

    campaigns = Campaigns.open(tmp_path / "c.sqlite3")
    campaigns.create("Family")
    pad = read_pad({"tasks": {"forest": 15}}, Limits.base())
    campaigns.record("Family", pad, finished=FinishedGame(pad, ("Ann",), "{}", "key-1", "game-a"))
    with pytest.raises(CampaignError, match="already recorded"):  # same id, other decisions
        campaigns.record("Family", pad, finished=FinishedGame(pad, ("Ann",), "{}", "key-2", "game-a"))
    with pytest.raises(CampaignError, match="already recorded"):  # same seed and decisions
        campaigns.record("Family", pad, finished=FinishedGame(pad, ("Ann",), "{}", "key-1", "game-b"))
    campaigns.record("Family", pad, finished=FinishedGame(pad, ("Ann",), "{}", "key-3", "game-c"))
    assert len(campaigns.games("Family")) == 2
    campaigns.close()


# --- 3. simultaneous placements stay unseen ---------------------------------------------------------

#: The fields of the game object that may change when the other seat places: nothing of it.
MAY_CHANGE = {"version", "turn", "waiting"}


def changed(before: Json, after: Json) -> set[str]:
    keys = set(before) | set(after)
    return {k for k in keys if before.get(k) != after.get(k)}


def join_both(client: Any, mode: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, str]:
    # A game with an online seat gets its seed from the server only: pin what the server draws.
    monkeypatch.setattr(seating, "draw_seed", lambda: seed)
    made = create(
        client,
        mode=mode,
        seed=None,
        seats=[{"kind": "here", "name": "Ann"}, {"kind": "online", "name": "Bob"}],
    )
    joined = client.post(
        f"/api/games/{made['id']}/join", json={"invite": made["invites"]["1"], "name": "Bob"}
    )
    return made["id"], made["tokens"]["0"], joined.json()["token"]


@pytest.mark.parametrize("mode", ["duel", "head-to-head"])
@pytest.mark.slow
def test_the_other_seats_placement_is_unseen_until_both_have_placed(
    db: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(3)
    with served(db) as client:
        gid, ann_token, bob_token = join_both(client, mode, 21, monkeypatch)
        with (
            socket(client, gid, [ann_token]) as ann,
            socket(client, gid, [bob_token]) as bob,
            socket(client, gid) as watcher,
            socket(client, gid, [ann_token, bob_token]) as both,
        ):
            while ann.sync()["game"]["phase"] == "draft":  # the Head to Head draft: picks are open
                state = ann.sync()
                seat = state["game"]["waiting"][0]
                sock = ann if seat == 0 else bob
                assert sock.request(legal_move(sock.sync(), seat, rng))["type"] == "ok"
            compared = 0
            for _ in range(8):
                before = {name: s.sync() for name, s in (("ann", ann), ("watcher", watcher), ("both", both))}
                public_before = client.get(f"/api/games/{gid}").json()
                if before["ann"]["game"]["waiting"] != [0, 1]:
                    break
                seen = len(ann.seen)
                assert bob.request(legal_move(bob.sync(), 1, rng))["type"] == "ok"  # Bob places first
                after = {name: s.sync() for name, s in (("ann", ann), ("watcher", watcher), ("both", both))}
                told = [m for m in ann.seen[seen:] if m["type"] in ("state", "delta")]
                assert len(told) == 1 and told[0]["type"] == "delta"  # Ann hears that Bob placed
                assert {op[1].split("/")[1] for op in told[0]["ops"]} <= MAY_CHANGE | {"legal"}
                for name in after:
                    game_before, game_after = before[name]["game"], after[name]["game"]
                    assert changed(game_before, game_after) <= MAY_CHANGE, (
                        name,
                        changed(game_before, game_after),
                    )
                    assert game_after["waiting"] == [0]
                    assert after[name]["you"]["legal"].get("0") == before[name]["you"]["legal"].get("0")
                public_after = client.get(f"/api/games/{gid}").json()
                assert changed(public_before, public_after) <= MAY_CHANGE
                mine = bob.sync()["game"]
                assert (
                    len(mine["areas"][1]["tiles"]) == len(public_after["areas"][1]["tiles"]) + 1
                )  # Bob sees his
                texts = json.dumps([after[name] for name in after])
                placed = mine["log"][-1]
                assert placed["seat"] == 1 and placed["text"].startswith("Bob placed")
                assert placed["text"] not in texts
                assert ann.request(legal_move(ann.sync(), 0, rng))["type"] == "ok"
                settled = ann.sync()["game"]
                assert settled["areas"][1] == bob.sync()["game"]["areas"][1]  # now both see both
                assert placed in settled["log"]
                compared += 1
            assert compared >= 4


@pytest.mark.slow
def test_the_computer_places_unseen_and_thinks_without_seeing_yours(db: Path) -> None:
    seats = [{"kind": "here", "name": "Ann"}, {"kind": "computer", "player": "greedy", "name": "Cy"}]
    rng = random.Random(4)
    with served(db, ai_delay=0.3) as client:
        made = create(client, mode="duel", seed=8, seats=seats)
        gid = made["id"]
        with socket(client, gid, [made["tokens"]["0"]]) as ann:
            compared = 0
            for _ in range(6):
                start = ann.wait(lambda s: s["game"]["waiting"] in ([0, 1], [0]))
                if start["game"]["waiting"] == [0, 1]:  # seen before the computer placed
                    placed = ann.wait(lambda s: s["game"]["waiting"] == [0])
                    assert changed(start["game"], placed["game"]) <= MAY_CHANGE
                    compared += 1
                state = ann.sync()
                assert ann.request(legal_move(state, 0, rng))["type"] == "ok"
            assert compared >= 3


def test_a_computer_thinks_on_what_its_seat_may_see(db: Path) -> None:
    seats = [{"kind": "here", "name": "Ann"}, {"kind": "computer", "player": "greedy", "name": "Cy"}]
    with served(db, ai_delay=60) as client:  # the computer waits: Ann places first
        made = create(client, mode="duel", seed=8, seats=seats)
        with socket(client, made["id"], [made["tokens"]["0"]]) as ann:
            assert ann.request(legal_move(ann.sync(), 0))["type"] == "ok"
            session = client.app.state.hub.games[made["id"]].session  # type: ignore[attr-defined]
            assert session.pending_seat() == 0
            assert session.visible_record(1)["decisions"] == session.decisions[:-1]
            assert session.visible_record(0)["decisions"] == session.decisions
            mine = ann.sync()["game"]
            assert len(mine["areas"][0]["tiles"]) == 1  # Ann sees her own placement


def test_two_seats_at_one_screen_do_not_see_each_others_placement(db: Path) -> None:
    with served(db) as client:
        made = create(client, mode="duel", seats=[{"kind": "here"}, {"kind": "here"}])
        with socket(client, made["id"], list(made["tokens"].values())) as sock:
            before = sock.sync()
            assert sock.request(legal_move(before, 0))["type"] == "ok"
            after = sock.sync()
            assert changed(before["game"], after["game"]) <= MAY_CHANGE
            assert after["you"]["legal"]["1"] == before["you"]["legal"]["1"]


# --- 4. who starts -----------------------------------------------------------------------------------


def test_the_players_choose_who_starts(db: Path) -> None:
    with served(db) as client:
        coop = create(
            client, seats=[{"kind": "here", "name": "Ann"}, {"kind": "here", "name": "Bob"}], first=2
        )
        game = client.get(f"/api/games/{coop['id']}").json()
        assert game["first"] == 2 and game["waiting"] == [1]
        with socket(client, coop["id"], list(coop["tokens"].values())) as sock:
            wrong = sock.request({"type": "move", "seat": 0, "at": [0, 0], "rot": 0})
            assert wrong["code"] == "out-of-turn" and "Bob's turn" in wrong["message"]
            final = play_out(sock, [0, 1], random.Random(2))
        record = client.get(f"/api/games/{coop['id']}/record").json()
        assert record["players"] == ["Bob", "Ann"]  # the record counts from who started
        assert replay_record(record).score().total == final["game"]["scores"][0]["total"]
        assert final["game"]["log"][0]["seat"] == 1 and final["game"]["log"][0]["text"].startswith(
            "Bob placed"
        )

        h2h = create(client, mode="head-to-head", seats=[{"kind": "here"}, {"kind": "here"}], first=2)
        assert client.get(f"/api/games/{h2h['id']}").json()["waiting"] == [1]
        for bad in (0, 3, "2", True):
            refused = client.post("/api/games", json={"mode": "duel", "first": bad})
            assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad-message", bad


@pytest.mark.slow
def test_head_to_head_started_by_the_second_seat_plays_to_the_end_and_replays(db: Path) -> None:
    with served(db) as client:
        seats = [{"kind": "here", "name": "Ann"}, {"kind": "computer", "player": "greedy", "name": "Cy"}]
        made = create(client, mode="head-to-head", seed=3, seats=seats, first=2)
        with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
            final = play_out(sock, [0], random.Random(6), limit=200)
        game = final["game"]
        record = client.get(f"/api/games/{made['id']}/record").json()
        assert record["players"] == ["Cy", "Ann"]
        state = replay_record(record)
        totals = [pad.total for pad in state.scores()]
        assert [game["scores"][1]["total"], game["scores"][0]["total"]] == totals  # seats against players
        assert game["log"][0]["text"].startswith("Cy took")


# --- 5. seeds nobody can predict --------------------------------------------------------------------


def test_seeds_come_from_secrets_not_from_the_shared_random_generator(db: Path) -> None:
    random.seed(1234)
    shared = random.getstate()
    with served(db) as client:
        ids = [create(client, seed=None)["id"] for _ in range(3)]
        assert random.getstate() == shared  # the shared generator was not used
        random.seed(1234)
        ids += [create(client, seed=None)["id"] for _ in range(17)]
    with sqlite3.connect(db) as conn:
        seeds = [conn.execute("SELECT seed FROM server_game WHERE id = ?", (i,)).fetchone()[0] for i in ids]
    assert len(set(seeds)) == len(seeds)
    assert max(seed.bit_length() for seed in seeds) >= 61  # 63 random bits: all below 2**61 is 1 in 4**20
