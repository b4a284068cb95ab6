"""The campaign sheet as data: score bands, the track, achievements and limits.

A sheet is a tab-separated text file (``dorf-campaign-sheet/1``, described in
docs/campaign.md); the package ships an approximation of the printed sheet,
``dorf/data/campaign-sheet.tsv``, and a player may write their own.

The track is a directed graph of nodes, walked from its one start node:

- ``circle``: a white circle; checking it costs one of the game's circles.
- ``heart``: a white circle that unlocks a heart when checked (costs one).
- ``green``: a green hex; reached for free right after the node before it, and
  unlocks what it names.
- ``fork``: a free junction; the players choose one of its branches.

>>> sheet = default_sheet()
>>> sheet.circles_for(0) >= 1, sheet.circles_for(10_000) == sheet.bands[-1].circles
(True, True)
>>> walk = sheet.advance((), 3)
>>> walk.reached, walk.left
(('c1', 'c2', 'c3'), 0)
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from dorf.campaign.pad import FIELD_NAMES, FLAG_NAMES, Limits, pad_fields
from dorf.rules.scoring import TASK_TYPES, ScorePad

SHEET_FORMAT = "dorf-campaign-sheet/1"
CIRCLE, HEART, GREEN, FORK = "circle", "heart", "green", "fork"
KINDS: tuple[str, ...] = (CIRCLE, HEART, GREEN, FORK)
#: What checking or reaching a node of each kind costs, in circles.
COST: dict[str, int] = {CIRCLE: 1, HEART: 1, GREEN: 0, FORK: 0}
#: The comparisons a condition may use.
OPERATORS: tuple[str, ...] = (">=", "<=", "==", "!=", ">", "<")
#: A sheet larger than this is refused (a sheet is a page, not a database).
MAX_SHEET_BYTES = 256 * 1024
MAX_NODES = 2000
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
_CLAUSE = re.compile(r"\s*([a-z_][a-z_.]*)\s*(>=|<=|==|!=|>|<)\s*(\d{1,9})\s*")


class SheetError(ValueError):
    """A campaign sheet that cannot be read; the message is one line."""


@dataclass(frozen=True)
class Clause:
    """``FIELD OP NUMBER``, e.g. ``total >= 150``."""

    field: str
    op: str
    value: int

    def holds(self, fields: Mapping[str, int]) -> bool:
        left, right = fields[self.field], self.value
        return {
            ">=": left >= right,
            "<=": left <= right,
            "==": left == right,
            "!=": left != right,
            ">": left > right,
            "<": left < right,
        }[self.op]


#: How many, in words, by comparison (``{}`` is the number).
_HOW_MANY = {
    ">=": "{} or more",
    "<=": "{} or fewer",
    "==": "exactly {}",
    "!=": "other than {}",
    ">": "more than {}",
    "<": "fewer than {}",
}
#: What a field counts, in words (``{}`` is how many); the fields of the form ``tasks.NAME`` and
#: ``flags.NAME`` are said in :func:`clause_words`.
_FIELD_WORDS = {
    "total": "{} points in total",
    "tasks": "{} task points",
    "s1": "{} task points (S1)",
    "flags": "{} flag points",
    "s2": "{} points for flags, the longest track and the longest river (S2)",
    "unlocked": "{} points for unlocked extras (S3)",
    "s3": "{} points for unlocked extras (S3)",
    "longest_track": "a longest track of {} tiles",
    "longest_river": "a longest river of {} tiles",
    "task_types": "{} task types completed",
    "flag_colours": "{} flag colours scoring",
}


def clause_words(clause: Clause) -> str:
    """One clause in words: ``flags.grain >= 10`` is "10 or more points from grain flags"."""
    how_many = _HOW_MANY[clause.op].format(clause.value)
    kind, _, name = clause.field.partition(".")
    if name:
        return f"{how_many} points from {name} {'tasks' if kind == 'tasks' else 'flags'}"
    return _FIELD_WORDS.get(clause.field, f"{clause.field} {{}}").format(how_many)


@dataclass(frozen=True)
class Condition:
    """Clauses joined by ``and``, tested on a finished game's pad.

    >>> Condition.parse("task_types >= 5 and total >= 100").text
    'task_types >= 5 and total >= 100'
    """

    clauses: tuple[Clause, ...]

    @classmethod
    def parse(cls, text: str) -> Condition:
        clauses = []
        for part in re.split(r"\band\b", text):
            match = _CLAUSE.fullmatch(part)
            if match is None:
                raise SheetError(f"cannot read condition {part.strip()!r}: expected FIELD OP NUMBER")
            name, op, number = match.groups()
            if name not in FIELD_NAMES:
                raise SheetError(f"unknown field {name!r} in condition (known: {', '.join(FIELD_NAMES)})")
            clauses.append(Clause(name, op, int(number)))
        return cls(tuple(clauses))

    @property
    def text(self) -> str:
        return " and ".join(f"{c.field} {c.op} {c.value}" for c in self.clauses)

    @property
    def words(self) -> str:
        """The condition as a person reads it (the campaign page shows it).

        >>> Condition.parse("task_types >= 5").words
        '5 or more task types completed'
        >>> Condition.parse("longest_river >= 10 and flags.forest < 4").words
        'A longest river of 10 or more tiles and fewer than 4 points from forest flags'
        """
        text = " and ".join(clause_words(c) for c in self.clauses)
        return text[:1].upper() + text[1:]

    def holds(self, pad: ScorePad) -> bool:
        fields = pad_fields(pad)
        return all(clause.holds(fields) for clause in self.clauses)


@dataclass(frozen=True)
class Band:
    """A score of ``min_score`` or more (up to the next band) checks ``circles`` circles."""

    min_score: int
    circles: int


@dataclass(frozen=True)
class Node:
    """One place on the track; ``unlocks`` names what it opens (never what is inside)."""

    id: str
    kind: str
    unlocks: str | None = None

    @property
    def cost(self) -> int:
        return COST[self.kind]


@dataclass(frozen=True)
class Achievement:
    id: str
    condition: Condition
    name: str
    unlocks: str | None = None


@dataclass(frozen=True)
class Walk:
    """Where a number of circles leads from a point of the track.

    ``reached`` are the nodes newly checked or reached, in order; ``taken``
    the branches taken at forks (fork -> branch); ``left`` the circles not
    spent; ``waiting`` the fork where the walk stopped for a choice, if any
    (its circles wait there); ``at_end`` whether it stopped at the track's end.
    """

    reached: tuple[str, ...]
    left: int
    taken: dict[str, str] = field(default_factory=dict)
    waiting: str | None = None
    at_end: bool = False


@dataclass(frozen=True)
class Sheet:
    """A parsed, checked campaign sheet; ``text`` is its source, stored with each campaign."""

    name: str
    bands: tuple[Band, ...]
    nodes: dict[str, Node]
    successors: dict[str, tuple[str, ...]]
    achievements: tuple[Achievement, ...]
    limits: Limits
    places: dict[str, tuple[int, int]]
    text: str

    @property
    def start(self) -> str:
        return next(iter(self.nodes))

    @property
    def predecessors(self) -> dict[str, tuple[str, ...]]:
        preds: dict[str, list[str]] = {node: [] for node in self.nodes}
        for node, nexts in self.successors.items():
            for nxt in nexts:
                preds[nxt].append(node)
        return {node: tuple(found) for node, found in preds.items()}

    def fork_of(self, branch: str) -> str | None:
        """The fork whose branch starts at ``branch``, if any."""
        for node, nexts in self.successors.items():
            if branch in nexts and self.nodes[node].kind == FORK:
                return node
        return None

    @property
    def track_circles(self) -> int:
        """Circles on the longest way through the track."""
        best: dict[str, int] = {}
        for node in reversed(self.order()):
            after = max((best[n] for n in self.successors[node]), default=0)
            best[node] = self.nodes[node].cost + after
        return best[self.start]

    def order(self) -> list[str]:
        """The nodes in an order where each comes after all its predecessors."""
        preds = {node: len(found) for node, found in self.predecessors.items()}
        ready = [self.start]
        out = []
        while ready:
            node = ready.pop(0)
            out.append(node)
            for nxt in self.successors[node]:
                preds[nxt] -= 1
                if preds[nxt] == 0:
                    ready.append(nxt)
        return out

    def circles_for(self, score: int) -> int:
        """How many circles a game's total checks: the band it falls in, rounded down."""
        circles = 0
        for band in self.bands:
            if score >= band.min_score:
                circles = band.circles
        return circles

    def advance(
        self, reached: Sequence[str], circles: int, branches: Mapping[str, str] | None = None
    ) -> Walk:
        """Spend ``circles`` from the end of ``reached`` (the nodes reached so far, in order).

        ``branches`` maps forks to chosen branches; a fork without one stops
        the walk, and the circles left wait there.  Green hexes and forks cost
        nothing, so one right after the last checked circle is reached too.
        """
        choices = dict(branches or {})
        cursor = reached[-1] if reached else None
        new: list[str] = []
        taken: dict[str, str] = {}
        left = circles
        while True:
            nexts = (self.start,) if cursor is None else self.successors[cursor]
            if not nexts:
                return Walk(tuple(new), left, taken, None, True)
            if len(nexts) > 1:
                assert cursor is not None
                branch = choices.get(cursor)
                if branch is None:
                    return Walk(tuple(new), left, taken, cursor)
                if branch not in nexts:
                    raise SheetError(f"{branch} is not a branch of fork {cursor}: choose {_or(nexts)}")
                taken[cursor] = branch
                nxt = branch
            else:
                nxt = nexts[0]
            if self.nodes[nxt].cost > left:
                return Walk(tuple(new), left, taken)
            left -= self.nodes[nxt].cost
            new.append(nxt)
            cursor = nxt


def _or(names: Sequence[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _int(text: str, what: str) -> int:
    if not re.fullmatch(r"-?\d{1,9}", text.strip()):
        raise SheetError(f"{what} {text!r} is not a whole number")
    return int(text)


class _Reader:
    def __init__(self) -> None:
        self.name: str | None = None
        self.format_seen = False
        self.bands: list[Band] = []
        self.nodes: dict[str, Node] = {}
        self.edges: list[tuple[str, str, int]] = []
        self.achievements: dict[str, Achievement] = {}
        self.places: dict[str, tuple[int, int]] = {}
        self.place_lines: dict[str, int] = {}
        self.limits: dict[str, int] = {}
        self.markers: dict[str, tuple[int, ...]] = {}

    def row(self, cols: list[str], number: int) -> None:
        kind, args = cols[0], [c.strip() for c in cols[1:]]
        if not self.format_seen:
            if kind != "format" or args != [SHEET_FORMAT]:
                raise SheetError(f"the first row must be: format<TAB>{SHEET_FORMAT}")
            self.format_seen = True
            return
        handler = getattr(self, f"row_{kind}", None)
        if handler is None:
            raise SheetError(
                f"unknown row {kind!r} (rows: name, band, node, path, place, achievement, limit, markers)"
            )
        handler(args, number)

    @staticmethod
    def _need(args: list[str], low: int, high: int, usage: str) -> None:
        if not low <= len(args) <= high or any(not a for a in args[:low]):
            raise SheetError(f"expected: {usage}")

    def row_format(self, args: list[str], number: int) -> None:
        raise SheetError("format given twice")

    def row_name(self, args: list[str], number: int) -> None:
        self._need(args, 1, 1, "name<TAB>TEXT")
        if self.name is not None:
            raise SheetError("name given twice")
        self.name = args[0]

    def row_band(self, args: list[str], number: int) -> None:
        self._need(args, 2, 2, "band<TAB>MIN_SCORE<TAB>CIRCLES")
        low, circles = _int(args[0], "minimum score"), _int(args[1], "circles")
        if low < 0 or circles < 0:
            raise SheetError("a band's minimum score and circles cannot be negative")
        if self.bands and low <= self.bands[-1].min_score:
            raise SheetError(f"band {low}: bands must go up (after {self.bands[-1].min_score})")
        if not self.bands and low != 0:
            raise SheetError("the first band must start at score 0")
        self.bands.append(Band(low, circles))

    def _id(self, text: str) -> str:
        if not _ID.fullmatch(text):
            raise SheetError(f"{text!r} is not an id (letters, digits, '_', '.', '-'; up to 40)")
        return text

    def row_node(self, args: list[str], number: int) -> None:
        self._need(args, 2, 3, "node<TAB>ID<TAB>KIND[<TAB>UNLOCKS]")
        node_id, kind = self._id(args[0]), args[1]
        if node_id in self.nodes:
            raise SheetError(f"node {node_id} given twice")
        if kind not in KINDS:
            raise SheetError(f"node {node_id}: unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
        unlocks = args[2] if len(args) > 2 and args[2] else None
        if kind in (GREEN, HEART) and unlocks is None:
            raise SheetError(f"node {node_id}: a {kind} node must name what it unlocks")
        if len(self.nodes) >= MAX_NODES:
            raise SheetError(f"more than {MAX_NODES} nodes")
        self.nodes[node_id] = Node(node_id, kind, unlocks)

    def row_path(self, args: list[str], number: int) -> None:
        self._need(args, 2, MAX_NODES, "path<TAB>ID<TAB>ID[<TAB>ID...]")
        for a, b in itertools.pairwise(args):
            self.edges.append((self._id(a), self._id(b), number))

    def row_place(self, args: list[str], number: int) -> None:
        self._need(args, 3, 3, "place<TAB>ID<TAB>COLUMN<TAB>ROW")
        node_id = self._id(args[0])
        if node_id in self.places:
            raise SheetError(f"node {node_id} placed twice")
        col, row = _int(args[1], "column"), _int(args[2], "row")
        if not (0 <= col <= 500 and 0 <= row <= 500):
            raise SheetError("a column or row must be from 0 to 500")
        self.places[node_id] = (col, row)
        self.place_lines[node_id] = number

    def row_achievement(self, args: list[str], number: int) -> None:
        self._need(args, 3, 4, "achievement<TAB>ID<TAB>CONDITION<TAB>NAME[<TAB>UNLOCKS]")
        ach_id = self._id(args[0])
        if ach_id in self.achievements:
            raise SheetError(f"achievement {ach_id} given twice")
        unlocks = args[3] if len(args) > 3 and args[3] else None
        self.achievements[ach_id] = Achievement(ach_id, Condition.parse(args[1]), args[2], unlocks)

    def row_limit(self, args: list[str], number: int) -> None:
        self._need(args, 2, 2, "limit<TAB>FIELD<TAB>VALUE")
        known = ("longest_track", "longest_river", *(f"flags.{n}" for n in FLAG_NAMES))
        if args[0] not in known:
            raise SheetError(f"unknown limit {args[0]!r} (limits: {', '.join(known)})")
        value = _int(args[1], args[0])
        if value < 0:
            raise SheetError(f"limit {args[0]} cannot be negative")
        self.limits[args[0]] = value

    def row_markers(self, args: list[str], number: int) -> None:
        self._need(args, 2, 2, "markers<TAB>TYPE<TAB>V,V,...")
        if args[0] not in TASK_TYPES:
            raise SheetError(f"unknown task type {args[0]!r} (types: {', '.join(TASK_TYPES)})")
        values = tuple(_int(v, "marker") for v in args[1].split(","))
        if any(v < 1 for v in values) or len(values) > 50:
            raise SheetError("markers are 1 to 50 values of at least 1")
        self.markers[args[0]] = values

    def finish(self, text: str) -> Sheet:
        if not self.format_seen:
            raise SheetError(f"empty sheet: the first row must be: format<TAB>{SHEET_FORMAT}")
        if self.name is None:
            raise SheetError("the sheet has no name row")
        if not self.bands:
            raise SheetError("the sheet has no band rows")
        if not self.nodes:
            raise SheetError("the sheet has no node rows")
        successors: dict[str, list[str]] = {node: [] for node in self.nodes}
        for a, b, number in self.edges:
            for end in (a, b):
                if end not in self.nodes:
                    raise SheetError(f"line {number}: path names unknown node {end}")
            if a == b or b in successors[a]:
                raise SheetError(f"line {number}: path {a} -> {b} is a loop or given twice")
            successors[a].append(b)
        sheet = Sheet(
            self.name,
            tuple(self.bands),
            dict(self.nodes),
            {node: tuple(nexts) for node, nexts in successors.items()},
            tuple(self.achievements.values()),
            self._limits(),
            {},
            text,
        )
        self._check_track(sheet)
        places = self._places(sheet)
        return Sheet(
            sheet.name,
            sheet.bands,
            sheet.nodes,
            sheet.successors,
            sheet.achievements,
            sheet.limits,
            places,
            text,
        )

    def _limits(self) -> Limits:
        base = Limits.base()
        flags = {name: self.limits.get(f"flags.{name}", base.flags[name]) for name in FLAG_NAMES}
        return Limits(
            {**base.markers, **self.markers},
            flags,
            self.limits.get("longest_track", base.longest_track),
            self.limits.get("longest_river", base.longest_river),
        )

    @staticmethod
    def _check_track(sheet: Sheet) -> None:
        preds = sheet.predecessors
        start = sheet.start
        if preds[start]:
            raise SheetError(f"the first node, {start}, is the start and cannot follow another node")
        for node, found in preds.items():
            if node != start and not found:
                raise SheetError(f"node {node} follows no node: only the first node starts the track")
        for node, nexts in sheet.successors.items():
            kind = sheet.nodes[node].kind
            if kind == FORK and len(nexts) < 2:
                raise SheetError(f"fork {node} needs at least two branches")
            if kind != FORK and len(nexts) > 1:
                raise SheetError(f"node {node} leads to {len(nexts)} nodes: only a fork may branch")
            if kind == FORK:
                for branch in nexts:
                    if len(preds[branch]) > 1:
                        raise SheetError(f"branch {branch} of fork {node} must follow only the fork")
        if len(sheet.order()) != len(sheet.nodes):
            raise SheetError("the track goes round in a loop")

    def _places(self, sheet: Sheet) -> dict[str, tuple[int, int]]:
        if not self.places:
            return auto_places(sheet)
        for node, number in self.place_lines.items():
            if node not in sheet.nodes:
                raise SheetError(f"line {number}: place names unknown node {node}")
        missing = [node for node in sheet.nodes if node not in self.places]
        if missing:
            raise SheetError(f"node {missing[0]} has no place row (place every node, or none)")
        seen: dict[tuple[int, int], str] = {}
        for node, spot in self.places.items():
            if spot in seen:
                raise SheetError(f"nodes {seen[spot]} and {node} have the same place")
            seen[spot] = node
        return dict(self.places)


def auto_places(sheet: Sheet) -> dict[str, tuple[int, int]]:
    """A column (steps from the start, longest way) and a row (one per branch) for each node."""
    col: dict[str, int] = {}
    row: dict[str, int] = {sheet.start: 0}
    rows = 1
    preds = sheet.predecessors
    for node in sheet.order():
        col[node] = max((col[p] + 1 for p in preds[node]), default=0)
        for index, nxt in enumerate(sheet.successors[node]):
            if nxt not in row:
                if index == 0:
                    row[nxt] = row[node]
                else:
                    row[nxt] = rows
                    rows += 1
    return {node: (col[node], row[node]) for node in sheet.nodes}


def parse_sheet(text: str, source: str = "sheet") -> Sheet:
    """Read and check a sheet; :class:`SheetError` names the source and line."""
    if len(text.encode("utf-8")) > MAX_SHEET_BYTES:
        raise SheetError(f"{source}: larger than {MAX_SHEET_BYTES // 1024} KiB")
    reader = _Reader()
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            reader.row(raw.rstrip("\r\n").split("\t"), number)
        except SheetError as exc:
            raise SheetError(f"{source} line {number}: {exc}") from None
    try:
        return reader.finish(text)
    except SheetError as exc:
        raise SheetError(f"{source}: {exc}") from None


def default_sheet_text() -> str:
    """The shipped sheet's text (an approximation of the printed campaign sheet)."""
    return resources.files("dorf.data").joinpath("campaign-sheet.tsv").read_text(encoding="utf-8")


def default_sheet() -> Sheet:
    return parse_sheet(default_sheet_text(), "default sheet")


def load_sheet(path: str | Path) -> Sheet:
    """Read a sheet file; :class:`SheetError` if it cannot be read or is malformed."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise SheetError(f"cannot read sheet {path}: {exc.strerror}") from None
    if len(raw) > MAX_SHEET_BYTES:
        raise SheetError(f"sheet {path}: larger than {MAX_SHEET_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SheetError(f"sheet {path} is not UTF-8 text") from None
    return parse_sheet(text, f"sheet {path}")


__all__ = [
    "CIRCLE",
    "FORK",
    "GREEN",
    "HEART",
    "KINDS",
    "SHEET_FORMAT",
    "Achievement",
    "Band",
    "Condition",
    "Node",
    "Sheet",
    "SheetError",
    "Walk",
    "auto_places",
    "default_sheet",
    "default_sheet_text",
    "load_sheet",
    "parse_sheet",
]
