"""Bots from anywhere (docs/bots.md): programs that play through JSON lines on their standard input
and output, in ``dorf simulate``, ``dorf play``, the server's computer seats and ``dorf bot``.

A program that misbehaves loses that decision (the first legal move is played, one line on
stderr says why) and the game goes on, in bounded time; the example random bot plays move for
move as the in-process random player with the same seeds, in every mode.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from dorf.cli import main
from dorf.formats.record import GameState, record_of
from dorf.games.coop import CoopGame, CoopState
from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import HeadToHeadGame
from dorf.lab.bots import (
    MAX_STARTS,
    BotCommands,
    BotPlayer,
    Mirror,
    decision_of,
    moves_of,
)
from dorf.lab.simulate import MODES, GameJob, Simulation, play_game, player_seed, run_games
from dorf.players import Player, RandomPlayer, make_player
from dorf.rules.area import Placement
from test_server_helpers import create, served, until
from test_server_process import _announced, _children, _serve
from test_terminal import run, script

ROOT = Path(__file__).resolve().parent.parent
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
        ("sleep", "no answer within 2 s; it was stopped, and starts again for its next decision"),
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
    process = subprocess.Popen(
        [*command, "--games", "4", "--workers", "2", "--bot-seconds", "300"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )

    def running() -> list[int]:
        return [
            int(entry.name)
            for entry in Path("/proc").iterdir()
            if entry.name.isdigit()
            and str(sleeper) in _cmdline(int(entry.name))
            and "dorf.cli" not in _cmdline(int(entry.name))
        ]

    try:
        until(lambda: len(running()) == 2, limit=60)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
        assert process.returncode == 130 and "interrupted" in err
        until(lambda: not running(), limit=10)
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

        def running() -> list[int]:
            return [pid for pid in _children(os.getpid()) if str(program) in _cmdline(pid)]

        until(lambda: not running(), limit=10)  # stopped once the game is over


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


# --- dorf bot: a seat of an online game, through a real server --------------------------------


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
        body = json.dumps({"mode": "duel", "seats": seats}).encode()
        request = urllib.request.Request(base + "/api/games", data=body, method="POST")
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as response:
            made = json.loads(response.read())
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
        with urllib.request.urlopen(f"{base}/api/games/{game_id}", timeout=10) as response:
            final = json.loads(response.read())
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
    """The engine knows no programs: only dorf.lab.bots runs them."""
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
