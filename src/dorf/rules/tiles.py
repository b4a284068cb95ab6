"""Tiles: faces, rotations, areas, and tile sets read from data files.

A face is six edge letters, edge 0 (north) to edge 5 (north-west), as printed.
Rotating by ``k`` turns the tile clockwise: face edge ``i`` then points in
direction ``(i + k) % 6``.

>>> rotate("RMMRMM", 1)
'MRMMRM'
>>> distinct_rotations("MFMFMF")
(0, 1)
>>> Tile.from_text("FFFFFF task=forest").task
'forest'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from dorf.rules.tasks import CONNECTION, DOUBLE, TaskSpec
from dorf.rules.terrain import AREA_LETTERS, LETTERS, TASK_LETTER, TERRITORY_LETTERS

LANDSCAPE = "landscape"
TASK = "task"


class TileSetError(ValueError):
    """A tile set file or tile text that cannot be read."""


def check_face(face: str) -> str:
    """Return ``face`` if it is six known edge letters, else raise ValueError.

    A multicoloured flag tile (Head to Head) has one X edge and no forest,
    grain or village edge, so the territory it joins is never in doubt.

    >>> check_face("XMMPPM")
    'XMMPPM'
    >>> check_face("XFMMMM")
    Traceback (most recent call last):
    ...
    ValueError: tile 'XFMMMM': a multicoloured flag tile has one X edge and no forest, grain or village edge
    """
    if len(face) != 6 or any(letter not in LETTERS for letter in face):
        raise ValueError(f"tile {face!r} is not six edge letters of {LETTERS}")
    if "X" in face and (face.count("X") > 1 or any(t in face for t in TERRITORY_LETTERS)):
        raise ValueError(
            f"tile {face!r}: a multicoloured flag tile has one X edge and no forest, grain or village edge"
        )
    return face


@cache
def rotate(face: str, k: int) -> str:
    """The edges by direction after turning ``face`` clockwise ``k`` steps."""
    k %= 6
    return face[6 - k :] + face[: 6 - k] if k else face


@cache
def distinct_rotations(face: str) -> tuple[int, ...]:
    """The rotations that give different oriented tiles, smallest first."""
    seen: dict[str, int] = {}
    for k in range(6):
        seen.setdefault(rotate(face, k), k)
    return tuple(seen.values())


def canonical_rotation(face: str, k: int) -> int:
    """The smallest rotation giving the same oriented tile as rotation ``k``."""
    oriented = rotate(face, k)
    return next(j for j in distinct_rotations(face) if rotate(face, j) == oriented)


@cache
def areas(face: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Each area letter on the face with the edges it covers (one area per letter)."""
    found: dict[str, list[int]] = {}
    for i, letter in enumerate(face):
        if letter in AREA_LETTERS:
            found.setdefault(letter, []).append(i)
    return tuple((letter, tuple(edges)) for letter, edges in found.items())


@dataclass(frozen=True)
class Tile:
    """A physical tile of a box: its face and what is printed on it.

    ``flag`` is the letter (F, G, V) of the area that carries a flag, or X
    for a multicoloured flag (Head to Head); ``task`` the task type of a task
    tile; ``value`` a task value printed on the tile (Head to Head), None
    where a marker is drawn instead.
    """

    kind: str
    face: str
    flag: str | None = None
    task: str | None = None
    value: int | None = None

    def __post_init__(self) -> None:
        check_face(self.face)
        if self.kind not in (LANDSCAPE, TASK):
            raise TileSetError(f"unknown tile kind {self.kind!r}")
        if self.flag is not None and self.flag not in self.face:
            raise TileSetError(f"tile {self.face}: flag {self.flag} is not on the tile")
        if (self.kind == TASK) != (self.task is not None):
            raise TileSetError(f"tile {self.face}: a task tile needs a task type, others none")
        if self.flag == "X" and "X" not in self.face:
            raise TileSetError(f"tile {self.face}: a multicoloured flag needs an X edge")
        if self.task is not None:
            needed = _TASK_NEEDS.get(self.task)
            if needed is None:
                raise TileSetError(f"tile {self.face}: unknown task type {self.task!r}")
            if any(letter not in self.face for letter in needed):
                raise TileSetError(
                    f"tile {self.face}: a {self.task} task tile needs {'/'.join(needed)} edges"
                )

    @property
    def is_task(self) -> bool:
        return self.kind == TASK

    def text(self) -> str:
        """The tile as one data line's edges and extras, e.g. ``MFFFFF flag=forest``."""
        parts = [self.face]
        if self.flag:
            parts.append(f"flag={_NAME_OF_LETTER[self.flag]}")
        if self.task:
            parts.append(f"task={self.task}")
        if self.value is not None:
            parts.append(f"value={self.value}")
        return " ".join(parts)

    @classmethod
    def from_text(cls, text: str, kind: str | None = None) -> Tile:
        """Read ``EDGES [flag=NAME] [task=TYPE] [value=N]``."""
        words = text.split()
        if not words:
            raise TileSetError("empty tile")
        face = words[0]
        extras: dict[str, str] = {}
        for word in words[1:]:
            key, sep, val = word.partition("=")
            if not sep or key not in ("flag", "task", "value"):
                raise TileSetError(f"tile {face}: cannot read {word!r}")
            extras[key] = val
        flag = None
        if "flag" in extras:
            flag = _FLAG_OF_NAME.get(extras["flag"])
            if flag is None:
                raise TileSetError(f"tile {face}: unknown flag {extras['flag']!r}")
        value = None
        if "value" in extras:
            if not extras["value"].isdigit():
                raise TileSetError(f"tile {face}: value {extras['value']!r} is not a number")
            value = int(extras["value"])
        task = extras.get("task")
        try:
            check_face(face)
        except ValueError as exc:
            raise TileSetError(str(exc)) from None
        return cls(kind or (TASK if task else LANDSCAPE), face, flag, task, value)


_NAME_OF_LETTER = {"F": "forest", "G": "grain", "V": "village", "X": "multicoloured"}
_FLAG_OF_NAME = {name: letter for letter, name in _NAME_OF_LETTER.items()}
#: The edge letters a task tile of each type must show.
_TASK_NEEDS: dict[str, str] = {**TASK_LETTER, CONNECTION: "", DOUBLE: TERRITORY_LETTERS}


@dataclass(frozen=True)
class TileSet:
    """A box's tiles and task markers, read from a data file.

    ``markers`` maps each task type to the values of its markers;
    ``doubles`` lists the Double markers (the Duel) by the two territories
    each names.
    """

    name: str
    tiles: tuple[Tile, ...]
    markers: dict[str, tuple[int, ...]] = field(default_factory=dict)
    doubles: tuple[tuple[str, str], ...] = ()

    @property
    def landscapes(self) -> tuple[Tile, ...]:
        return tuple(t for t in self.tiles if not t.is_task)

    @property
    def task_tiles(self) -> tuple[Tile, ...]:
        return tuple(t for t in self.tiles if t.is_task)

    def composition(self) -> Counter[str]:
        """Counts by kind and by task type, for checks and docs."""
        counts: Counter[str] = Counter(t.kind for t in self.tiles)
        counts.update(f"task:{t.task}" for t in self.tiles if t.task)
        counts.update(f"flag:{t.flag}" for t in self.tiles if t.flag)
        return counts

    @classmethod
    def from_tsv(cls, name: str, text: str) -> TileSet:
        """Parse the tab-separated format: ``kind  edges  extras`` a line;
        ``markers  TYPE  V,V,...`` lines give the task markers, and
        ``markers  double  forest/grain,...`` the Double markers."""
        tiles: list[Tile] = []
        markers: dict[str, tuple[int, ...]] = {}
        doubles: list[tuple[str, str]] = []
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            try:
                if cols[0] == "markers":
                    if len(cols) != 3 or cols[1] not in _TASK_NEEDS:
                        raise TileSetError("expected: markers TYPE VALUES")
                    if cols[1] == DOUBLE:
                        for pair in cols[2].split(","):
                            first, _, second = pair.partition("/")
                            TaskSpec(DOUBLE, 6, (first, second)).check()
                            doubles.append((first, second))
                    else:
                        markers[cols[1]] = tuple(int(v) for v in cols[2].split(","))
                    continue
                if cols[0] not in (LANDSCAPE, TASK) or len(cols) < 2:
                    raise TileSetError(f"unknown row kind {cols[0]!r}")
                extra = cols[2].replace(";", " ") if len(cols) > 2 else ""
                tiles.append(Tile.from_text(f"{cols[1]} {extra}", kind=cols[0]))
            except ValueError as exc:
                raise TileSetError(f"{name} line {number}: {exc}") from None
        return cls(name, tuple(tiles), markers, tuple(doubles))


def load_tileset(name: str = "base") -> TileSet:
    """Load a tile set shipped in the package (``dorf/data/NAME.tsv``)."""
    if not name.replace("-", "").replace("_", "").isalnum():
        raise TileSetError(f"unknown tile set {name!r}")
    try:
        text = resources.files("dorf.data").joinpath(f"{name}.tsv").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        raise TileSetError(f"unknown tile set {name!r}") from None
    return TileSet.from_tsv(name, text)
