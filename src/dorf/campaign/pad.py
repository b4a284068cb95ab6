"""A finished cooperative game's score pad, as a campaign records it, and what a pad can hold.

A pad typed in from the table is checked against the box before it is
recorded: no negative numbers; each type's task points must be a sum of
that type's markers (one 4, two 5s and two 6s in the base box); a colour's
flag points at most its flag tiles times the tiles with that terrain; the
longest track and river at most the tiles that show one; and a total, when
given, must be the sum of the fields.

>>> pad = read_pad({"tasks": {"forest": 9}, "longest_river": 7, "total": 16}, Limits.base())
>>> pad.s1, pad.s2, pad.total
(9, 7, 16)
>>> read_pad({"tasks": {"forest": 7}}, Limits.base())
Traceback (most recent call last):
...
dorf.campaign.pad.PadError: forest tasks 7: no set of forest markers (4, 5, 5, 6, 6) adds up to 7
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dorf.rules.scoring import FLAG_COLOURS, TASK_TYPES, ScorePad
from dorf.rules.terrain import LETTER_OF_NAME, TASK_LETTER
from dorf.rules.tiles import TileSet, load_tileset

FLAG_NAMES: tuple[str, ...] = tuple(FLAG_COLOURS.values())
#: Keys of a pad's JSON object; ``task_list`` (from ``dorf score --json``) is accepted and ignored.
PAD_KEYS = ("tasks", "flags", "longest_track", "longest_river", "unlocked", "total", "task_list")


class PadError(ValueError):
    """A score pad that no game can give; the message is one line."""


def sums_of(values: Iterable[int]) -> frozenset[int]:
    """Every total of a subset of ``values`` (each value used at most once).

    >>> sorted(sums_of([4, 5, 5, 6, 6]))[:8]
    [0, 4, 5, 6, 9, 10, 11, 12]
    """
    sums = {0}
    for value in values:
        sums |= {s + value for s in sums}
    return frozenset(sums)


@dataclass(frozen=True)
class Limits:
    """What a pad's fields can be: the task markers of each type, the largest flag
    points of each colour, the longest track and river.  :meth:`base` reads them
    from the base box; a campaign sheet can raise them (its ``limit`` and
    ``markers`` rows) for tiles that the campaign boxes add."""

    markers: dict[str, tuple[int, ...]]
    flags: dict[str, int]
    longest_track: int
    longest_river: int
    _sums: dict[str, frozenset[int]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_tileset(cls, tileset: TileSet) -> Limits:
        def showing(letter: str) -> int:
            return sum(1 for tile in tileset.tiles if letter in tile.face)

        flags = {}
        for name in FLAG_NAMES:
            letter = LETTER_OF_NAME[name]
            flag_tiles = sum(1 for tile in tileset.tiles if tile.flag == letter)
            flags[name] = flag_tiles * showing(letter)
        markers = {name: tuple(tileset.markers.get(name, ())) for name in TASK_TYPES}
        return cls(markers, flags, showing(TASK_LETTER["track"]), showing(TASK_LETTER["river"]))

    @classmethod
    def base(cls) -> Limits:
        return cls.from_tileset(load_tileset("base"))

    def task_sums(self, task_type: str) -> frozenset[int]:
        if task_type not in self._sums:
            self._sums[task_type] = sums_of(self.markers.get(task_type, ()))
        return self._sums[task_type]

    def check(self, pad: ScorePad) -> None:
        """Raise :class:`PadError` if no game in this box can give ``pad``."""
        for name in TASK_TYPES:
            points = pad.tasks[name]
            if points not in self.task_sums(name):
                markers = ", ".join(str(v) for v in self.markers.get(name, ()))
                raise PadError(
                    f"{name} tasks {points}: no set of {name} markers ({markers}) adds up to {points}"
                )
        for name in FLAG_NAMES:
            if pad.flags[name] > self.flags[name]:
                raise PadError(
                    f"{name} flags {pad.flags[name]}: more than the box allows ({self.flags[name]}: its "
                    f"{name} flag tiles times the tiles with {name})"
                )
        for label, value, most in (
            ("longest track", pad.longest_track, self.longest_track),
            ("longest river", pad.longest_river, self.longest_river),
        ):
            if value > most:
                raise PadError(f"{label} {value}: more than the {most} tiles in the box that show one")


def _count(value: Any, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PadError(f"{label} must be a whole number, not {value!r}")
    if value < 0:
        raise PadError(f"{label} {value} is negative")
    return value


def _counts(value: Any, names: tuple[str, ...], what: str) -> dict[str, int]:
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise PadError(f"{what} must be an object of {', '.join(names)}")
    unknown = sorted(set(value) - set(names))
    if unknown:
        raise PadError(f"{what}: unknown {unknown[0]!r} (known: {', '.join(names)})")
    return {name: _count(value.get(name, 0), f"{name} {what}") for name in names}


def read_pad(data: Any, limits: Limits) -> ScorePad:
    """A checked :class:`~dorf.rules.scoring.ScorePad` from a pad's JSON object.

    The object is what ``dorf score --json`` prints, with ``unlocked`` (S3)
    added; missing fields are 0; ``total``, if present, must add up.
    """
    if not isinstance(data, Mapping):
        raise PadError("a score pad must be a JSON object")
    unknown = sorted(set(data) - set(PAD_KEYS))
    if unknown:
        raise PadError(f"unknown field {unknown[0]!r} in the score pad (known: {', '.join(PAD_KEYS[:-1])})")
    pad = ScorePad(
        _counts(data.get("tasks"), TASK_TYPES, "tasks"),
        _counts(data.get("flags"), FLAG_NAMES, "flags"),
        _count(data.get("longest_track", 0), "longest track"),
        _count(data.get("longest_river", 0), "longest river"),
        _count(data.get("unlocked", 0), "unlocked (S3)"),
    )
    limits.check(pad)
    if data.get("total") is not None:
        total = _count(data["total"], "total")
        if total != pad.total:
            raise PadError(
                f"total {total} does not add up: S1 {pad.s1} + S2 {pad.s2} + S3 {pad.s3} = {pad.total}"
            )
    return pad


def pad_json(pad: ScorePad) -> dict[str, Any]:
    """The breakdown a campaign stores for a game: every field of the pad and its sums, and the
    tasks one by one (``task_list``) when the game came from a record."""
    return {
        "tasks": dict(pad.tasks),
        "flags": dict(pad.flags),
        "longest_track": pad.longest_track,
        "longest_river": pad.longest_river,
        "unlocked": pad.unlocked,
        "s1": pad.s1,
        "s2": pad.s2,
        "s3": pad.s3,
        "total": pad.total,
        **({"task_list": list(pad.task_list)} if pad.task_list else {}),
    }


def pad_from_json(data: Mapping[str, Any]) -> ScorePad:
    """The pad back from :func:`pad_json` (as stored; not checked again)."""
    return ScorePad(
        {name: int(data["tasks"][name]) for name in TASK_TYPES},
        {name: int(data["flags"][name]) for name in FLAG_NAMES},
        int(data["longest_track"]),
        int(data["longest_river"]),
        int(data.get("unlocked", 0)),
        tuple(data.get("task_list", ())),
    )


def pad_fields(pad: ScorePad) -> dict[str, int]:
    """The numbers an achievement's condition can test (see docs/campaign.md)."""
    fields = {f"tasks.{name}": pad.tasks[name] for name in TASK_TYPES}
    fields.update({f"flags.{name}": pad.flags[name] for name in FLAG_NAMES})
    fields.update(
        {
            "tasks": pad.s1,
            "flags": sum(pad.flags.values()),
            "longest_track": pad.longest_track,
            "longest_river": pad.longest_river,
            "unlocked": pad.unlocked,
            "s1": pad.s1,
            "s2": pad.s2,
            "s3": pad.s3,
            "total": pad.total,
            "task_types": sum(1 for v in pad.tasks.values() if v > 0),
            "flag_colours": sum(1 for v in pad.flags.values() if v > 0),
        }
    )
    return fields


#: Every name a condition may use.
FIELD_NAMES: tuple[str, ...] = tuple(
    pad_fields(ScorePad(dict.fromkeys(TASK_TYPES, 0), dict.fromkeys(FLAG_NAMES, 0), 0, 0))
)

__all__ = [
    "FIELD_NAMES",
    "FLAG_NAMES",
    "Limits",
    "PadError",
    "pad_fields",
    "pad_from_json",
    "pad_json",
    "read_pad",
    "sums_of",
]
