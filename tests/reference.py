"""A deliberately simple, from-scratch model of a play area, for every mode.

The incremental engine (``dorf.rules.area``) keeps union-find groups, a frontier with
constraint keys and a journal.  This module keeps nothing but the list of
placed tiles and recomputes every figure by breadth-first search whenever it is
asked, straight from the rules notes (``rules-decisions.md`` items 1 to 11):

- a node is ``(hex, letter)``: all edges of one letter on one tile are one area;
- two nodes join when their tiles are neighbours and the facing edges both show
  that letter (F, G, V, R or T; meadow M never forms an area);
- a group's size is its number of tiles, its open edges are the edges of its
  letter facing an empty cell; closed means no open edge;
- R and T (and L, P) edges must meet their own letter on every side that
  touches a tile; other letters touch freely.
- Head to Head (items 19 to 21): an X edge joins the F, G or V node it meets,
  the group takes that letter; against meadow or another X it stays alone
  (closed, one tile). Each pair of L edges (P edges) that meet is a lake
  (mountain).
- The Duel (items 25, 26): a connection task is completed by exactly N
  neighbours and never fails; a double task is completed when either of its
  two territories has exactly N tiles, failed when both are impossible.

It imports only :class:`dorf.rules.hexgrid.Hex`, :data:`dorf.rules.hexgrid.DIRECTIONS` and
:func:`dorf.rules.tiles.rotate` from the package, so that a bug in the engine's
bookkeeping cannot hide in here too.

>>> board = RefBoard()
>>> board.place(RefTile("MFFFFF", Hex(0, 0), 0, flag="F"))
>>> board.place(RefTile("FFFFFF", Hex(0, 1), 0, task=("forest", 2)))
>>> [(g.letter, g.size, g.open_edges) for g in board.groups()]
[('F', 2, 9)]
>>> board.task_list()[0]["status"]
'completed'
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dorf.rules.hexgrid import DIRECTIONS, Hex
from dorf.rules.tiles import rotate

#: Letters that form areas.
AREA_LETTERS = "FGVRTLPX"
TERRITORIES = "FGV"
#: Letters whose edges may only face the same letter.
MUST_MEET = "RTLP"
TASK_LETTERS = {"forest": "F", "grain": "G", "village": "V", "river": "R", "track": "T"}
FLAG_NAMES = {"F": "forest", "G": "grain", "V": "village"}

OPEN = "open"
COMPLETED = "completed"
FAILED = "failed"


def neighbour(at: Hex, d: int) -> Hex:
    dq, dr = DIRECTIONS[d]
    return Hex(at.q + dq, at.r + dr)


def back(d: int) -> int:
    return (d + 3) % 6


#: A task as the reference reads it: ``(type, value)``, or ``("double", 6, (t1, t2))``.
RefTask = tuple[Any, ...]


def task_letters(task: RefTask) -> str:
    """The letters whose areas a task watches: none for a connection task."""
    if task[0] == "connection":
        return ""
    if task[0] == "double":
        return "".join(TASK_LETTERS[t] for t in task[2])
    return TASK_LETTERS[task[0]]


@dataclass(frozen=True)
class RefTile:
    """One placed tile: face as printed, where, rotation, flag letter, task ``(type, value[, types])``."""

    face: str
    at: Hex
    rot: int
    flag: str | None = None
    task: RefTask | None = None

    @property
    def edges(self) -> str:
        return rotate(self.face, self.rot)


@dataclass(frozen=True)
class RefGroup:
    """A territory, river or track as a set of ``(hex, letter)`` nodes."""

    letter: str
    nodes: frozenset[tuple[Hex, str]]
    open_edges: int

    @property
    def cells(self) -> frozenset[Hex]:
        return frozenset(at for at, _ in self.nodes)

    @property
    def size(self) -> int:
        return len(self.cells)

    @property
    def closed(self) -> bool:
        return self.open_edges == 0


def joins(a: str, b: str) -> bool:
    """Whether an ``a`` edge facing a ``b`` edge joins their areas."""
    if a == "X" or b == "X":
        return (a == "X" and b in TERRITORIES) or (b == "X" and a in TERRITORIES)
    return a == b and a in AREA_LETTERS


def explore(edges: dict[Hex, str], at: Hex, letter: str) -> RefGroup:
    """The group through the ``letter`` area of the tile at ``at``, by breadth-first search."""
    assert letter in edges[at], (at, letter)
    start = (at, letter)
    seen = {start}
    queue = deque([start])
    open_edges = 0
    while queue:
        here, mine_letter = queue.popleft()
        mine = edges[here]
        for d in range(6):
            if mine[d] != mine_letter:
                continue
            there = neighbour(here, d)
            theirs = edges.get(there)
            if theirs is None:
                open_edges += 1
            elif joins(mine_letter, theirs[back(d)]) and (there, theirs[back(d)]) not in seen:
                seen.add((there, theirs[back(d)]))
                queue.append((there, theirs[back(d)]))
    letters = {node_letter for _, node_letter in seen if node_letter != "X"}
    assert len(letters) <= 1, letters
    return RefGroup(letters.pop() if letters else "X", frozenset(seen), open_edges)


def meeting_pairs(edges: dict[Hex, str], letter: str) -> int:
    """How many pairs of ``letter`` edges face each other."""
    count = 0
    for at, mine in edges.items():
        for d in range(6):
            theirs = edges.get(neighbour(at, d))
            if mine[d] == letter and theirs is not None and theirs[back(d)] == letter:
                count += 1
    return count // 2


def neighbour_count(edges: dict[Hex, str], at: Hex) -> int:
    return sum(1 for d in range(6) if neighbour(at, d) in edges)


def all_groups(edges: dict[Hex, str], order: Iterable[Hex]) -> list[RefGroup]:
    """Every group on the board, in order of the first tile (in ``order``) that belongs to it."""
    found: list[RefGroup] = []
    covered: set[tuple[Hex, str]] = set()
    for at in order:
        for letter in dict.fromkeys(edges[at]):
            if letter in AREA_LETTERS and (at, letter) not in covered:
                group = explore(edges, at, letter)
                covered |= group.nodes
                found.append(group)
    return found


def judge(size: int, open_edges: int, value: int) -> str:
    """Rules 3 and 4: exact completion first, then too large or closed too small."""
    if size == value:
        return COMPLETED
    if size > value or open_edges == 0:
        return FAILED
    return OPEN


def fits(edges: dict[Hex, str], at: Hex, oriented: str) -> bool:
    """Rule 7: R and T edges meet only their own letter wherever a tile touches."""
    for d in range(6):
        theirs = edges.get(neighbour(at, d))
        if theirs is None:
            continue
        a, b = oriented[d], theirs[back(d)]
        if (a in MUST_MEET or b in MUST_MEET) and a != b:
            return False
    return True


class RefBoard:
    """The list of placed tiles, and every figure recomputed from it on demand.

    Task statuses depend on history (a completed task stays completed), so
    :meth:`place` judges every open task on the board after each placement,
    recomputing its group from scratch.
    """

    def __init__(self, tiles: Iterable[RefTile] = ()) -> None:
        self.tiles: list[RefTile] = []
        self.edges: dict[Hex, str] = {}
        self.statuses: list[str] = []  # one per task tile, in placement order
        self.task_tiles: list[RefTile] = []
        self._frontier: set[Hex] | None = None
        for tile in tiles:
            self.place(tile)

    def place(self, tile: RefTile, *, check: bool = True) -> None:
        """Add a tile; with ``check``, assert that the placement is legal first."""
        if check:
            assert self.is_legal(tile.face, tile.at, tile.rot, tile.task), f"reference: {tile} is illegal"
        self.tiles.append(tile)
        self.edges[tile.at] = tile.edges
        self._frontier = None
        if tile.task is not None:
            self.task_tiles.append(tile)
            self.statuses.append(OPEN)
        for i, task_tile in enumerate(self.task_tiles):
            if self.statuses[i] == OPEN:
                assert task_tile.task is not None
                self.statuses[i] = self._judge(self.edges, task_tile.at, task_tile.task)

    @staticmethod
    def _judge(edges: dict[Hex, str], at: Hex, task: RefTask) -> str:
        value = task[1]
        if task[0] == "connection":
            return COMPLETED if neighbour_count(edges, at) == value else OPEN
        statuses = [
            judge(group.size, group.open_edges, value)
            for group in (explore(edges, at, letter) for letter in task_letters(task))
        ]
        if COMPLETED in statuses:
            return COMPLETED
        return FAILED if all(s == FAILED for s in statuses) else OPEN

    # --- reading -------------------------------------------------------------------

    def groups(self) -> list[RefGroup]:
        return all_groups(self.edges, (t.at for t in self.tiles))

    def group(self, at: Hex, letter: str) -> RefGroup:
        return explore(self.edges, at, letter)

    def longest(self, letter: str) -> int:
        """Rule 8: the largest network of ``letter`` in tiles, open or closed; 0 if none."""
        return max((g.size for g in self.groups() if g.letter == letter), default=0)

    def frontier(self) -> set[Hex]:
        """Empty cells next to a tile; ``[0, 0]`` alone on an empty board (rule 11)."""
        if self._frontier is None:
            self._frontier = {
                neighbour(at, d) for at in self.edges for d in range(6) if neighbour(at, d) not in self.edges
            } or {Hex(0, 0)}
        return set(self._frontier)

    def is_legal(self, face: str, at: Hex, k: int, task: RefTask | None = None) -> bool:
        """Whether ``face`` turned ``k`` steps may go at ``at`` (with its task, if any)."""
        return at in self.frontier() and self._allowed(face, at, k, task)

    def _allowed(self, face: str, at: Hex, k: int, task: RefTask | None) -> bool:
        """Rules 5 and 7 (and 25, 26) for a tile at an empty cell next to the area."""
        oriented = rotate(face, k)
        if not fits(self.edges, at, oriented):
            return False
        if task is not None:
            if any(letter not in face for letter in task_letters(task)):
                return False
            if task[0] == "connection":
                return neighbour_count(self.edges, at) <= task[1]
            trial = dict(self.edges)
            trial[at] = oriented
            if self._judge(trial, at, task) == FAILED:
                return False  # rule 5: a new task may not be impossible at once
        return True

    def pairs(self, letter: str) -> int:
        """Rule 20: completed lakes (``L``) or mountains (``P``)."""
        return meeting_pairs(self.edges, letter)

    def legal_placements(self, face: str, task: RefTask | None = None) -> set[tuple[Hex, int]]:
        """Every legal ``(hex, rotation)``, one rotation (the smallest) per distinct orientation."""
        rotations: dict[str, int] = {}
        for k in range(6):
            rotations.setdefault(rotate(face, k), k)
        return {
            (at, k) for at in self.frontier() for k in rotations.values() if self._allowed(face, at, k, task)
        }

    def task_list(self) -> list[dict[str, Any]]:
        out = []
        for tile, status in zip(self.task_tiles, self.statuses, strict=True):
            assert tile.task is not None
            entry: dict[str, Any] = {
                "at": [tile.at.q, tile.at.r],
                "type": tile.task[0],
                "value": tile.task[1],
            }
            if tile.task[0] == "double":
                entry["types"] = list(tile.task[2])
            entry["status"] = status
            out.append(entry)
        return out

    def task_points(self, types: Iterable[str]) -> dict[str, int]:
        tasks = dict.fromkeys(types, 0)
        for tile, status in zip(self.task_tiles, self.statuses, strict=True):
            assert tile.task is not None
            if status == COMPLETED and tile.task[0] in tasks:
                tasks[tile.task[0]] += tile.task[1]
        return tasks

    def score(self, mode: str = "coop") -> dict[str, Any]:
        """The score pad of ``mode``, shaped like the engine's ``as_json()``."""
        if mode == "head-to-head":
            return self._score_head_to_head()
        extra = ("connection", "double") if mode == "duel" else ()
        tasks = self.task_points((*TASK_LETTERS, *extra))
        flags = dict.fromkeys(FLAG_NAMES.values(), 0)
        for tile in self.tiles:
            if tile.flag is not None:
                group = self.group(tile.at, tile.flag)
                if group.closed:
                    flags[FLAG_NAMES[tile.flag]] += group.size
        river = self.longest("R")
        track = self.longest("T")
        return {
            "tasks": tasks,
            "flags": flags,
            "longest_river": river,
            "longest_track": track,
            "total": sum(tasks.values()) + sum(flags.values()) + river + track,
            "task_list": self.task_list(),
        }

    def _score_head_to_head(self) -> dict[str, Any]:
        tasks = self.task_points(("forest", "grain", "village", "river"))
        flags = 0
        for tile in self.tiles:
            if "X" in tile.face:
                group = self.group(tile.at, "X")
                if group.closed:
                    flags += group.size
        river = self.longest("R")
        pairs = 3 * (self.pairs("L") + self.pairs("P"))
        return {
            "tasks": tasks,
            "longest_river": river,
            "flags": flags,
            "mountains_lakes": pairs,
            "total": sum(tasks.values()) + river + flags + pairs,
            "task_list": self.task_list(),
        }
