"""The round's roles built by hand, without the HTTP app and without the composition root: each
is handed the collaborators it uses (issue 62), on a real SQLite storage and a real events
object.  A move goes through the mover to the storage; the end of a game reaches a subscriber."""

from __future__ import annotations

import ast
import asyncio
from collections import OrderedDict
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest
from test_server_helpers import run_async

from dorf.server.computer.pool import ThinkPool
from dorf.server.computer.seats import ComputerSeats
from dorf.server.config import ServerConfig
from dorf.server.players.service import Players
from dorf.server.protocol.messages import Move
from dorf.server.round.cache import GameCache
from dorf.server.round.events import Events, GameChanged, GameCreated, GameEnded, SeatTaken
from dorf.server.round.fanout import Fanout
from dorf.server.round.finisher import RESIGN, Finisher
from dorf.server.round.follow import Follower
from dorf.server.round.game import Game
from dorf.server.round.moves import Mover
from dorf.server.round.seats import GameOrigin, Seating
from dorf.server.round.timers import Timers
from dorf.server.storage import open_storage
from repo import SRC

HERE2 = [{"kind": "here", "name": "Ann"}, {"kind": "here", "name": "Bob"}]
NOW = 1_800_000_000.0


class Round:
    """The round's roles connected by hand, as the composition root connects them."""

    mover: Mover
    finisher: Finisher

    def __init__(self, db: Path) -> None:
        config = ServerConfig(db=db, ai_workers=0, ai_delay=0.0)
        self.storage, _ = open_storage(db)
        self.events = Events()
        self.tasks: set[asyncio.Task[Any]] = set()
        now = lambda: NOW  # noqa: E731
        games: OrderedDict[str, Game] = OrderedDict()
        fanout = Fanout(now)
        self.computer = ComputerSeats(
            config,
            self.storage,
            ThinkPool(0, 1.0),
            games,
            now,
            lambda g, m: self.mover.move(g, m),
            self.later,
        )
        self.cache = GameCache(self.storage, 10, lambda: "2026-12-06", lambda g: None, self.computer, games)
        timers = Timers(now, self.cache.game, lambda g: self.finisher.due(g))
        follower = Follower(self.storage, self.cache, fanout, timers, self.computer, self.later)
        told = lambda g, s, by: self.mover.told(g, s, by)  # noqa: E731
        self.finisher = Finisher(self.storage, self.events, now, self.cache.reread, follower.later, told)

        def clock(event: GameCreated | GameChanged | SeatTaken) -> None:
            timers.follow(event.game)

        self.events.subscribe(GameCreated, clock)
        self.events.subscribe(GameChanged, clock)
        self.events.subscribe(SeatTaken, clock)
        self.mover = Mover(
            self.storage,
            fanout,
            self.finisher,
            self.events,
            self.computer,
            now,
            self.cache.reread,
            follower.later,
            self.cache.lost,
        )
        players = Players(self.storage)
        self.seating = Seating(
            self.storage, self.cache, fanout, self.events, players, self.computer, now, None
        )

    def later(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


def first_move(round_: Round, game: Any, seat: int) -> Move:
    session = game.session
    return Move(seat, session.state.legal_decisions(session.player_of[seat])[0])


def test_a_move_through_the_mover_is_stored_and_the_end_reaches_a_subscriber(tmp_path: Path) -> None:
    async def play() -> None:
        round_ = Round(tmp_path / "roles.sqlite3")
        heard: list[Any] = []
        round_.events.subscribe(GameCreated, heard.append)
        round_.events.subscribe(GameChanged, heard.append)
        round_.events.subscribe(GameEnded, heard.append)
        await round_.storage.start()
        try:
            made = await round_.seating.create({"mode": "duel", "seats": HERE2})
            game = await round_.cache.playable(made["id"])
            seat = game.session.waiting()[0]
            await round_.mover.move(game, first_move(round_, game, seat))
            await game.settled()
            while game.unsaved:
                await asyncio.sleep(0.01)
            stored = await round_.storage.load_game(game.id)
            assert stored is not None and len(stored.decisions) == 1
            ending = await round_.finisher.resign(game, 0)
            assert (ending.end, ending.winner) == (RESIGN, 1)
        finally:
            await round_.storage.close()
        kinds = [type(event).__name__ for event in heard]
        assert kinds == ["GameCreated", "GameChanged", "GameChanged", "GameEnded"]
        assert heard[-1] == GameEnded(game, ending)

    run_async(play)


def test_a_game_of_a_feature_gets_its_origin_and_a_seat_taken_is_published(tmp_path: Path) -> None:
    async def play() -> None:
        round_ = Round(tmp_path / "origin.sqlite3")
        taken: list[SeatTaken] = []
        round_.events.subscribe(SeatTaken, taken.append)
        await round_.storage.start()
        try:
            origin = GameOrigin("2026-12-06", 1234, "tagged-game")
            made = await round_.seating.create({"mode": "coop", "seats": [HERE2[0]]}, origin=origin)
            assert made["id"] == "tagged-game"
            game = await round_.cache.playable("tagged-game")
            assert (game.session.daily, game.session.seed) == ("2026-12-06", 1234)
            duel = await round_.seating.create({"mode": "duel", "seats": [HERE2[0], {"kind": "online"}]})
            online = await round_.cache.playable(duel["id"])
            await round_.seating.take_open(online, "Cy")
        finally:
            await round_.storage.close()
        assert [(event.game.id, event.seat) for event in taken] == [(duel["id"], 1)]

    run_async(play)


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.slow
def test_only_dorf_serve_imports_the_composition_root_and_the_round_no_feature() -> None:
    server = SRC / "dorf" / "server"
    root = {server / "hub.py", server / "cli.py"}
    for path in sorted(server.rglob("*.py")):
        imported = imports_of(path)
        if path not in root:
            assert "dorf.server.hub" not in imported, path
        if path.parent.name == "round":
            features = [m for m in imported if m.split(".")[2:3] in (["daily"], ["lobby"], ["players"])]
            assert not features, (path, features)
