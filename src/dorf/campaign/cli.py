"""``dorf campaign``: the campaign in the terminal.

:func:`add_parser` registers the subcommand on ``dorf``'s parser and
:func:`run` carries it out.  Errors are one line on stderr and exit 2; a
command that fails records nothing.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dorf.campaign.store import CampaignInfo, CampaignView, Change

PROG = "dorf campaign"
#: The typed-in pad's options: option, JSON path (section, key) and what the score pad calls it.
PAD_OPTIONS: tuple[tuple[str, str | None, str, str], ...] = (
    ("--forest", "tasks", "forest", "B1 forest task points"),
    ("--grain", "tasks", "grain", "B2 grain task points"),
    ("--village", "tasks", "village", "B3 village task points"),
    ("--track", "tasks", "track", "B4 track task points"),
    ("--river", "tasks", "river", "B5 river task points"),
    ("--flags-forest", "flags", "forest", "C1 green (forest) flag points"),
    ("--flags-grain", "flags", "grain", "C2 yellow (grain) flag points"),
    ("--flags-village", "flags", "village", "C3 red (village) flag points"),
    ("--longest-track", None, "longest_track", "D1 longest track, in tiles"),
    ("--longest-river", None, "longest_river", "D2 longest river, in tiles"),
    ("--unlocked", None, "unlocked", "S3 points from unlocked components"),
    ("--total", None, "total", "H the pad's total (checked against the fields)"),
)


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``campaign`` and its actions to ``dorf``'s subparsers."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        metavar="PATH",
        default=None,
        help="the database file (default: $DORF_DB, else the data directory)",
    )
    campaign: argparse.ArgumentParser = sub.add_parser(
        "campaign",
        help="keep a cooperative campaign across games",
        description="Keep a cooperative campaign across games, in the SQLite database shared with "
        "the server.",
    )
    actions = campaign.add_subparsers(dest="campaign_command", metavar="ACTION")

    new = actions.add_parser("new", parents=[common], help="start a campaign")
    new.add_argument("name", metavar="NAME")
    new.add_argument("--sheet", metavar="FILE", help="your own campaign sheet (default: the shipped one)")

    listing = actions.add_parser("list", parents=[common], help="list the campaigns")
    listing.add_argument("--all", action="store_true", help="archived campaigns too")
    listing.add_argument("--json", action="store_true", help="print one JSON array")

    show = actions.add_parser("show", parents=[common], help="games, totals, track and achievements")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--json", action="store_true", help="print one JSON object")

    rename = actions.add_parser("rename", parents=[common], help="rename a campaign")
    rename.add_argument("name", metavar="OLD")
    rename.add_argument("new_name", metavar="NEW")

    archive = actions.add_parser("archive", parents=[common], help="set a campaign aside (hidden from list)")
    archive.add_argument("name", metavar="NAME")
    unarchive = actions.add_parser("unarchive", parents=[common], help="bring an archived campaign back")
    unarchive.add_argument("name", metavar="NAME")

    record = actions.add_parser(
        "record",
        parents=[common],
        help="record a finished cooperative game",
        description="Record a finished cooperative game: from a game record (--from-record), from a pad "
        "as JSON (--pad), or typed in from the paper score pad (the field options; missing fields are 0).",
    )
    record.add_argument("name", metavar="NAME")
    source = record.add_argument_group("where the score comes from (one of)")
    source.add_argument("--from-record", metavar="FILE", help="a finished coop game record (dorf-record/1)")
    source.add_argument(
        "--pad", metavar="JSON", help="the pad as a JSON object (as `dorf score --json` prints), or @FILE"
    )
    fields = record.add_argument_group("the paper score pad's fields")
    for option, _, _, label in PAD_OPTIONS:
        fields.add_argument(option, type=_whole, default=None, metavar="N", help=label)
    record.add_argument("--date", metavar="YYYY-MM-DD", help="when the game was played (default today)")
    record.add_argument("--players", metavar="NAMES", help="comma-separated player names (typed-in pads)")
    record.add_argument(
        "--branch",
        action="append",
        default=[],
        metavar="NODE",
        help="at a fork this game reaches, take the branch starting at NODE (repeatable)",
    )
    record.add_argument("--json", action="store_true", help="print what changed as one JSON object")

    choose = actions.add_parser(
        "choose", parents=[common], help="choose a branch at the fork the track waits at"
    )
    choose.add_argument("name", metavar="NAME")
    choose.add_argument("branch", metavar="BRANCH", help="the first node of the branch, as `show` lists them")

    plot = actions.add_parser("plot", parents=[common], help="draw the score history as SVG")
    plot.add_argument("name", metavar="NAME")
    plot.add_argument("--out", metavar="FILE.svg", required=True, help="where to write it ('-': stdout)")

    track = actions.add_parser("track", parents=[common], help="draw the track with what is unlocked as SVG")
    track.add_argument("name", metavar="NAME")
    track.add_argument("--out", metavar="FILE.svg", required=True, help="where to write it ('-': stdout)")

    sheet = actions.add_parser(
        "sheet", parents=[common], help="print a campaign's sheet, or the default one to start your own from"
    )
    sheet.add_argument("name", metavar="NAME", nargs="?", help="a campaign (default: the shipped sheet)")
    sheet.add_argument("--out", metavar="FILE", default="-", help="where to write it (default stdout)")
    return campaign


class _Fail(Exception):
    """An error to print as one line."""


def run(args: argparse.Namespace) -> int:
    """Carry out ``dorf campaign ACTION``; returns the exit status."""
    from dorf.campaign.pad import PadError
    from dorf.campaign.sheet import SheetError
    from dorf.campaign.store import CampaignError
    from dorf.db import DatabaseError

    action = args.campaign_command
    if action is None:
        print(
            f"{PROG}: give an action: new, list, show, record, choose, plot, track, ... (try: {PROG} --help)",
            file=sys.stderr,
        )
        return 2
    try:
        return _ACTIONS[action](args)
    except (CampaignError, PadError, SheetError, DatabaseError, _Fail) as exc:
        print(f"{PROG} {action}: {exc}", file=sys.stderr)
    except sqlite3.Error as exc:
        print(f"{PROG} {action}: database error: {exc}", file=sys.stderr)
    return 2


def _open(args: argparse.Namespace) -> Any:
    from dorf.campaign.store import Campaigns

    return Campaigns.open(args.db)


def _write(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _Fail(f"cannot write {path}: {exc.strerror}") from None


def _new(args: argparse.Namespace) -> int:
    from dorf.campaign.sheet import load_sheet

    sheet = load_sheet(args.sheet) if args.sheet else None
    with _open(args) as campaigns:
        info = campaigns.create(args.name, sheet)
    print(f"new campaign {info.name!r} on the sheet {info.sheet_name!r}")
    return 0


def _info_line(info: CampaignInfo) -> str:
    best = "-" if info.best is None else str(info.best)
    last = info.last_played or "-"
    flag = "  (archived)" if info.archived else ""
    return f"{info.name:<24} {info.games:>5} {best:>5}  {last:<10}{flag}".rstrip()


def _list(args: argparse.Namespace) -> int:
    with _open(args) as campaigns:
        campaigns_all = campaigns.listing(include_archived=True)
    infos = [info for info in campaigns_all if args.all or not info.archived]
    if args.json:
        print(json.dumps([info.as_json() for info in infos]))
        return 0
    if not infos:
        archived = 0 if args.all else sum(1 for info in campaigns_all if info.archived)
        if archived:
            hint = "see them with --all; unarchive NAME brings one back"
            print(f"no campaigns to list: {archived} archived ({hint})")
        else:
            print("no campaigns yet: start one with `dorf campaign new NAME`")
        return 0
    print(f"{'campaign':<24} {'games':>5} {'best':>5}  last game")
    for info in infos:
        print(_info_line(info))
    return 0


def show_lines(view: CampaignView) -> list[str]:
    """What ``dorf campaign show`` prints."""
    info, progress, sheet = view.info, view.progress, view.sheet
    out = [f"Campaign {info.name}" + ("  (archived)" if info.archived else "")]
    out.append(f"  sheet: {info.sheet_name}")
    out.append(f"  started {info.created[:10]}, {len(view.games)} game{'s' if len(view.games) != 1 else ''}")
    out.append("")
    if view.games:
        out.append("Games")
        out.append(
            f"  {'#':>3}  {'date':<10} {'total':>5} {'S1':>4} {'S2':>4} {'S3':>4} {'circles':>7}  from"
        )
        for game in view.games:
            pad = game.pad
            out.append(
                f"  {game.number:>3}  {game.played:<10} {pad.total:>5} {pad.s1:>4} {pad.s2:>4} {pad.s3:>4}"
                f" {game.circles:>7}  {game.source}"
            )
        totals = [g.total for g in view.games]
        out.append(
            f"  best {max(totals)}, mean {sum(totals) / len(totals):.1f}, "
            f"circles earned {sum(g.circles for g in view.games)}"
        )
    else:
        out.append("No games yet: `dorf campaign record NAME ...` after each game.")
    out.append("")
    out.append(f"Track: {progress.checked} of {progress.track_circles} circles checked")
    if progress.at_end:
        out.append("  the track is complete")
    elif progress.waiting is not None:
        out.append(
            f"  the track forks at {progress.waiting}: choose {' or '.join(progress.options)}"
            f" with `dorf campaign choose {info.name} BRANCH`"
            + (
                f" ({progress.banked} circle{'s' if progress.banked != 1 else ''} wait there)"
                if progress.banked
                else ""
            )
        )
        for option in progress.options:
            ahead = _ahead(sheet, option)
            out.append(f"    {option}: {ahead}")
    elif progress.next is not None:
        node = sheet.nodes[progress.next]
        out.append(
            f"  next: {progress.next} ({node.kind}" + (f", unlocks {node.unlocks})" if node.unlocks else ")")
        )
    out.append("")
    out.append("Unlocked")
    if view.unlocks:
        for unlock in view.unlocks:
            how = f"green hex {unlock.ref}" if unlock.source == "track" else f"achievement {unlock.ref}"
            if unlock.source == "track" and sheet.nodes[unlock.ref].kind != "green":
                how = f"{sheet.nodes[unlock.ref].kind} {unlock.ref}"
            when = f"game {unlock.game}" if unlock.game is not None else "a fork choice"
            out.append(f"  {unlock.item:<30} {how}, {when}")
    else:
        out.append("  nothing yet")
    out.append("")
    done = sum(1 for _, game in view.achievements if game is not None)
    out.append(f"Achievements ({done} of {len(view.achievements)})")
    for achievement, number in view.achievements:
        mark = "x" if number is not None else " "
        when = f"  game {number}" if number is not None else ""
        extra = f" -> {achievement.unlocks}" if achievement.unlocks else ""
        out.append(f"  [{mark}] {achievement.name}{extra}  ({achievement.condition.text}){when}")
    return out


def _ahead(sheet: Any, branch: str) -> str:
    """What a branch holds until it meets the rest of the track: circles and unlocks."""
    circles, unlocks, node = 0, [], branch
    preds = sheet.predecessors
    while True:
        circles += sheet.nodes[node].cost
        if sheet.nodes[node].unlocks:
            unlocks.append(sheet.nodes[node].unlocks)
        nexts = sheet.successors[node]
        if len(nexts) != 1 or len(preds[nexts[0]]) > 1:
            break
        node = nexts[0]
    text = f"{circles} circle{'s' if circles != 1 else ''}"
    return text + (f", unlocks {', '.join(unlocks)}" if unlocks else "")


def _show(args: argparse.Namespace) -> int:
    with _open(args) as campaigns:
        view = campaigns.view(args.name)
    if args.json:
        print(json.dumps(view.as_json()))
    else:
        print("\n".join(show_lines(view)))
    return 0


def _rename(args: argparse.Namespace) -> int:
    with _open(args) as campaigns:
        info = campaigns.rename(args.name, args.new_name)
    print(f"renamed to {info.name!r}")
    return 0


def _archive(args: argparse.Namespace) -> int:
    with _open(args) as campaigns:
        info = campaigns.archive(args.name, args.campaign_command == "archive")
    print(f"campaign {info.name!r} {'archived' if info.archived else 'back from the archive'}")
    return 0


def _typed_pad(args: argparse.Namespace) -> dict[str, Any] | None:
    data: dict[str, Any] = {}
    for option, section, key, _ in PAD_OPTIONS:
        value = getattr(args, option[2:].replace("-", "_"))
        if value is None:
            continue
        if section is None:
            data[key] = value
        else:
            data.setdefault(section, {})[key] = value
    return data or None


def _pad_text(text: str) -> Any:
    if text.startswith("@"):
        try:
            text = Path(text[1:]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise _Fail(f"cannot read {text[1:]}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise _Fail(f"--pad is not valid JSON: {exc}") from None


def _record(args: argparse.Namespace) -> int:
    from dorf.campaign.pad import read_pad
    from dorf.campaign.store import parse_date, read_finished_record

    typed = _typed_pad(args)
    given = [name for name, value in (("--from-record", args.from_record), ("--pad", args.pad)) if value]
    if typed:
        given.append("the pad's fields")
    if len(given) != 1:
        if not given:
            raise _Fail(
                "give the score: --from-record FILE, --pad JSON, or the pad's fields (--forest N ...)"
            )
        raise _Fail(f"give the score one way, not {' and '.join(given)}")
    played = parse_date(args.date) if args.date else None
    with _open(args) as campaigns:
        sheet = campaigns.sheet(args.name)
        if args.from_record:
            if args.players:
                raise _Fail("--players comes from the record itself")
            finished = read_finished_record(args.from_record)
            change = campaigns.record(
                args.name,
                finished.pad,
                played=played,
                players=finished.players,
                branches=args.branch,
                finished=finished,
            )
        else:
            data = _pad_text(args.pad) if args.pad else typed
            pad = read_pad(data, sheet.limits)
            players = [p for p in args.players.split(",")] if args.players else []
            change = campaigns.record(args.name, pad, played=played, players=players, branches=args.branch)
        name = campaigns.info(args.name).name
    if args.json:
        print(json.dumps(change.as_json()))
    else:
        print("\n".join(change_lines(name, sheet, change)))
    return 0


def change_lines(name: str, sheet: Any, change: Change) -> list[str]:
    """What ``record`` and ``choose`` print."""
    out = []
    game = change.game
    if game is not None:
        out.append(
            f"recorded game {game.number} of {name} ({game.played}): {game.total} points,"
            f" {game.circles} circle{'s' if game.circles != 1 else ''}"
        )
    if change.reached:
        out.append(f"  track: {' '.join(change.reached)}")
    for unlock in change.unlocked:
        out.append(f"  unlocked: {unlock.item} ({unlock.source} {unlock.ref})")
    names = {a.id: a.name for a in sheet.achievements}
    for achievement in change.achieved:
        out.append(f"  achievement: {names[achievement]}")
    if change.waiting is not None:
        out.append(
            f"  the track forks at {change.waiting}: choose {' or '.join(change.options)}"
            f" with `dorf campaign choose {name} BRANCH`"
            + (
                f" ({change.banked} circle{'s' if change.banked != 1 else ''} wait there)"
                if change.banked
                else ""
            )
        )
    if change.lost:
        out.append(
            f"  the track is complete ({change.lost} circle{'s' if change.lost != 1 else ''} left over)"
        )
    return out


def _choose(args: argparse.Namespace) -> int:
    with _open(args) as campaigns:
        change = campaigns.choose(args.name, args.branch)
        name = campaigns.info(args.name).name
        sheet = campaigns.sheet(args.name)
    fork = sheet.fork_of(args.branch)
    print(f"{name}: took branch {args.branch} at fork {fork}")
    lines = change_lines(name, sheet, change)
    print("\n".join(lines) if lines else "  the next game's circles go along it")
    return 0


def _plot(args: argparse.Namespace) -> int:
    from dorf.campaign.svg import campaign_score_svg

    with _open(args) as campaigns:
        view = campaigns.view(args.name)
    _write(args.out, campaign_score_svg(view))
    return 0


def _track(args: argparse.Namespace) -> int:
    from dorf.campaign.svg import campaign_track_svg

    with _open(args) as campaigns:
        view = campaigns.view(args.name)
    _write(args.out, campaign_track_svg(view))
    return 0


def _sheet(args: argparse.Namespace) -> int:
    from dorf.campaign.sheet import default_sheet_text

    if args.name is None:
        text = default_sheet_text()
    else:
        with _open(args) as campaigns:
            text = campaigns.sheet(args.name).text
    _write(args.out, text)
    return 0


_ACTIONS = {
    "new": _new,
    "list": _list,
    "show": _show,
    "rename": _rename,
    "archive": _archive,
    "unarchive": _archive,
    "record": _record,
    "choose": _choose,
    "plot": _plot,
    "track": _track,
    "sheet": _sheet,
}

__all__ = ["add_parser", "change_lines", "run", "show_lines"]
