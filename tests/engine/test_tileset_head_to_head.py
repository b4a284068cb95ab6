"""The Head to Head tile set: a designed set (docs/tileset-head-to-head.md), checked for its composition."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import Hex
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import LANDSCAPE, TASK, Tile, TileSet, load_tileset, rotate

TASK_LETTERS = {"forest": "F", "grain": "G", "village": "V", "river": "R"}
#: The 12 triplet shapes (territory written as *), each in forest, grain and village.
TRIPLET_SHAPES = (
    "***MRM",
    "*MM*MM",
    "**MRMR",
    "*MRMRM",
    "**RMMR",
    "**RPLR",
    "**RLPR",
    "***PLP",
    "***LPL",
    "***MMM",
    "****MM",
    "*****M",
)
#: The 4 landscape tiles without a territory.
NO_TERRITORY = ("MRMMRM", "MRMRMM", "RPLRMM", "RLPRMM")
#: How many tiles (landscape and task) show a mountain half, and as many a lake half:
#: enough for mountains and lakes to form, few enough that they do not outscore the tasks.
TILES_WITH_P_OR_L = range(12, 17)
#: Edges that must meet their own kind (river, lake, mountain).
MUST_MEET = "RLP"


@pytest.fixture(scope="module")
def h2h() -> TileSet:
    return load_tileset("head-to-head")


def _flag_tiles(ts: TileSet) -> list[Tile]:
    return [t for t in ts.tiles if t.flag == "X"]


def _placeholder(face: str) -> str:
    return "".join("*" if letter in "FGV" else letter for letter in face)


def test_set_has_44_landscape_and_19_task_tiles(h2h):
    assert len(h2h.tiles) == 63
    assert len(h2h.landscapes) == 44
    assert len(h2h.task_tiles) == 19
    assert all(t.kind == LANDSCAPE for t in h2h.landscapes)
    assert all(t.kind == TASK for t in h2h.task_tiles)


def test_four_multicoloured_flag_tiles_two_with_mountain_two_with_lake(h2h):
    flags = _flag_tiles(h2h)
    assert len(flags) == 4
    assert all(t.kind == LANDSCAPE for t in flags)
    assert sum("P" in t.face and "L" not in t.face for t in flags) == 2
    assert sum("L" in t.face and "P" not in t.face for t in flags) == 2


def test_flag_tiles_have_one_x_edge_and_no_territory_edge(h2h):
    for t in _flag_tiles(h2h):
        assert t.face.count("X") == 1, t
        assert not set(t.face) & set("FGV"), t


def test_only_flag_tiles_have_an_x_edge_and_no_other_flags_exist(h2h):
    assert all(t.flag in (None, "X") for t in h2h.tiles)
    assert all("X" not in t.face for t in h2h.tiles if t.flag is None)


def test_task_tiles_carry_the_printed_values_of_the_box(h2h):
    expected = Counter(
        [("river", v) for v in (3, 4, 5, 6)]
        + [(kind, v) for kind in ("forest", "grain", "village") for v in (3, 4, 5, 6, 7)]
    )
    assert Counter((t.task, t.value) for t in h2h.task_tiles) == expected


def test_values_are_printed_so_there_are_no_markers(h2h):
    assert h2h.markers == {}
    assert h2h.doubles == ()
    assert all(t.value is None for t in h2h.landscapes)


def test_every_task_tile_shows_its_task_letter(h2h):
    for t in h2h.task_tiles:
        assert TASK_LETTERS[t.task] in t.face, t


def test_no_track_edge_and_only_head_to_head_letters(h2h):
    letters = set("".join(t.face for t in h2h.tiles))
    assert "T" not in letters
    assert letters <= set("FGVMRLPX")


def test_non_flag_landscapes_are_12_triplets_and_4_tiles_without_territory(h2h):
    others = [t.face for t in h2h.landscapes if t.flag != "X"]
    assert len(others) == 40
    expected = Counter({shape: 3 for shape in TRIPLET_SHAPES}) + Counter(NO_TERRITORY)
    assert Counter(_placeholder(face) for face in others) == expected


def test_each_triplet_has_one_forest_one_grain_and_one_village_tile(h2h):
    by_shape: dict[str, list[str]] = {}
    for t in h2h.landscapes:
        if t.flag != "X" and "*" in _placeholder(t.face):
            by_shape.setdefault(_placeholder(t.face), []).append(t.face)
    assert set(by_shape) == set(TRIPLET_SHAPES)
    for shape, faces in by_shape.items():
        territories = sorted(next(letter for letter in face if letter in "FGV") for face in faces)
        assert territories == ["F", "G", "V"], shape
        assert all(len(set(face) & set("FGV")) == 1 for face in faces), shape


def test_a_moderate_number_of_tiles_show_mountain_and_lake_halves(h2h):
    assert sum("P" in t.face for t in h2h.tiles) in TILES_WITH_P_OR_L
    assert sum("L" in t.face for t in h2h.tiles) in TILES_WITH_P_OR_L


def test_most_tiles_with_a_mountain_or_lake_half_show_a_single_edge_of_it(h2h):
    for letter in "PL":
        counts = [t.face.count(letter) for t in h2h.tiles if letter in t.face]
        assert max(counts) <= 2, letter
        assert sum(c == 1 for c in counts) >= 3 * sum(c == 2 for c in counts), letter


def test_every_tile_has_free_edges_and_at_most_four_that_must_meet(h2h):
    for t in h2h.tiles:
        must_meet = sum(t.face.count(letter) for letter in MUST_MEET)
        assert must_meet <= 4, t
        assert 6 - must_meet >= 2, t


def test_rivers_are_common_enough_for_river_tasks(h2h):
    river_tiles = [t for t in h2h.tiles if "R" in t.face]
    assert len(river_tiles) >= 20
    assert sum(t.face.count("R") == 2 for t in river_tiles) >= 15


Chooser = Callable[[PlayArea, str, list[Placement], random.Random], Placement]


def _random_choice(area: PlayArea, face: str, moves: list[Placement], rng: random.Random) -> Placement:
    return rng.choice(moves)


def _greedy_choice(area: PlayArea, face: str, moves: list[Placement], rng: random.Random) -> Placement:
    """Where the most forest, grain, village, river, mountain and lake edges meet their own letter."""
    best: list[Placement] = []
    top = -1
    for move in moves:
        edges = rotate(face, move.rot)
        score = 0
        for d in range(6):
            other = area.edges_at(move.at.neighbour(d))
            if other is not None and edges[d] == other[(d + 3) % 6] and edges[d] != "M":
                score += 1
        if score > top:
            best, top = [move], score
        elif score == top:
            best.append(move)
    return rng.choice(best)


def _mountains_and_lakes(area: PlayArea) -> int:
    """P-P and L-L meetings, each counted once."""
    pairs = 0
    for placed in area:
        edges = area.edges_at(placed.at)
        for d in range(3):
            other = area.edges_at(placed.at.neighbour(d))
            if other is not None and edges[d] == other[(d + 3) % 6] and edges[d] in "PL":
                pairs += 1
    return pairs


def _play(h2h: TileSet, seed: int, games: int, choose: Chooser) -> tuple[float, list[int]]:
    """One player's half of the box a game: both flag tiles and 28 other tiles, in random order.

    Returns the share of tiles with no legal placement and the mountains and lakes of each game.
    """
    rng = random.Random(seed)
    flags = _flag_tiles(h2h)
    mountain_flag = next(t for t in flags if "P" in t.face)
    lake_flag = next(t for t in flags if "L" in t.face)
    pool = [t for t in h2h.tiles if t.flag != "X"]
    tiles_tried, stuck, formed = 0, 0, []
    for _ in range(games):
        hand = [*rng.sample(pool, 28), mountain_flag, lake_flag]
        rng.shuffle(hand)
        area = PlayArea()
        for tile in hand:
            spec = TaskSpec(tile.task, tile.value) if tile.task and tile.value else None
            moves = area.legal_placements(tile.face, spec)
            tiles_tried += 1
            if not moves:
                stuck += 1
                continue
            area.play(tile.face, choose(area, tile.face, moves, rng), task=spec)
        assert area.edges_at(Hex(0, 0)) is not None
        formed.append(_mountains_and_lakes(area))
    return stuck / tiles_tried, formed


def test_random_play_rarely_gets_stuck_and_forms_some_mountains_and_lakes(h2h):
    games = 60
    stuck, formed = _play(h2h, 2024, games, _random_choice)
    assert stuck < 0.02
    assert 0.7 <= sum(formed) / games <= 2.0
    assert sum(n >= 1 for n in formed) / games >= 0.5


def test_greedy_play_forms_mountains_and_lakes_without_them_dominating(h2h):
    games = 40
    stuck, formed = _play(h2h, 2024, games, _greedy_choice)
    assert stuck < 0.02
    # 3 to 5 a game is 9 to 15 points, fewer than a greedy player's tasks are worth.
    assert 2.5 <= sum(formed) / games <= 5.0
