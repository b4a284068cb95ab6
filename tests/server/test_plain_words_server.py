"""What players met (issue 61), the server's part: the lobby socket tells how many seek in each
pool (counts only, bounded, sent on change and coalesced); the log says what a line's tile and
task are (for the page's words and small picture); the expert's game of a closed day is kept
and linked as the players' boards are."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from test_daily import DAY, NEXT, challenge, daily, play, start
from test_lobby import lobby, person, seek
from test_server_helpers import Json, create, legal_move, served, socket, until

from dorf.server.lobby import lobby as lobby_module


def _pools(message: Json) -> set[tuple[str, str | None, bool, int]]:
    return {(p["mode"], p["clock"], p["rated"], p["count"]) for p in message["pools"]}


@pytest.mark.storage
@pytest.mark.slow
def test_the_lobby_tells_how_many_seek_in_each_pool_and_never_who(db: Any) -> None:
    with served(db) as client:
        ann, bob, cy = person(client), person(client), person(client)
        with lobby(client, cy) as watcher:
            first = watcher.wait(lambda m: m["type"] == "seekers")
            assert first["pools"] == []
            with lobby(client, ann) as a, lobby(client, bob) as b:
                seek(a, "duel", "3+2")
                seek(b, "duel", "5+3", rated=True)  # another clock: they are never paired
                both = {("duel", "3+2", False, 1), ("duel", "5+3", True, 1)}
                told = watcher.wait(lambda m: m["type"] == "seekers" and _pools(m) == both)
                # counts only: no name, no rating, no seek's id
                assert all(set(p) == {"mode", "clock", "rated", "count"} for p in told["pools"])
                assert "Ann" not in json.dumps(told) and len(json.dumps(told)) < 400
                # a new socket hears the counts at once, after the list
                with lobby(client, person(client)) as late:
                    assert _pools(late.wait(lambda m: m["type"] == "seekers")) == both
                # the seeker hears them too (its own seek counted)
                a.wait(lambda m: m["type"] == "seekers" and _pools(m) == both)
            # the sockets closed: their seeks end, and the watcher is told
            watcher.wait(lambda m: m["type"] == "seekers" and m["pools"] == [])
            told_messages = [m for m in watcher.seen if m["type"] == "seekers"]
            # sent on change only: never the same counts twice in a row
            assert all(x["pools"] != y["pools"] for x, y in itertools.pairwise(told_messages))


@pytest.mark.slow
def test_the_seekers_message_is_bounded_and_changes_meanwhile_go_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lobby_module, "POOLS_SHOWN", 2)
    monkeypatch.setattr(lobby_module, "SEEKERS_EVERY", 2.0)  # the four seeks below take a few ms
    with served(tmp_path / "dorf.sqlite3") as client:
        people = [person(client) for _ in range(4)]
        with lobby(client, people[0]) as watcher:
            watcher.wait(lambda m: m["type"] == "seekers")
            with lobby(client, people[1]) as a, lobby(client, people[1]) as a2, lobby(client, people[2]) as b:
                seek(b, "duel", "3+2")
                seek(a, "duel", "10+5")
                seek(b, "head-to-head", "1d")
                seek(a2, "duel", "10+5")  # the same player in another tab: never paired with themselves
                last = watcher.wait(
                    lambda m: m["type"] == "seekers" and ("duel", "10+5", False, 2) in _pools(m)
                )
                assert len(last["pools"]) == 2  # the fullest two pools only
                assert last["pools"] == [
                    {"mode": "duel", "clock": "10+5", "rated": False, "count": 2},
                    {"mode": "duel", "clock": "3+2", "rated": False, "count": 1},
                ]
                told = [m for m in watcher.seen if m["type"] == "seekers"]
                # four changes within the pause: the first told at once, the other three as one
                assert len(told) <= 3, told


def test_the_log_names_each_lines_tile_and_task_for_the_page_to_say_in_words(tmp_path: Path) -> None:
    with served(tmp_path / "dorf.sqlite3") as client:
        made = create(client, seats=[{"kind": "here", "name": "Lea"}])
        with socket(client, made["id"], [made["tokens"]["0"]]) as sock:
            rng = random.Random(1)
            for _ in range(3):
                state = sock.wait(lambda s: 0 in s["game"]["waiting"])
                assert sock.request(legal_move(state, 0, rng))["type"] == "ok"
            log = sock.sync()["game"]["log"]
            area = sock.sync()["game"]["areas"][0]
        placed = [line for line in log if line["kind"] == "place"]
        assert len(placed) == 3
        # a place line's tile is the area's tile of its order (issue 60: the line carries no copy,
        # tests/server/test_log_from_the_board.py), as the page reads it (web/words.js boardLog)
        for line, tile in zip(placed, area["tiles"], strict=True):
            assert "tile" not in line and len(tile["face"]) == 6 and tile["face"] in line["text"]
            # its areas as the page draws them: each names edges of its own letter
            assert all(tile["edges"][d] == letter for letter, dirs in tile["areas"] for d in dirs)
        # the first tile of the Board Game carries a task: its kind and number, as the marker says
        first = area["tasks"][area["tiles"][0]["task"]]
        assert first["type"] and first["value"] > 0 and first["label"]


@pytest.mark.slow
def test_the_expert_game_of_a_closed_day_is_kept_and_linked(tmp_path: Path) -> None:
    today = tmp_path / "today"
    with challenge(tmp_path / "dorf.sqlite3", today) as ann:
        play(ann, start(ann))
        until(lambda: daily(ann)["expert"] is not None)
        assert "expert_game" not in daily(ann)  # today: the boards are not shown yet
        today.write_text(NEXT)
        day = daily(ann, DAY)
        game_id = day["expert_game"]
        assert game_id == f"daily-expert-{DAY}"
        game = ann.get(f"/api/games/{game_id}").json()
        assert game["over"] is True and game["daily"]["date"] == DAY
        assert game["scores"][0]["total"] == day["expert"]
        assert game["seats"][0]["kind"] == "computer" and game["seats"][0]["name"] == "Computer (expert)"
        # its replay too, as a player's board of the closed day
        assert ann.get(f"/api/games/{game_id}/replay").status_code == 200
