"""Bots from anywhere (docs/bots.md): programs that play through JSON lines on their standard input
and output, in ``dorf simulate``, ``dorf play``, the server's computer seats and ``dorf bot``.

A program that misbehaves loses that decision (the first legal move is played, one line on
stderr says why) and the game goes on, in bounded time; the example random bot plays move for
move as the in-process random player with the same seeds, in every mode.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from test_server_helpers import create, served, until
from test_server_process import _announced, _serve
from test_terminal import run, script

from dorf.bots.player import BotPlayer, Mirror
from dorf.bots.process import CONTAINED, Limits
from dorf.bots.protocol import decision_of, moves_of
from dorf.bots.seat import MAX_STARTS, BotCommands
from dorf.cli import main
from dorf.commands.simulate import MODES, GameJob, Simulation, play_game, player_seed, run_games
from dorf.formats.record import GameState, record_of
from dorf.games.coop import CoopGame, CoopState
from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import HeadToHeadGame
from dorf.players import Player, RandomPlayer, make_player
from dorf.rules.area import Placement
from dorf.testing.net import get, post
from repo import ROOT

EXAMPLES = ROOT / "examples" / "bots"

#: A test program: the first legal move, except at decision ``WHEN`` (every one if 0) where it
#: misbehaves as ``HOW`` says.
TEST_BOT = """
import json, sys, time
how, when = sys.argv[1], int(sys.argv[2])
for line in iter(sys.stdin.readline, ""):
    message = json.loads(line)
    if message["type"] != "decide":
        continue
    if message["decision"] == when or when == 0:
        if how == "garbage":
            print("this is not json", flush=True)
            continue
        if how == "illegal":
            print(json.dumps({"at": [99, 99], "rot": 0}), flush=True)
            continue
        if how == "sleep":
            time.sleep(60)
        if how == "exit":
            sys.exit(3)
        if how == "flood":
            sys.stdout.write("x" * 10_000_000)
            sys.stdout.flush()
            time.sleep(60)
        if how == "chatty":  # a second line for the same decision, said to be for it
            print(json.dumps({**message["moves"][0], "decision": message["decision"]}), flush=True)
    print(json.dumps({**message["moves"][0], "decision": message["decision"]}), flush=True)
"""


def cmd(program: Path | str, *args: str) -> str:
    """A ``cmd:`` player running ``program`` with this test's Python."""
    return "cmd:" + shlex.join([sys.executable, str(program), *args])


RANDOM_BOT = cmd(EXAMPLES / "random_bot.py")
GREEDY_BOT = cmd(EXAMPLES / "greedy_bot.py")


@pytest.fixture
def test_bot(tmp_path: Path) -> Path:
    path = tmp_path / "test_bot.py"
    path.write_text(TEST_BOT, encoding="utf-8")
    return path


def new_state(mode: str, seed: int, players: int = 1) -> GameState:
    if mode == "coop":
        return CoopGame(seed=seed, players=players).new_state()
    return DuelGame(seed=seed).new_state() if mode == "duel" else HeadToHeadGame(seed).new_state()


def play(mode: str, seed: int, players: list[Player]) -> tuple[list[Any], list[int]]:
    """Play a game with these players (a program attached to its seat); its decisions (the
    record's) and totals.  At every decision, the legal moves a program would be shown are the
    view's legal decisions in the same order, and the seed is never shown."""
    state = new_state(mode, seed, len(players))
    mirror = Mirror(state)
    try:
        for seat, player in enumerate(players):
            if isinstance(player, BotPlayer):
                player.attach(state, seat)
        while not state.is_over:
            if isinstance(state, CoopState):
                seat, view = state.player, state.view()
            else:
                seat = state.to_move()[0]
                view = state.view(seat)
            document = mirror.document(seat)
            assert "seed" not in document["game"]
            listed = [decision_of(move) for move in moves_of(document, seat)]
            assert listed == list(view.legal_decisions())
            decision = players[seat].choose(view)
            if isinstance(state, CoopState):
                assert isinstance(decision, Placement)
                state.play(decision)
            elif isinstance(state, DuelState):
                assert isinstance(decision, Placement)
                state.play(decision, seat)
            else:
                state.apply(decision, seat)
    finally:
        for player in players:
            if isinstance(player, BotPlayer):
                player.close()
    scores = [state.score()] if isinstance(state, CoopState) else state.scores()
    return record_of(state)["decisions"], [pad.total for pad in scores]


# --- the protocol, move for move ----------------------------------------------------------


@pytest.mark.parametrize(("mode", "seats"), [("coop", 1), ("coop", 2), ("duel", 2), ("head-to-head", 2)])
@pytest.mark.slow
def test_the_random_bot_plays_move_for_move_as_the_random_player(mode: str, seats: int) -> None:
    """Both seats programs (two processes), against both seats in-process, on the seeds that
    ``dorf simulate`` gives them."""
    seed = 11
    via: list[Player] = [BotPlayer(RANDOM_BOT, player_seed(seed, s)) for s in range(seats)]
    here: list[Player] = [RandomPlayer(player_seed(seed, s)) for s in range(seats)]
    decisions, totals = play(mode, seed, via)
    assert (decisions, totals) == play(mode, seed, here)
    assert all(isinstance(p, BotPlayer) and p.lost == 0 for p in via)


@pytest.mark.parametrize("mode", MODES)
def test_simulate_with_the_random_bot_writes_the_random_players_games(mode: str) -> None:
    opponent = None if mode == "coop" else "greedy"
    results = [
        run_games(Simulation(mode, player, opponent, games=1, seed=3).jobs())
        for player in (RANDOM_BOT, "random")
    ]
    for bot, inside in zip(*results, strict=True):
        assert bot.pop("lost") == ([0] if mode == "coop" else [0, 0])
        for line in (bot, inside):
            del line["seconds"], line["players"]
        assert bot == inside


# --- programs that misbehave --------------------------------------------------------------


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("garbage", "'this is not json', which is not JSON"),
        ("illegal", "which is not one of the legal moves"),
        pytest.param(
            "sleep",
            "no answer within 2 s; it was stopped, and starts again for its next decision",
            marks=pytest.mark.slow,  # waits out the 2 s
        ),
        ("exit", "the program exited (status 3); it was stopped"),
        ("flood", "over 4096 bytes without a newline; it was stopped"),
    ],
)
def test_a_bad_answer_loses_that_decision_and_the_game_goes_on(
    how: str, reason: str, test_bot: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Decision 2 goes wrong: it is lost, the first legal move is played (what the program plays
    anyway, so the game is the same as without the fault), and the game ends in bounded time."""
    started = time.monotonic()
    faulty = play_game(GameJob(0, 5, "duel", (cmd(test_bot, how, "2"), "random"), bot_seconds=2.0))
    took = time.monotonic() - started
    sound = play_game(GameJob(0, 5, "duel", (cmd(test_bot, how, "-1"), "random"), bot_seconds=2.0))
    err = capfd.readouterr().err
    assert faulty["lost"] == [1, 0] and sound["lost"] == [0, 0], err
    for key in ("score", "moves", "winner"):
        assert faulty[key] == sound[key]
    assert "(seat 0) lost decision 2: " in err and reason in err, err
    assert "it plays the first legal move, {" in err
    assert err.count("lost decision") == 1
    assert took < 30


def test_a_program_that_always_fails_is_started_three_times_then_the_seat_plays_alone(
    test_bot: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    result = play_game(GameJob(0, 8, "duel", ("random", cmd(test_bot, "exit", "0"))))
    err = capfd.readouterr().err
    assert result["lost"] == [0, result["moves"][1]] and result["moves"][1] > 20  # every decision
    assert err.count("exited (status 3)") == MAX_STARTS
    assert err.count(f"it was started {MAX_STARTS} times in this game already") == 1  # said once
    assert err.count("lost decision") == MAX_STARTS + 1
    assert "winner" in result and time.monotonic() - started < 30


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="/proc")
def test_ctrl_c_stops_the_programs_of_the_games_under_way(tmp_path: Path) -> None:
    """Programs that never answer, in two worker processes: Ctrl-C ends dorf simulate at once,
    and every program with it (the workers kill them as they are terminated)."""
    sleeper = tmp_path / "sleeper.py"
    sleeper.write_text("import sys, time\nsys.stdin.readline()\nsys.stdin.readline()\ntime.sleep(600)\n")
    command = [sys.executable, "-m", "dorf.cli", "simulate", "--mode", "duel", "--player", cmd(sleeper)]
    # dorf must start with Ctrl-C heard, as from a shell, though this process may ignore it (an
    # ignored signal stays ignored across exec, a handled one is heard again): a handler here
    # while it starts, not a preexec_fn (which forks this process, JAX's threads and all).
    heard = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen(
            [*command, "--games", "4", "--workers", "2", "--bot-seconds", "300"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        signal.signal(signal.SIGINT, heard)

    try:
        until(lambda: len(_programs(sleeper)) == 2, limit=60)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
        assert process.returncode == 130 and "interrupted" in err
        until(lambda: not _programs(sleeper), limit=10)
    finally:
        process.kill()
        process.wait()


def test_lines_nobody_asked_for_are_dropped(test_bot: Path, capfd: pytest.CaptureFixture[str]) -> None:
    result = play_game(GameJob(0, 5, "duel", (cmd(test_bot, "chatty", "3"), "random")))
    err = capfd.readouterr().err
    assert result["lost"] == [0, 0]
    assert "wrote 1 line(s) nobody asked for: ignored" in err


def test_a_program_that_cannot_be_found_is_one_line() -> None:
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit_info, redirect_stdout(out):
        main(["simulate", "--mode", "duel", "--player", "cmd:no-such-program-here --x", "--games", "1"])
    assert exit_info.value.code == 2
    with pytest.raises(ValueError, match="no program 'no-such-program-here' on the PATH"):
        BotPlayer("cmd:no-such-program-here")
    with pytest.raises(ValueError, match="names no program"):
        BotPlayer("cmd:   ")


# --- what a program starts ends with it; what it may use ---------------------------------

#: A test program that answers the first legal move; at its first decision it starts a process
#: meant to outlive it (``HOW``: ``setsid``, in a session of its own; ``double-fork``, the child
#: of a child that exits at once, so an orphan, in a session of its own too), which writes its
#: pid to ``PIDS`` and sleeps; it waits ``PAUSE`` seconds before each answer.
FORKER = """
import json, os, sys, time
how, pids, pause = sys.argv[1], sys.argv[2], float(sys.argv[3])
for line in iter(sys.stdin.readline, ""):
    message = json.loads(line)
    if message["type"] != "decide":
        continue
    if message["decision"] == 1:
        if os.fork() == 0:
            if how == "double-fork" and os.fork() != 0:
                os._exit(0)
            os.setsid()
            with open(pids, "a") as out:
                out.write(f"{os.getpid()}\\n")
            time.sleep(600)
            os._exit(0)
        while not (os.path.exists(pids) and open(pids).read()):
            time.sleep(0.01)
    time.sleep(pause)
    print(json.dumps(message["moves"][0]), flush=True)
"""


@pytest.fixture
def forker(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """The FORKER program and its pid file; whatever it left behind is killed after the test."""
    program, pids = tmp_path / "forker.py", tmp_path / "pids"
    program.write_text(FORKER, encoding="utf-8")
    yield program, pids
    for pid in _pids(pids):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _pids(path: Path) -> list[int]:
    return [int(word) for word in path.read_text().split()] if path.exists() else []


@pytest.mark.skipif(not CONTAINED, reason="the supervisor: Linux")
@pytest.mark.parametrize("how", ["setsid", "double-fork"])
def test_what_a_program_started_ends_with_its_game(how: str, forker: tuple[Path, Path]) -> None:
    """Even a process in a session of its own, or an orphan: nothing is left once the game is over."""
    program, pids = forker
    result = play_game(GameJob(0, 4, "duel", (cmd(program, how, str(pids), "0"), "random")))
    assert result["lost"] == [0, 0] and "winner" in result
    [left] = _pids(pids)
    until(lambda: not _alive(left), limit=10)


@pytest.mark.skipif(not CONTAINED, reason="the supervisor: Linux")
@pytest.mark.slow
def test_what_a_computer_seats_program_started_ends_with_its_game(
    db: Path, forker: tuple[Path, Path]
) -> None:
    program, pids = forker
    seats = [{"kind": "computer", "player": cmd(program, "setsid", str(pids), "0")}]
    with served(db, bot_commands=BotCommands(10.0)) as client:
        made = create(client, mode="coop", seats=seats, seed=3)
        until(lambda: client.get(f"/api/games/{made['id']}").json()["over"], limit=120)
        [left] = _pids(pids)
        until(lambda: not _alive(left), limit=10)


@pytest.mark.slow
@pytest.mark.skipif(not CONTAINED, reason="the supervisor: Linux")
def test_what_a_program_started_ends_with_a_server_killed_outright(
    tmp_path: Path, forker: tuple[Path, Path]
) -> None:
    """The server dies by SIGKILL in the middle of the game: its programs' supervisors see it
    (their socket closes) and end all below them."""
    program, pids = forker
    server = _serve(tmp_path / "dorf.sqlite3", "--port", "0", "--ai-workers", "0", "--allow-bot-commands")
    try:
        base = _announced(server)
        player = cmd(program, "double-fork", str(pids), "0.5")
        seats = [{"kind": "computer", "player": player}, {"kind": "computer", "player": "random"}]
        post(base + "/api/games", {"mode": "duel", "seats": seats})
        until(lambda: len(_pids(pids)) == 1, limit=60)
        [left] = _pids(pids)
        assert _alive(left)
    finally:
        server.kill()
        server.wait(timeout=30)
    until(lambda: not _alive(left), limit=10)
    until(lambda: not _programs(program), limit=10)


#: A test program that answers the first legal move, but at its second decision goes over a limit
#: as ``HOW`` says: ``memory`` (1 GiB written), ``cpu`` (a loop that never ends), ``processes``
#: (40 children, sleeping).
HOG = """
import json, os, sys, time
how = sys.argv[1]
for line in iter(sys.stdin.readline, ""):
    message = json.loads(line)
    if message["type"] != "decide":
        continue
    if message["decision"] == 2:
        if how == "memory":
            hoard = b"x" * (1 << 30)
        elif how == "cpu":
            while True:
                pass
        elif how == "processes":
            for _ in range(40):
                if os.fork() == 0:
                    time.sleep(600)
                    os._exit(0)
            time.sleep(600)
    print(json.dumps(message["moves"][0]), flush=True)
"""


@pytest.mark.skipif(not CONTAINED, reason="the supervisor: Linux")
@pytest.mark.parametrize(
    ("how", "limits", "reason"),
    [
        ("memory", Limits(60, memory=256 << 20), "the program exited (status 1)"),
        pytest.param("cpu", Limits(1), "it used up its 1 s of processor time", marks=pytest.mark.slow),
        pytest.param(
            "processes",
            Limits(60, processes=8),
            "processes at once, over its limit of 8",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_a_program_over_a_limit_is_stopped_and_its_seat_plays_on(
    how: str, limits: Limits, reason: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "hog.py"
    program.write_text(HOG, encoding="utf-8")
    bot = BotPlayer(cmd(program, how), 1, seconds=30.0, limits=limits)
    started = time.monotonic()
    decisions, totals = play("duel", 5, [bot, RandomPlayer(2)])  # to the end of the game
    err = capfd.readouterr().err
    assert bot.lost == 1 and len(totals) == 2 and len(decisions) > 20, err
    [said] = [line for line in err.splitlines() if "(seat 0) lost decision 2: " in line]
    assert reason in said and "; it was stopped, and starts again for its next decision" in said, err
    assert how != "memory" or "MemoryError" in err
    assert time.monotonic() - started < 25  # long before its clock (30 s) would have stopped it
    until(lambda: not _programs(program), limit=10)


def test_the_limits_docs_bots_md_gives_are_the_defaults() -> None:
    doc = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    default = Limits.for_clock(5.0)
    for said in (
        "100 times the clock",
        f"{default.cpu_seconds} s",
        f"{default.memory >> 30} GiB of address space",
        f"{default.processes} processes at once",
        f"{default.file_size >> 20} MiB",
    ):
        assert said in doc, said


# --- the examples ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["random_bot.py", "greedy_bot.py"])
def test_the_example_bots_are_short_and_use_the_standard_library_only(name: str) -> None:
    source = (EXAMPLES / name).read_text(encoding="utf-8")
    assert len(source.splitlines()) <= 100
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            modules.add((node.module or "").split(".")[0])
    assert modules and modules <= set(sys.stdlib_module_names), modules


@pytest.mark.slow
def test_dorf_simulate_runs_the_greedy_example_against_random() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        options = ["--opponent", "random", "--games", "4", "--workers", "1"]
        code = main(["simulate", "--mode", "duel", "--player", GREEDY_BOT, *options])
    assert code == 0
    wins = next(line for line in out.getvalue().splitlines() if "player 1 wins" in line)
    assert int(wins.split()[-4].split("/")[0]) >= 3, out.getvalue()


# --- dorf play --opponent cmd:... -------------------------------------------------------------


def test_dorf_play_against_a_program(test_bot: Path) -> None:
    """Zoe types the last legal placement each turn; the program plays the first."""
    state = DuelGame(seed=6).new_state()
    lines = []
    while not state.is_over:
        player = state.to_move()[0]
        placements = state.legal_placements(player)
        placement = placements[0] if player == 1 else placements[-1]
        if player == 0:
            lines.append(str(placement))
        state.play(placement, player)
    opponent = cmd(test_bot, "none", "-1")
    result = run(
        ["play", "--mode", "duel", "--seed", "6", "--opponent", opponent, "--names", "Zoe"], script(lines)
    )
    assert result.returncode == 0, result.stderr
    assert "Zoe against the computer, which is the program " in result.stdout
    totals = [pad.total for pad in state.scores()]
    winner = state.winner()
    names = ("Zoe", "Computer")
    expected = (
        f"Both score {totals[0]}: a shared win."
        if winner is None
        else f"{names[winner]} wins, {totals[winner]} to {totals[1 - winner]}."
    )
    assert expected in result.stdout
    assert "lost decision" not in result.stderr


# --- the server's computer seats -----------------------------------------------------------


def test_a_web_request_naming_a_program_is_refused_unless_the_operator_allows_it(db: Path) -> None:
    seats = [{"kind": "here"}, {"kind": "computer", "player": RANDOM_BOT}]
    with served(db) as client:
        response = client.post("/api/games", json={"mode": "duel", "seats": seats})
        assert response.status_code == 403
        error = response.json()["error"]
        assert error["code"] == "no-commands" and "--allow-bot-commands" in error["message"]
    with served(db, bot_commands=BotCommands()) as client:
        bad = [{"kind": "computer", "player": "cmd:no-such-program-here"}]
        response = client.post("/api/games", json={"mode": "coop", "seats": bad})
        assert response.status_code == 400 and "no program" in response.json()["error"]["message"]


@pytest.mark.slow
def test_a_computer_seat_played_by_a_program_where_the_operator_allows_it(db: Path, tmp_path: Path) -> None:
    program = tmp_path / "seat_bot.py"
    program.write_text((EXAMPLES / "random_bot.py").read_text(encoding="utf-8"), encoding="utf-8")
    seats = [{"kind": "computer", "player": cmd(program)}, {"kind": "computer", "player": "greedy"}]
    with served(db, bot_commands=BotCommands(10.0)) as client:
        made = create(client, mode="head-to-head", seats=seats, seed=None)
        game_id = made["id"]

        def state() -> Any:
            return client.get(f"/api/games/{game_id}").json()

        until(lambda: state()["over"], limit=120)
        final = state()
        assert final["seats"][0]["name"] == "Computer 1 (bot)" and final["winner"] in (0, 1, None)

        until(lambda: not _programs(program), limit=10)  # stopped once the game is over


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _programs(path: Path) -> list[int]:
    """The processes running the program ``path`` (not dorf, not their supervisors)."""
    return [
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit()
        and str(path) in (line := _cmdline(int(entry.name)))
        and "dorf.cli" not in line
        and "supervisor.py" not in line
        and _alive(int(entry.name))
    ]


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead and not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


# --- dorf bot: a seat of an online game, through a real server --------------------------------


@pytest.mark.slow  # a server process and dorf bot processes
@pytest.mark.skipif(sys.platform != "linux", reason="/proc")
def test_dorf_bot_plays_a_seat_of_a_real_server(tmp_path: Path) -> None:
    server = _serve(
        tmp_path / "dorf.sqlite3",
        "--port",
        "0",
        "--ai-workers",
        "0",
        "--ai-delay",
        "0",
        "--allow-bot-commands",
        "--bot-seconds",
        "10",
    )
    try:
        base = _announced(server)
        seats = [{"kind": "here", "name": "Bot"}, {"kind": "computer", "player": RANDOM_BOT}]
        made = post(base + "/api/games", {"mode": "duel", "seats": seats}, timeout=10)
        game_id, token = made["id"], made["tokens"]["0"]
        # --game=ID and --token=T: an id or a token may begin with "-"
        command = [sys.executable, "-m", "dorf.cli", "bot", "--server", base, f"--game={game_id}"]
        played = subprocess.run(
            [*command, f"--token={token}", "--", sys.executable, str(EXAMPLES / "greedy_bot.py")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert played.returncode == 0, played.stderr
        assert f"dorf bot: game {game_id} is over; scores [" in played.stdout
        assert "lost" not in played.stdout + played.stderr and "refused" not in played.stderr, played.stderr
        final = get(f"{base}/api/games/{game_id}", timeout=10)
        assert final["over"] and len(final["areas"][0]["tiles"]) > 20
        refused = subprocess.run(
            [*command, "--token=not-a-token", "--", sys.executable, str(EXAMPLES / "random_bot.py")],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert "holds no seat" in refused.stderr or "bad-token" in refused.stderr
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_make_player_stays_the_engines_registry() -> None:
    """The engine knows no programs: only dorf.bots runs them."""
    with pytest.raises(ValueError, match="unknown player 'cmd'"):
        make_player(RANDOM_BOT)


#: A program that writes every message it gets to a file and answers the first legal move.
RECORDER = """
import json, sys
with open(sys.argv[1], "w", encoding="utf-8") as out:
    for line in iter(sys.stdin.readline, ""):
        out.write(line)
        out.flush()
        message = json.loads(line)
        if message["type"] == "decide":
            print(json.dumps(message["moves"][0]), flush=True)
"""


@pytest.mark.slow
def test_the_messages_in_docs_bots_md_are_what_dorf_sends(tmp_path: Path) -> None:
    program, messages = tmp_path / "recorder.py", tmp_path / "messages.jsonl"
    program.write_text(RECORDER, encoding="utf-8")
    player = cmd(program, str(messages))
    code = main(
        ["simulate", "--mode", "coop", "--player", player, "--seed", "1", "--games", "1", "--workers", "1"]
    )
    assert code == 0
    sent = messages.read_text(encoding="utf-8").splitlines()
    doc = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)\n```", doc, re.S)
    start, decide, answer = (json.loads(block) for block in blocks[:3])
    assert start == json.loads(sent[0])
    assert decide == json.loads(sent[2])
    assert answer == decide["moves"][0]
    end = re.search(r'^(\{"type":"end".*),\.\.\.\}\}\}$', doc, re.M)
    assert end is not None and sent[-1].startswith(end.group(1) + ",")
    assert json.loads(sent[-1])["state"]["game"]["over"] is True
    assert len(sent) == 2 + json.loads(sent[-1])["state"]["game"]["turn"]  # start, decisions, end
