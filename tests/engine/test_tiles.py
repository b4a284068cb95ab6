"""Tiles: the base box, rotation conventions, areas on a tile, tile set data."""

from __future__ import annotations

from collections import Counter

import pytest

from boards import at, build, oriented
from dorf.rules.area import PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.tiles import (
    LANDSCAPE,
    TASK,
    Tile,
    TileSet,
    TileSetError,
    areas,
    canonical_rotation,
    distinct_rotations,
    load_tileset,
    rotate,
)
from repo import ROOT

TASK_TYPES = ("forest", "grain", "village", "river", "track")
TASK_LETTERS = {"forest": "F", "grain": "G", "village": "V", "river": "R", "track": "T"}
SHARED_TILES = ROOT.parent / "shared" / "data" / "board_game_tiles.tsv"


@pytest.fixture(scope="module")
def base() -> TileSet:
    return load_tileset("base")


# --- the base box ---------------------------------------------------------------------


def test_base_set_has_48_landscape_and_25_task_tiles(base):
    assert len(base.tiles) == 73
    assert len(base.landscapes) == 48
    assert len(base.task_tiles) == 25
    assert all(t.kind == LANDSCAPE for t in base.landscapes)
    assert all(t.kind == TASK and t.is_task for t in base.task_tiles)


def test_base_set_has_five_task_tiles_per_type(base):
    assert Counter(t.task for t in base.task_tiles) == dict.fromkeys(TASK_TYPES, 5)
    assert all(t.task is None for t in base.landscapes)


def test_every_task_tile_shows_its_own_terrain(base):
    for t in base.task_tiles:
        assert TASK_LETTERS[t.task] in t.face, t


def test_task_values_come_from_markers_not_from_the_tiles(base):
    assert all(t.value is None for t in base.tiles)


def test_base_markers_are_4_5_5_6_6_per_type(base):
    assert set(base.markers) == set(TASK_TYPES)
    for kind in TASK_TYPES:
        assert sorted(base.markers[kind]) == [4, 5, 5, 6, 6], kind
    assert sum(len(v) for v in base.markers.values()) == 25


def test_base_set_has_exactly_three_flags_on_the_assumed_tiles(base):
    flagged = sorted((t.face, t.flag) for t in base.tiles if t.flag)
    assert flagged == [("GGGGGM", "G"), ("MFFFFF", "F"), ("VVVVVM", "V")]
    assert all(t.kind == LANDSCAPE for t in base.tiles if t.flag)


def test_base_set_uses_only_the_coop_letters(base):
    assert set("".join(t.face for t in base.tiles)) <= set("FGVMRT")


@pytest.mark.skipif(not SHARED_TILES.exists(), reason="shared data not beside the project")
def test_base_set_matches_the_shared_tile_data(base):
    expected: Counter[tuple[str, str, str | None, str | None]] = Counter()
    for line in SHARED_TILES.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        extra = dict(word.split("=") for word in (cols[2].split() if len(cols) > 2 else []))
        flag = {"forest": "F", "grain": "G", "village": "V"}.get(extra.get("flag", ""))
        expected[(cols[0], cols[1], flag, extra.get("task"))] += 1
    got = Counter((t.kind, t.face, t.flag, t.task) for t in base.tiles)
    assert got == expected


def test_composition_counts(base):
    counts = base.composition()
    assert counts["landscape"] == 48
    assert counts["task"] == 25
    for kind in TASK_TYPES:
        assert counts[f"task:{kind}"] == 5
    assert counts["flag:F"] == counts["flag:G"] == counts["flag:V"] == 1


# --- rotation conventions ------------------------------------------------------------


@pytest.mark.parametrize("face", ["RMMMMM", "RVMRFM", "GTVMTM", "TTMRRM", "MFFFFF", "FGVMRT"])
@pytest.mark.parametrize("k", range(6))
def test_rot_k_sends_face_edge_i_to_direction_i_plus_k(face, k):
    edges = rotate(face, k)
    for i in range(6):
        assert edges[(i + k) % 6] == face[i]
    assert edges == oriented(face, k)


def test_rotation_turns_clockwise():
    # A river printed at the north (edge 0) points NE after one step, SE after two.
    assert rotate("RMMMMM", 1) == "MRMMMM"
    assert rotate("RMMMMM", 2) == "MMRMMM"
    assert rotate("RMMMMM", 5) == "MMMMMR"
    assert rotate("RFMMMM", 1) == "MRFMMM"


def test_a_placed_tile_shows_its_rotated_edges_to_its_neighbours():
    area = build(("RMMMMM", 0, 0, 2))
    assert area.edges_at(Hex(0, 0)) == "MMRMMM"
    # The river now points SE: a river tile fits at [1, 0] with its river facing NW (edge 5)...
    assert area.why_illegal("MMMMMR", at(1, 0)) is None
    # ... and nowhere else can a river edge face this tile.
    assert area.why_illegal("MMMRMM", at(0, -1)) is not None
    assert area.why_illegal("MMMMMM", at(1, 0)) is not None


@pytest.mark.parametrize(
    ("face", "count"),
    [
        ("FFFFFF", 1),
        ("MFMFMF", 2),
        ("GMGMGM", 2),
        ("MVMVMV", 2),
        ("RMMRMM", 3),
        ("MMFMMF", 3),
        ("MMRMMR", 3),
        ("MFFFFF", 6),
        ("TTMRRM", 6),
        ("RMRTMT", 6),
    ],
)
def test_distinct_rotations_of_symmetric_tiles(face, count):
    rots = distinct_rotations(face)
    assert len(rots) == count
    assert rots[0] == 0
    # Each rotation gives a different oriented tile, and together they cover all six.
    assert len({rotate(face, k) for k in rots}) == count
    assert {rotate(face, k) for k in rots} == {oriented(face, k) for k in range(6)}


def test_canonical_rotation():
    assert canonical_rotation("MFMFMF", 4) == 0
    assert canonical_rotation("MFMFMF", 3) == 1
    assert canonical_rotation("RMMRMM", 5) == 2
    assert canonical_rotation("MFFFFF", 5) == 5


@pytest.mark.parametrize(("face", "count"), [("FFFFFF", 1), ("MFMFMF", 2), ("RMMRMM", 3), ("MFFFFF", 6)])
def test_first_tile_lists_each_oriented_tile_once(face, count):
    placements = PlayArea().legal_placements(face)
    assert len(placements) == count
    assert {p.at for p in placements} == {Hex(0, 0)}
    assert len({rotate(face, p.rot) for p in placements}) == count


def test_legal_placements_never_repeat_an_oriented_tile():
    area = build(("MMMMMM", 0, 0))
    placements = area.legal_placements("MFMFMF")
    assert len(placements) == 6 * 2
    assert len({(p.at, rotate("MFMFMF", p.rot)) for p in placements}) == 12


# --- one area per terrain per tile -----------------------------------------------------


def test_one_area_per_terrain_on_a_tile():
    assert areas("MFMFMF") == (("F", (1, 3, 5)),)
    assert dict(areas("RVMRFM")) == {"R": (0, 3), "V": (1,), "F": (4,)}
    assert dict(areas("GTVMTM")) == {"G": (0,), "T": (1, 4), "V": (2,)}
    assert dict(areas("RMRTMT")) == {"R": (0, 2), "T": (3, 5)}


def test_meadow_never_forms_an_area():
    assert areas("MMMMMM") == ()
    assert all(letter != "M" for letter, _ in areas("GMGMGM"))


# --- reading tiles and tile sets --------------------------------------------------------


def test_tile_text_round_trip():
    for text in ["MFFFFF flag=forest", "FFFFFF task=forest", "GGGGGM flag=grain", "RMMRMM"]:
        t = Tile.from_text(text)
        assert t.text() == text
        assert Tile.from_text(t.text()) == t
    assert Tile.from_text("FFFFRR task=river").kind == TASK
    assert Tile.from_text("FFFFRR").kind == LANDSCAPE
    assert Tile.from_text("MFFFFF flag=forest").flag == "F"


def test_from_tsv_reads_tiles_markers_and_comments():
    text = (
        "# a comment\n"
        "\n"
        "markers\tforest\t4,6\n"
        "landscape\tMFFFFF\tflag=forest\n"
        "landscape\tRMMRMM\t\n"
        "task\tFFFFFF\ttask=forest\n"
    )
    ts = TileSet.from_tsv("mini", text)
    assert ts.name == "mini"
    assert ts.markers == {"forest": (4, 6)}
    assert [t.text() for t in ts.tiles] == ["MFFFFF flag=forest", "RMMRMM", "FFFFFF task=forest"]


MALFORMED = {
    "unknown kind": "tower\tFFFFFF\t\n",
    "five edges": "landscape\tFFFFF\t\n",
    "seven edges": "landscape\tFFFFFFF\t\n",
    "unknown letter": "landscape\tFFFFFQ\t\n",
    "lower case": "landscape\tffffff\t\n",
    "missing edges": "landscape\n",
    "task tile without a type": "task\tFFFFFF\t\n",
    "landscape with a task": "landscape\tFFFFFF\ttask=forest\n",
    "unknown task type": "task\tFFFFFF\ttask=castle\n",
    "task terrain not on the tile": "task\tFFFFFF\ttask=river\n",
    "flag terrain not on the tile": "landscape\tGGGGGG\tflag=forest\n",
    "flag on a non-territory": "landscape\tRMMRMM\tflag=river\n",
    "unknown flag": "landscape\tFFFFFF\tflag=purple\n",
    "unknown extra": "landscape\tFFFFFF\tcolour=red\n",
    "extra without =": "landscape\tFFFFFF\tforest\n",
    "value not a number": "task\tFFFFFF\ttask=forest;value=five\n",
    "markers of an unknown type": "markers\tcastle\t4,5\n",
    "markers not numbers": "markers\tforest\t4,five\n",
    "markers without values": "markers\tforest\n",
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_tile_set_data_is_rejected_with_tileseterror(name):
    text = "# header\nlandscape\tMMMMMM\t\n" + MALFORMED[name]
    with pytest.raises(TileSetError) as info:
        TileSet.from_tsv("bad", text)
    # The message says where: the file's name and the line.
    assert "bad" in str(info.value)
    assert "line 3" in str(info.value)
    assert "\n" not in str(info.value)


def test_tileseterror_is_a_valueerror():
    assert issubclass(TileSetError, ValueError)


def test_unknown_tile_set_name():
    with pytest.raises(TileSetError):
        load_tileset("no-such-box")
    with pytest.raises(TileSetError):
        load_tileset("../base")
