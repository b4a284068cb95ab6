"""A move must not pay for the log's words (issues 60 and 61): a log line carries no copy of what
the state already holds. The page says a line in words and draws its tile small from the state
(``boardLog`` in web/words.js): an area's n-th place line is its n-th tile, a seat's n-th pick line
its n-th tile of ``owned``, a completed or failed line's ``at`` the cell of its task; only a tile
set aside, on no board, is named in its line. These tests read the lines as the page does."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from test_server_helpers import Json, create, play_out, served, socket

from dorf.games.coop import CoopGame
from dorf.games.state import SET_ASIDE, Happened
from dorf.server.protocol.describe import Description

#: The keys of a line (a completed or failed task's adds ``at``): nothing the state holds.
LINE_KEYS = {"turn", "seat", "kind", "text"}


def _play(client: Any, mode: str, seed: int) -> Json:
    """Make a game of two seats here, play it to its end with random legal moves and return the
    state a client holds then."""
    made = create(client, mode, seats=[{"kind": "here"}, {"kind": "here"}], seed=seed)
    tokens = [made["tokens"]["0"], made["tokens"]["1"]]
    with socket(client, made["id"], tokens) as sock:
        play_out(sock, [0, 1], random.Random(seed))
        game: Json = sock.sync()["game"]
    return game


def _read_as_the_page_does(game: Json) -> list[tuple[Json, Json | None, Json | None]]:
    """Each line with its tile and task as ``boardLog`` finds them."""
    areas, placed, picked, out = game["areas"], {}, {}, []
    for line in game["log"]:
        index = 0 if len(areas) == 1 else line["seat"]
        area = areas[index]
        tile = task = None
        if line["kind"] == "place":
            n = placed[index] = placed.get(index, 0) + 1
            tile = area["tiles"][n - 1]
            task = None if tile.get("task") is None else area["tasks"][tile["task"]]
        elif line["kind"] == "pick":
            n = picked[line["seat"]] = picked.get(line["seat"], 0) + 1
            tile = game["owned"][line["seat"]][n - 1]
        elif line["kind"] in ("completed", "failed"):
            found = [t for t in area["tasks"] if t["at"] == line["at"]]
            assert len(found) == 1, line
            task = found[0]
        else:
            tile, task = line["tile"], line.get("task")
        out.append((line, tile, task))
    return out


@pytest.mark.parametrize(("mode", "seed"), [("coop", 11), ("duel", 5), ("head-to-head", 11)])
def test_each_log_line_is_said_from_the_state_and_carries_no_copy_of_it(
    tmp_path: Path, mode: str, seed: int
) -> None:
    with served(tmp_path / "dorf.sqlite3") as client:
        game = _play(client, mode, seed)
    read = _read_as_the_page_does(game)
    kinds = {line["kind"] for line, _, _ in read}
    assert "place" in kinds and (mode != "head-to-head" or "pick" in kinds)
    # these games meet finished tasks (random play finishes none in Head to Head)
    assert mode == "head-to-head" or kinds & {"completed", "failed"}, kinds
    for line, tile, task in read:
        kind, text = line["kind"], line["text"]
        if kind == "aside":
            assert set(line) - LINE_KEYS <= {"tile", "task"} and tile is not None
        elif kind in ("completed", "failed"):
            assert set(line) == LINE_KEYS | {"at"}, line
        else:
            assert set(line) == LINE_KEYS, line  # no tile, no task: the state has them
        # the line's words and the state agree: the same tile, where the text says, and task
        if kind == "place":
            assert tile is not None and tile["face"] in text, (line, tile)
            assert text.endswith(f" at {tile['at'][0]},{tile['at'][1]}"), (line, tile)
            assert (task is None) == ("task)" not in text), (line, task)
            if task is not None:
                assert f"({task['name']} {task['value']} task)" in text, (line, task)
        elif kind == "pick":
            assert tile is not None and tile["face"] in text and tile["areas"], (line, tile)
        elif kind in ("completed", "failed"):
            assert task is not None and task["status"] == kind, (line, task)
            assert text.endswith(f"{kind} {task['name']} {task['value']}"), (line, task)


def test_a_tile_set_aside_is_named_in_its_line() -> None:
    """A tile that fits nowhere is on no board: its line names it (its face, areas, task)."""
    state = CoopGame(seed=2).new_state()
    state.play(state.legal_placements()[0])
    # what a line reads of its game's session: whose seat a player is, its name, the state
    session: Any = SimpleNamespace(order=[0], state=state, name=lambda seat: "Lea")
    revealed = state.revealed_for(0)
    assert revealed is not None
    line = Description(session)._line(Happened(2, 0, SET_ASIDE, revealed.tile, revealed.task))
    assert line["tile"]["face"] == revealed.tile.face and line["tile"]["areas"]
    assert "fits nowhere" in line["text"] and revealed.tile.face in line["text"]
    if revealed.task is not None:
        assert line["task"] == {"type": revealed.task.type, "value": revealed.task.value}
    json.dumps(line)  # plain JSON
