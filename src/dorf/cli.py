"""The ``dorf`` command: play, score, replay, bench.

Every user error ends in one line on stderr and a nonzero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn

from dorf.arguments import integer, positive
from dorf.bots.online import add_bot_parser, bot_main
from dorf.bots.player import terminal_players
from dorf.bots.protocol import DEFAULT_SECONDS, bot_seconds
from dorf.bots.seat import BotCommands
from dorf.campaign import cli as campaign_cli
from dorf.commands.learn import add_learn_parser
from dorf.commands.simulate import add_simulate_parser, simulate_main
from dorf.commands.tune import add_tune_parser, tune_main
from dorf.formats.notation import BoardError, load_board
from dorf.formats.record import FORMAT as RECORD_FORMAT
from dorf.formats.record import RecordError, load_record
from dorf.players.coach import DEFAULT_PLAYER, AnalyseError, analyse_record, coach_player, report_lines
from dorf.rules.scoring import SCORERS
from dorf.server.admin import add_admin_parser, admin_main
from dorf.server.cli import add_serve_parser, serve_command
from dorf.server.upkeep import COMMANDS as UPKEEP
from dorf.server.upkeep import add_upkeep_parsers, upkeep_main
from dorf.version import VERSION


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (try: {self.prog} --help)\n")


def _counts(text: str) -> tuple[int, ...]:
    """``1,64,256``: positive integers, comma-separated."""
    return tuple(positive(part) for part in text.split(","))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dorf", description="The Dorfromantik board games.")
    parser.add_argument("--version", action="version", version=f"dorf {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    play = sub.add_parser("play", help="play a game in the terminal: cooperative, Duel or Head to Head")
    play.add_argument(
        "--mode",
        choices=("coop", "duel", "head-to-head"),
        default="coop",
        help="which game (default coop, the cooperative game)",
    )
    play.add_argument(
        "--opponent",
        default=None,
        metavar="human|easy|medium|hard|expert|PLAYER[:BUDGET]|cmd:COMMAND",
        help="two-player modes: human (two people, hot-seat; the default) or a computer: a level "
        "(easy, medium, hard, expert), a player (random, greedy, search-v1, planner, with a budget "
        "such as planner:96 futures or planner:2s seconds a move) or a program (cmd:python my_bot.py, "
        "docs/bots.md)",
    )
    play.add_argument(
        "--bot-seconds",
        type=bot_seconds,
        default=DEFAULT_SECONDS,
        metavar="S",
        help=f"--opponent cmd:...: the program's clock for each decision (default {DEFAULT_SECONDS:g})",
    )
    play.add_argument("--players", type=positive, default=None, help="number of players, 1 to 6 (coop)")
    play.add_argument(
        "--names", default=None, help="comma-separated player names (coop: sets --players; vs random: yours)"
    )
    play.add_argument("--seed", type=integer, default=None, help="seed of the shuffle (random if omitted)")
    play.add_argument(
        "--first",
        type=positive,
        default=1,
        metavar="N",
        help="who starts, by place in --names (default 1): the first player of the cooperative game, "
        "the first to pick in the Head to Head draft, the first to place in the Duel",
    )
    play.add_argument(
        "--practice",
        action="store_true",
        help="a practice game: undo allowed; its record says so and no campaign takes it",
    )
    play.add_argument("--save", default=None, metavar="FILE", help="save the game record here at the end")
    play.add_argument("--no-color", action="store_true", help="letters only, no ANSI colours")

    score = sub.add_parser("score", help="score a dorf-board/1 file")
    score.add_argument("file", metavar="FILE")
    score.add_argument("--json", action="store_true", help="print one JSON object")

    replay = sub.add_parser("replay", help="step through a game record (any mode) and print the final score")
    replay.add_argument("file", metavar="FILE")
    replay.add_argument("--step", action="store_true", help="wait for Enter after each turn")
    replay.add_argument("--no-color", action="store_true", help="letters only, no ANSI colours")

    bench = sub.add_parser(
        "bench",
        help="time the engine (random games, the search player, an area's memory); prints one JSON line",
    )
    bench.add_argument("--mode", choices=("coop", "duel", "head-to-head"), default="coop")
    bench.add_argument(
        "--measure",
        choices=("play", "search", "planner", "memory", "vector"),
        default="play",
        help="play: random games (placements/s); search, planner: that player (futures/s); "
        "memory: bytes of the fullest play area; vector: the batched RL environments (steps/s, docs/rl.md)",
    )
    bench.add_argument(
        "--envs",
        type=_counts,
        default=(1, 64, 256, 1024),
        help="vector: games stepped together, comma-separated (default 1,64,256,1024)",
    )
    bench.add_argument("--steps", type=positive, default=50_000, help="vector: steps a row (default 50000)")
    bench.add_argument(
        "--workers", type=positive, default=1, help="vector: processes the games are split among (default 1)"
    )
    bench.add_argument("--games", type=positive, default=200, help="games (play) or positions (search)")
    bench.add_argument("--seed", type=integer, default=1, help="seed of the first game (default 1)")
    bench.add_argument(
        "--compare",
        action="store_true",
        help="run on the pure and the compiled backend in turn; print the ratio",
    )
    campaign_cli.add_parser(sub)
    add_simulate_parser(sub)
    add_analyse_parser(sub)
    add_serve_parser(sub)
    add_admin_parser(sub)
    add_upkeep_parsers(sub)
    add_tune_parser(sub)
    add_learn_parser(sub)
    add_bot_parser(sub)
    return parser


def cmd_score(path: str, as_json: bool) -> int:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        print(f"dorf score: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"dorf score: {path} is not UTF-8 text", file=sys.stderr)
        return 2
    try:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise BoardError(f"not valid JSON: {exc}") from None
        if isinstance(data, dict) and data.get("format") == RECORD_FORMAT:
            raise BoardError(f"{path} is a {RECORD_FORMAT} file (a game record); use dorf replay {path}")
        mode, area = load_board(data)
    except BoardError as exc:
        print(f"dorf score: {exc}", file=sys.stderr)
        return 2
    pad = SCORERS[mode](area)
    if as_json:
        print(json.dumps(pad.as_json()))
    else:
        print("\n".join(pad.lines()))
        for task in pad.task_list:
            q, r = task["at"]
            name = "/".join(task["types"]) if "types" in task else task["type"]
            print(f"  task at [{q}, {r}]: {name} {task['value']} {task['status']}")
    return 0


def _search_spec(text: str) -> str:
    try:
        coach_player(text)
    except AnalyseError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_analyse_parser(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``dorf analyse`` with its arguments."""
    parser = sub.add_parser(
        "analyse",
        help="coach: weigh every placement of a game record against the strongest player",
        description="Replay a game record and show, biggest mistakes first, how many points each "
        "placement is expected to lose against the coach's choice, and why.",
    )
    parser.add_argument("file", metavar="RECORD", help="a dorf-record/1 file (any mode)")
    parser.add_argument(
        "--player",
        metavar="SPEC",
        type=_search_spec,
        default=DEFAULT_PLAYER,
        help="the coach: planner:N (sampled futures a decision), planner:Ns (seconds), a level, "
        f"or search:N (default {DEFAULT_PLAYER})",
    )
    parser.add_argument(
        "--top", metavar="N", type=positive, default=None, help="show only the N biggest mistakes"
    )
    parser.add_argument(
        "--seed", metavar="S", type=integer, default=0, help="seed of the sampled futures (default 0)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per placement")


def analyse_main(args: argparse.Namespace) -> int:
    """``dorf analyse``: one line on stderr and exit 2 for a bad record."""
    show = sys.stderr.isatty()
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if show:
            sys.stderr.write(f"\ranalysing decision {done}/{total}  {time.perf_counter() - started:.1f} s ")
            sys.stderr.flush()

    try:
        record = load_record(args.file)
        verdicts = analyse_record(record, args.player, args.seed, progress)
    except (RecordError, AnalyseError) as exc:
        if show:
            sys.stderr.write("\r\033[K")
        print(f"dorf analyse: {exc}", file=sys.stderr)
        return 2
    if show:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
    shown = verdicts if args.top is None else verdicts[: args.top]
    if args.json:
        for verdict in shown:
            print(json.dumps(verdict.as_json()))
    else:
        print("\n".join(report_lines(record, verdicts, args.player, args.top)))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        if args.command == "score":
            return cmd_score(args.file, args.json)
        if args.command == "campaign":
            return campaign_cli.run(args)
        if args.command == "simulate":
            return simulate_main(args)
        if args.command == "analyse":
            return analyse_main(args)
        if args.command == "serve":
            words = list(sys.argv[1:] if argv is None else argv)
            return serve_command(args, words[words.index("serve") + 1 :], BotCommands)
        if args.command == "bot":
            return bot_main(args)
        if args.command == "admin":
            return admin_main(args)
        if args.command in UPKEEP:
            return upkeep_main(args)
        if args.command == "tune":
            return tune_main(args)
        if args.command == "learn":
            from dorf.rl.cli import learn_main

            return learn_main(args)
        if args.command == "bench" and args.measure == "vector":
            from dorf.rl.bench import vector_line

            print(vector_line(args.envs, args.steps, args.seed, args.workers, args.mode))
            return 0
        if args.command == "bench":
            from dorf.commands.bench import BenchError, bench_line

            try:
                print(bench_line(args.games, args.seed, args.mode, args.measure, args.compare))
            except BenchError as exc:
                print(f"dorf bench: {exc}", file=sys.stderr)
                return 2
            return 0
        if args.command == "play":
            from dorf.terminal.play import play_main

            return play_main(args, players=terminal_players(args.bot_seconds))
        if args.command == "replay":
            from dorf.terminal.play import replay_main

            return replay_main(args)
    except KeyboardInterrupt:
        print("\ndorf: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    parser.error(f"unknown command {args.command!r}")


if __name__ == "__main__":
    sys.exit(main())
