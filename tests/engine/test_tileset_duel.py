"""The Duel's tile set (rules note 22): one player's designed set of 42 landscape and 27 task tiles."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from importlib import resources

import pytest

from dorf.rules.tiles import LANDSCAPE, TASK, Tile, TileSet, load_tileset

TERRITORY_TYPES = ("forest", "grain", "village")
SIMPLE_TYPES = (*TERRITORY_TYPES, "river", "track", "connection")
TASK_LETTERS = {"forest": "F", "grain": "G", "village": "V", "river": "R", "track": "T"}
DUEL_LETTERS = set("FGVMRT")


@pytest.fixture(scope="module")
def duel() -> TileSet:
    return load_tileset("duel")


def _edge_count(tiles: Iterable[Tile], letter: str) -> int:
    return sum(t.face.count(letter) for t in tiles)


# --- composition (rules note 22) -------------------------------------------------------


def test_duel_set_has_42_landscape_and_27_task_tiles(duel: TileSet) -> None:
    assert len(duel.tiles) == 69
    assert len(duel.landscapes) == 42
    assert len(duel.task_tiles) == 27
    assert all(t.kind == LANDSCAPE for t in duel.landscapes)
    assert all(t.kind == TASK and t.is_task for t in duel.task_tiles)


def test_duel_set_has_two_flag_tiles_per_territory(duel: TileSet) -> None:
    assert Counter(t.flag for t in duel.tiles if t.flag) == {"F": 2, "G": 2, "V": 2}


def test_duel_flags_are_on_landscape_tiles_and_name_an_area_on_the_tile(duel: TileSet) -> None:
    for t in duel.tiles:
        if t.flag:
            assert t.kind == LANDSCAPE, t
            assert t.flag in t.face, t


def test_duel_task_tiles_are_four_of_each_type_and_three_doubles(duel: TileSet) -> None:
    expected = dict.fromkeys(SIMPLE_TYPES, 4) | {"double": 3}
    assert Counter(t.task for t in duel.task_tiles) == expected
    assert all(t.task is None for t in duel.landscapes)


def test_duel_task_values_come_from_markers_not_from_the_tiles(duel: TileSet) -> None:
    assert all(t.value is None for t in duel.tiles)


def test_every_duel_task_tile_shows_its_own_terrain(duel: TileSet) -> None:
    for t in duel.task_tiles:
        if t.task in TASK_LETTERS:
            assert TASK_LETTERS[t.task] in t.face, t


def test_every_double_task_tile_shows_forest_grain_and_village(duel: TileSet) -> None:
    doubles = [t for t in duel.task_tiles if t.task == "double"]
    assert len(doubles) == 3
    for t in doubles:
        assert {"F", "G", "V"} <= set(t.face), t


def test_duel_tiles_use_no_head_to_head_edges(duel: TileSet) -> None:
    for t in duel.tiles:
        assert set(t.face) <= DUEL_LETTERS, t
        assert not set(t.face) & set("LPX"), t


def test_duel_markers_are_3_to_6_for_each_of_the_six_types(duel: TileSet) -> None:
    assert duel.markers == dict.fromkeys(SIMPLE_TYPES, (3, 4, 5, 6))


def test_duel_has_the_three_double_markers(duel: TileSet) -> None:
    assert duel.doubles == (("forest", "grain"), ("village", "forest"), ("grain", "village"))


def test_duel_composition_counts(duel: TileSet) -> None:
    counts = duel.composition()
    assert counts[LANDSCAPE] == 42
    assert counts[TASK] == 27
    assert all(counts[f"task:{kind}"] == 4 for kind in SIMPLE_TYPES)
    assert counts["task:double"] == 3
    assert all(counts[f"flag:{letter}"] == 2 for letter in "FGV")


def test_duel_data_file_says_it_is_a_designed_set() -> None:
    text = resources.files("dorf.data").joinpath("duel.tsv").read_text(encoding="utf-8")
    header = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    assert "designed" in header.lower()
    assert "identical" in header.lower()


# --- design: rivers and tracks ----------------------------------------------------------


@pytest.mark.parametrize("letter", ["R", "T"])
def test_duel_set_has_enough_river_and_track_edges(duel: TileSet, letter: str) -> None:
    # Designed with 40 of each, like the base box's 40 in 73 tiles: long enough
    # networks for tasks of 3 to 6 and for the longest river / track.
    assert _edge_count(duel.tiles, letter) >= 36
    assert sum(letter in t.face for t in duel.tiles) >= 18
    assert sum(letter in t.face for t in duel.landscapes) >= 11


def test_duel_set_keeps_must_meet_edges_in_bounds(duel: TileSet) -> None:
    # Not so many river and track edges that tiles often fit nowhere: at most
    # two of each kind on a tile, and at least 40 % of the tiles have neither.
    for t in duel.tiles:
        assert t.face.count("R") <= 2 and t.face.count("T") <= 2, t
    plain = [t for t in duel.tiles if "R" not in t.face and "T" not in t.face]
    assert len(plain) >= 0.4 * len(duel.tiles)
    assert _edge_count(duel.tiles, "R") + _edge_count(duel.tiles, "T") <= 84


@pytest.mark.parametrize("letter", ["R", "T"])
def test_duel_landscapes_include_straights_bends_and_ends(duel: TileSet, letter: str) -> None:
    shapes: Counter[str] = Counter()
    for t in duel.landscapes:
        edges = [i for i, e in enumerate(t.face) if e == letter]
        if len(edges) == 1:
            shapes["end"] += 1
        elif len(edges) == 2:
            gap = edges[1] - edges[0]
            shapes[{1: "sharp", 2: "bend", 3: "straight"}[min(gap, 6 - gap)]] += 1
    assert all(shapes[shape] >= 1 for shape in ("end", "sharp", "bend", "straight")), shapes


# --- design: territories --------------------------------------------------------------


def test_duel_territory_edges_are_balanced(duel: TileSet) -> None:
    counts = [_edge_count(duel.tiles, letter) for letter in "FGV"]
    assert min(counts) >= 75
    assert max(counts) - min(counts) <= 6


def test_duel_has_one_full_tile_per_territory_on_its_task_tiles(duel: TileSet) -> None:
    for kind, letter in zip(TERRITORY_TYPES, "FGV", strict=True):
        assert any(t.task == kind and t.face == letter * 6 for t in duel.task_tiles), kind
