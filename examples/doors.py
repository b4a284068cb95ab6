"""The doors of issue 60, measured on a real server: what a visitor, a pair and a lessons request cost.

    .venv/bin/python examples/doors.py [--reads 1000] [--chain-seconds 60] [--src PATH] [--parts lessons]

Starts ``dorf serve`` as a process (``dorf.testing.servers.launch``) on 127.0.0.1 with a fresh
SQLite database in a temporary directory, with the server's own limits (``--create-limit`` 30,
``--max-connections-per-address`` 16, two computer workers) and the computer's thinking pause
cut to 0.05 s, and prints:

1. **players made by reads**: the rows of ``server_player`` made by ``--reads`` cookieless ``GET
   /api/me`` (target 0);
2. **rated results a pair records in a minute**: two players (two cookies) run the rematch chain
   (a rated Duel 3+2 opened in the lobby, taken by the other, resigned, then a rematch taken,
   resigned, ...) for ``--chain-seconds`` or until the server refuses a step, once resigning at
   once and once after each side's first move; counted are the games with rows in
   ``server_rating_game`` (rated results that changed the pair's ratings);
3. **lessons requests**: the seconds of two at once, each on a finished practice game (a solo
   game played out with first legal moves), and of the first asked again; while they are
   computed, how long a computer move (a practice Duel against ``greedy``) and a hint take,
   against the same without a lessons request.

Bounded in time (about three minutes on a 2-core VM), loopback only; the server and its
database are gone afterwards.  ``--src`` runs the ``dorf serve`` of another source tree (an
older commit's ``src``): the same figures before and after.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from dorf.testing.servers import launch

Json = dict[str, Any]
#: The longest a request is waited for, in seconds (a lessons request took 100 s on 3d3af14).
WAIT = 300.0


class Client:
    """HTTP to one server as one browser: its cookie, kept from the answers."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookie = ""

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Json]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=WAIT) as response:
                status, text, cookies = (
                    response.status,
                    response.read(),
                    response.headers.get_all("Set-Cookie"),
                )
        except urllib.error.HTTPError as error:
            status, text, cookies = error.code, error.read(), error.headers.get_all("Set-Cookie")
        except OSError as error:  # no answer in WAIT seconds
            return 0, {"error": {"code": "no-answer", "message": str(error)}}
        for cookie in cookies or []:
            pair = cookie.split(";", 1)[0]
            kept = [c for c in self.cookie.split("; ") if c and c.split("=", 1)[0] != pair.split("=", 1)[0]]
            self.cookie = "; ".join([*kept, pair])
        try:
            answer = json.loads(text) if text else {}
        except ValueError:
            answer = {"text": text[:200].decode("utf-8", "replace")}
        return status, answer if isinstance(answer, dict) else {"value": answer}


def refusal(status: int, answer: Json) -> str:
    error = answer.get("error") or {}
    return f"HTTP {status} {error.get('code', '')}: {error.get('message', answer)}"


def count_rows(db: Path, table: str, what: str = "*") -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
        return int(conn.execute(f"SELECT count({what}) FROM {table}").fetchone()[0])


def rated_results(db: Path) -> int:
    """The games whose rated results changed ratings (a server with a daily limit between two
    players records the results past it, ``counted`` 0, without changing ratings)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(server_rating_game)")}
        counted = " WHERE counted = 1" if "counted" in columns else ""
        query = f"SELECT count(DISTINCT game_id) FROM server_rating_game{counted}"
        return int(conn.execute(query).fetchone()[0])


# --- 1. reads -------------------------------------------------------------------------------


def players_made_by_reads(base: str, db: Path, reads: int) -> Json:
    before = count_rows(db, "server_player")
    started = time.monotonic()
    statuses: dict[int, int] = {}
    for _ in range(reads):
        status, _answer = Client(base).call("GET", "/api/me")
        statuses[status] = statuses.get(status, 0) + 1
    took = time.monotonic() - started
    return {
        "reads": reads,
        "players_made": count_rows(db, "server_player") - before,
        "statuses": statuses,
        "s": took,
    }


# --- 2. the rematch chain ---------------------------------------------------------------------


class Seat:
    """A seat held over the game's websocket: its state, kept by asking ``sync`` after each move."""

    def __init__(self, ws_url: str, token: str, seat: int) -> None:
        from websockets.sync.client import connect

        self._stack = ExitStack()
        self.ws = self._stack.enter_context(connect(ws_url, open_timeout=60, max_size=1 << 22))
        self.seat = seat
        self.next_id = 1
        self.state: Json = {}
        self.request({"type": "hello", "tokens": [token]})

    def request(self, message: Json) -> Json:
        ref = self.next_id
        self.next_id += 1
        self.ws.send(json.dumps({**message, "id": ref}))
        while True:
            reply: Json = json.loads(self.ws.recv(timeout=120))
            if reply["type"] == "state":
                self.state = reply
            if reply.get("id") == ref and reply["type"] not in ("state", "delta"):
                return reply

    def fresh(self) -> Json:
        self.ws.send(json.dumps({"type": "sync"}))
        while True:
            reply: Json = json.loads(self.ws.recv(timeout=120))
            if reply["type"] == "state":
                self.state = reply
                return reply

    def my_turn(self) -> bool:
        game = self.state["game"]
        return not game["over"] and self.seat in game["waiting"]

    def move(self) -> Json:
        """The first legal move (a pick in a draft)."""
        game = self.state["game"]
        if game["phase"] == "draft":
            message: Json = {"type": "move", "seat": self.seat, "pick": game["pool"][0]["id"]}
        else:
            q, r, rots = self.state["you"]["legal"][str(self.seat)][0]
            message = {"type": "move", "seat": self.seat, "at": [q, r], "rot": rots[0]}
        return self.request(message)

    def close(self) -> None:
        self._stack.close()


def ws_url(base: str, game_id: str) -> str:
    return base.replace("http://", "ws://") + f"/ws/{game_id}"


def first_moves(base: str, game_id: str, tokens: dict[int, str]) -> None:
    """Each seat makes its first move (whoever's turn it is first)."""
    seats = {s: Seat(ws_url(base, game_id), t, s) for s, t in tokens.items()}
    try:
        for _ in range(2):
            for seat in seats.values():
                seat.fresh()
                if seat.my_turn():
                    seat.move()
                    break
    finally:
        for seat in seats.values():
            seat.close()


def rematch_chain(base: str, db: Path, seconds: float, moves: bool) -> Json:
    """Two players: a rated Duel opened, taken, resigned; then rematches, each taken and resigned."""
    a, b = Client(base), Client(base)
    for who in (a, b):
        status, _ = who.call("POST", "/api/me", {})
        if status >= 400:  # a server whose reads make players
            who.call("GET", "/api/me")
    before = rated_results(db)
    body = {
        "mode": "duel",
        "open": True,
        "rated": True,
        "clock": "3+2",
        "seats": [{"kind": "here"}, {"kind": "online"}],
    }
    status, made = a.call("POST", "/api/games", body)
    games, stopped = 0, f"{seconds:.0f} s passed"
    started = time.monotonic()
    owner, other = a, b
    if status != 201:
        stopped = "open: " + refusal(status, made)
    else:
        while time.monotonic() - started < seconds:
            game_id = made["id"]
            tokens = {int(s): t for s, t in made.get("tokens", {}).items()}
            status, seated = other.call("POST", f"/api/lobby/{game_id}/take")
            if status != 200:
                stopped = "take: " + refusal(status, seated)
                break
            tokens[seated["seat"]] = seated["token"]
            if moves:
                first_moves(base, game_id, tokens)
            seat = min(tokens)
            status, ended = owner.call(
                "POST", f"/api/games/{game_id}/resign", {"seat": seat, "token": tokens[seat]}
            )
            if status != 200:
                stopped = "resign: " + refusal(status, ended)
                break
            games += 1
            status, made = owner.call("POST", f"/api/games/{game_id}/rematch", {})
            if status != 201 and status != 200:
                stopped = "rematch: " + refusal(status, made)
                break
    took = time.monotonic() - started
    return {
        "moves_first": moves,
        "games": games,
        "rated_results": rated_results(db) - before,
        "s": round(took, 1),
        "stopped": stopped,
    }


# --- 3. lessons -------------------------------------------------------------------------------


def solo_game(base: str) -> tuple[str, str]:
    """A practice solo game, played out with first legal moves: its id and seat token."""
    me = Client(base)
    status, made = me.call(
        "POST", "/api/games", {"mode": "coop", "practice": True, "seats": [{"kind": "here"}]}
    )
    if status != 201:
        raise SystemExit("the solo game: " + refusal(status, made))
    token = made["tokens"]["0"]
    seat = Seat(ws_url(base, made["id"]), token, 0)
    try:
        while not seat.fresh()["game"]["over"]:
            if seat.my_turn():
                seat.move()
    finally:
        seat.close()
    return made["id"], token


def next_round(seat: Seat) -> None:
    """Wait until it is our turn again (the computer moved too: the Duel's seats move at once)."""
    while not seat.fresh()["game"]["over"] and not seat.my_turn():
        time.sleep(0.02)


def computer_reply(seat: Seat) -> float:
    """Seconds from the start of a round until the computer has moved in it (we move at once)."""
    if 1 not in seat.fresh()["game"]["waiting"]:  # it moved already in this round: the next one
        seat.move()
        next_round(seat)
    started = time.monotonic()
    seat.move()
    next_round(seat)
    return time.monotonic() - started


def hint_time(base: str, game_id: str, token: str) -> tuple[float, str]:
    started = time.monotonic()
    status, answer = Client(base).call("POST", f"/api/games/{game_id}/hint", {"seat": 0, "token": token})
    return time.monotonic() - started, "ok" if status == 200 else refusal(status, answer)


def lessons(base: str) -> Json:
    """Two lessons requests at once (two finished solo games, as two people might ask), and a
    computer move and a hint in another game meanwhile; then the first lessons asked again."""
    solos = [solo_game(base) for _ in range(2)]
    status, made = Client(base).call(
        "POST",
        "/api/games",
        {
            "mode": "duel",
            "practice": True,
            "seats": [{"kind": "here"}, {"kind": "computer", "player": "greedy"}],
        },
    )
    if status != 201:
        raise SystemExit("the practice Duel: " + refusal(status, made))
    duel_id, duel_token = made["id"], made["tokens"]["0"]
    seat = Seat(ws_url(base, duel_id), duel_token, 0)
    try:
        while not seat.fresh()["game"]["over"] and not seat.my_turn():
            time.sleep(0.02)
        alone = [computer_reply(seat) for _ in range(3)]
        hint_alone, _ = hint_time(base, duel_id, duel_token)
        results: list[Json] = [{}, {}]

        def ask(n: int) -> None:
            solo_id, solo_token = solos[n]
            started = time.monotonic()
            status, answer = Client(base).call("POST", f"/api/games/{solo_id}/lessons", {"token": solo_token})
            results[n]["s"] = round(time.monotonic() - started, 2)
            results[n]["answer"] = "ok" if status == 200 else refusal(status, answer)
            results[n]["lessons"] = len(answer.get("lessons", []) or [])

        asking = [threading.Thread(target=ask, args=(n,)) for n in range(2)]
        for thread in asking:
            thread.start()

        def busy() -> bool:
            return any(thread.is_alive() for thread in asking)

        time.sleep(0.5)
        hinted: list[tuple[float, str]] = []
        hinting = threading.Thread(target=lambda: hinted.append(hint_time(base, duel_id, duel_token)))
        hinting.start()  # a hint and computer moves at the same time, behind the lessons
        behind: list[float] = []
        while busy() and len(behind) < 8 and not seat.fresh()["game"]["over"]:
            behind.append(computer_reply(seat))
        for thread in [*asking, hinting]:
            thread.join(timeout=400)
        hint_behind, hint_said = hinted[0] if hinted else (None, "")
        again_started = time.monotonic()
        status, answer = Client(base).call(
            "POST", f"/api/games/{solos[0][0]}/lessons", {"token": solos[0][1]}
        )
        again = time.monotonic() - again_started
    finally:
        seat.close()
    return {
        "lessons": results,
        "lessons_again_s": round(again, 3),
        "lessons_again_answer": "ok" if status == 200 else refusal(status, answer),
        "computer_move_alone_s": round(statistics.median(alone), 3),
        "computer_move_during_lessons_s": [round(x, 3) for x in behind],
        "hint_alone_s": round(hint_alone, 3),
        "hint_during_lessons_s": None if hint_behind is None else round(hint_behind, 3),
        "hint_during_lessons_answer": hint_said,
    }


@contextmanager
def served(src: str | None) -> Iterator[tuple[str, Path]]:
    """A fresh ``dorf serve`` on a fresh database: its address and the database's file."""
    with tempfile.TemporaryDirectory(prefix="dorf-doors-") as tmp:
        db = Path(tmp) / "doors.sqlite3"
        settings: dict[str, Any] = {
            "ai_workers": 2,
            "ai_delay": 0.05,
            "create_limit": 30,
            "max_connections_per_address": 16,
        }
        with launch(db, process=True, src=src, **settings) as server:
            yield server.url, db


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reads", type=int, default=1000, help="cookieless GET /api/me (default 1000)")
    parser.add_argument("--chain-seconds", type=float, default=60.0, help="each rematch chain at most (60)")
    parser.add_argument("--src", help="run the dorf serve of this source tree (its src directory)")
    parser.add_argument(
        "--parts",
        default="reads,chain,lessons",
        help="which parts, by name (default all: reads,chain,lessons)",
    )
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    found: Json = {}
    # A server of its own for each part: the creation limit of the one address (127.0.0.1) is fresh.
    if "reads" in parts:
        with served(args.src) as (base, db):
            reads = found["reads"] = players_made_by_reads(base, db, args.reads)
        print(
            f"1. {reads['reads']} cookieless GET /api/me: {reads['players_made']} player rows made"
            f" ({reads['s']:.1f} s; statuses {reads['statuses']})",
            flush=True,
        )
    for moves in (False, True) if "chain" in parts else ():
        with served(args.src) as (base, db):
            chain = rematch_chain(base, db, args.chain_seconds, moves)
        found.setdefault("chains", []).append(chain)
        how = "after each side's first move" if moves else "resigned at once"
        print(
            f"2. rematch chain, {how}: {chain['rated_results']} rated results (games) of"
            f" {chain['games']} games in {chain['s']} s; stopped: {chain['stopped']}",
            flush=True,
        )
    if "lessons" in parts:
        with served(args.src) as (base, db):
            t = found["lessons"] = lessons(base)
        asked = "; ".join(
            f"{r.get('s')} s ({r.get('answer')}, {r.get('lessons')} lessons)" for r in t["lessons"]
        )
        print(
            f"3. two lessons requests at once: {asked}; the first asked again: {t['lessons_again_s']} s"
            f" ({t['lessons_again_answer']})",
            flush=True,
        )
        print(
            f"   a computer move: {t['computer_move_alone_s']} s alone (median of 3), during the"
            f" lessons {t['computer_move_during_lessons_s']} s; a hint: {t['hint_alone_s']} s alone,"
            f" during the lessons {t['hint_during_lessons_s']} s {t['hint_during_lessons_answer']}",
            flush=True,
        )
    print(json.dumps(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
