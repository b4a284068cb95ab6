"""A deliberately simple, from-scratch model of a cooperative play area.

The incremental engine (``dorf.area``) keeps union-find groups, a frontier with
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

It imports only :class:`dorf.hexgrid.Hex`, :data:`dorf.hexgrid.DIRECTIONS` and
:func:`dorf.tiles.rotate` from the package, so that a bug in the engine's
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

from dorf.hexgrid import DIRECTIONS, Hex
from dorf.tiles import rotate

#: Letters that form areas in the cooperative game.
AREA_LETTERS = "FGVRT"
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


@dataclass(frozen=True)
class RefTile:
    """One placed tile: face as printed, where, rotation, flag letter, task ``(type, value)``."""

    face: str
    at: Hex
    rot: int
    flag: str | None = None
    task: tuple[str, int] | None = None

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
        return len(self.nodes)

    @property
    def closed(self) -> bool:
        return self.open_edges == 0


def explore(edges: dict[Hex, str], at: Hex, letter: str) -> RefGroup:
    """The group through the ``letter`` area of the tile at ``at``, by breadth-first search."""
    assert letter in edges[at], (at, letter)
    start = (at, letter)
    seen = {start}
    queue = deque([start])
    open_edges = 0
    while queue:
        here, _ = queue.popleft()
        mine = edges[here]
        for d in range(6):
            if mine[d] != letter:
                continue
            there = neighbour(here, d)
            theirs = edges.get(there)
            if theirs is None:
                open_edges += 1
            elif theirs[back(d)] == letter and (there, letter) not in seen:
                seen.add((there, letter))
                queue.append((there, letter))
    return RefGroup(letter, frozenset(seen), open_edges)


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
                kind, value = task_tile.task
                group = explore(self.edges, task_tile.at, TASK_LETTERS[kind])
                self.statuses[i] = judge(group.size, group.open_edges, value)

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

    def is_legal(self, face: str, at: Hex, k: int, task: tuple[str, int] | None = None) -> bool:
        """Whether ``face`` turned ``k`` steps may go at ``at`` (with its task, if any)."""
        return at in self.frontier() and self._allowed(face, at, k, task)

    def _allowed(self, face: str, at: Hex, k: int, task: tuple[str, int] | None) -> bool:
        """Rules 5 and 7 for a tile at an empty cell next to the area."""
        oriented = rotate(face, k)
        if not fits(self.edges, at, oriented):
            return False
        if task is not None:
            kind, value = task
            if TASK_LETTERS[kind] not in face:
                return False
            trial = dict(self.edges)
            trial[at] = oriented
            group = explore(trial, at, TASK_LETTERS[kind])
            if judge(group.size, group.open_edges, value) == FAILED:
                return False  # rule 5: a new task may not be impossible at once
        return True

    def legal_placements(self, face: str, task: tuple[str, int] | None = None) -> set[tuple[Hex, int]]:
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
            kind, value = tile.task
            out.append({"at": [tile.at.q, tile.at.r], "type": kind, "value": value, "status": status})
        return out

    def score(self) -> dict[str, Any]:
        """The coop score pad, shaped like ``ScorePad.as_json()``."""
        tasks = dict.fromkeys(TASK_LETTERS, 0)
        for tile, status in zip(self.task_tiles, self.statuses, strict=True):
            assert tile.task is not None
            if status == COMPLETED:
                tasks[tile.task[0]] += tile.task[1]
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
