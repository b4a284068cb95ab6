"""Property tests for the Duel: whole games against a from-scratch recomputation.

Random Duel games (the designed set, and small random boxes crowded with rivers
and tracks, connection and double tasks) are played with a random interleaving
of the two players' placements.  After every placement:

- each play area equals what :mod:`reference` recomputes from its bare list of
  placed tiles (groups, tasks including connection and double tasks, longest
  river and track, frontier, the Duel score pad), and the legal placements of a
  waiting player equal the reference's;
- the tile placed is the revealed tile with its flag and marker, the same for
  both areas;
- every revealed turn follows rule 24, recomputed from the turns: a task tile in
  turns 1 to 3 and while either area has fewer than 3 open tasks, else a
  landscape tile, the end only when a landscape tile is due and none is left;
  markers come from their piles, Double markers from those not drawn yet;
- a tile is set aside for a player exactly when it fits nowhere in that area.

Now and then a placement is made and undone, which must restore everything
exactly; at the end the whole game is undone step by step and replayed from its
record.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from test_property import SEEDS, check_area, engine_figures, ref_task

from budget import Games, play, tiers
from dorf.formats.record import apply_decision, record_of, replay_record
from dorf.games.duel import DuelGame, DuelState
from dorf.rules.area import Placement
from dorf.rules.hexgrid import cell_of
from dorf.rules.tasks import DOUBLE_PAIRS
from dorf.rules.tiles import LANDSCAPE, TASK, Tile, TileSet, load_tileset
from reference import TASK_LETTERS, RefBoard, RefTile

REMOVED = 3


# --- what undo must restore --------------------------------------------------------------------


def duel_snapshot(state: DuelState) -> tuple[Any, ...]:
    """Everything a player or a program can read from a Duel, through the public API."""
    views = [state.view(p) for p in (0, 1)]
    revealed = state.revealed
    return (
        [engine_figures(area) for area in state.areas],
        [area.active_count for area in state.areas],
        [
            (
                t.number,
                t.revealed,
                list(t.placements),
                list(t.set_aside),
                [[(task.cell, task.spec, status) for task, status in changes] for changes in t.changes],
            )
            for t in state.turns
        ],
        list(state.history),
        state.to_move(),
        state.player,
        state.is_over,
        state.turn,
        None if revealed is None else (revealed.tile_id, revealed.task),
        [state.legal_placements(p) for p in (0, 1)],
        [sorted(state.legal_moves(p)) for p in (0, 1)],
        state.landscapes_left(),
        state.task_tiles_left(),
        [(v.unseen, v.markers_unseen, v.doubles_unseen, v.legal_placements()) for v in views],
        [pad.as_json() for pad in state.scores()],
        state.winner() if state.is_over else "playing",
    )


# --- rule 24, recomputed from the turns --------------------------------------------------------


class RevealCheck:
    """Walks the turns as they are revealed and checks each against rule 24 and rule 10."""

    def __init__(self, tileset: TileSet) -> None:
        self.task_total = len(tileset.task_tiles)
        self.landscape_total = max(0, len(tileset.landscapes) - REMOVED)
        self.markers = Counter((kind, v) for kind, values in tileset.markers.items() for v in values)
        self.doubles = Counter(tuple(pair) for pair in tileset.doubles)
        self.seen = 0  # turns checked so far
        self.tasks_out = 0
        self.landscapes_out = 0

    def check(self, state: DuelState, refs: list[RefBoard]) -> None:
        """Check the turns revealed since the last call; the areas have not changed since."""
        active = min(ref.statuses.count("open") for ref in refs)
        for index in range(self.seen, len(state.turns)):
            turn = state.turns[index]
            tasks_left = self.task_total - self.tasks_out
            wants_task = tasks_left > 0 and (turn.number <= 3 or active < 3)
            assert turn.number == index + 1
            assert turn.revealed.tile.is_task == wants_task, f"turn {turn.number}: wrong stack (rule 24)"
            assert self.landscape_total - self.landscapes_out > 0 or wants_task
            tile, task = turn.revealed.tile, turn.revealed.task
            if wants_task:
                self.tasks_out += 1
                assert task is not None
                if tile.task == "double":
                    assert task.type == "double" and task.value == 6
                    assert self.doubles[task.types] > 0, f"turn {turn.number}: Double {task} not left"
                    self.doubles[task.types] -= 1
                else:
                    assert task.type == tile.task and not task.types
                    assert self.markers[(task.type, task.value)] > 0, f"turn {turn.number}: {task} not left"
                    self.markers[(task.type, task.value)] -= 1
            else:
                self.landscapes_out += 1
                assert task is None
            for p in (0, 1):
                fits = bool(refs[p].legal_placements(tile.face, ref_task(task)))
                assert turn.set_aside[p] == (not fits), f"turn {turn.number}, player {p + 1}: rule 10"
            if not all(turn.set_aside):
                assert index == len(state.turns) - 1, "a turn was skipped while a player could place"
            else:
                event("a tile was set aside in both areas")
            if any(turn.set_aside) and not all(turn.set_aside):
                event("a tile was set aside in one area only")
        self.seen = len(state.turns)
        assert state.task_tiles_left() == self.task_total - self.tasks_out
        assert state.landscapes_left() == self.landscape_total - self.landscapes_out
        if state.is_over:
            assert self.landscape_total == self.landscapes_out, "rule 24: over while landscapes remain"
            assert not (self.tasks_out < self.task_total and active < 3), "rule 24: a task tile was due"
        else:
            last = state.turns[-1]
            assert state.revealed == last.revealed
            waiting = tuple(p for p in (0, 1) if not last.set_aside[p] and last.placements[p] is None)
            assert state.to_move() == waiting and waiting


# --- playing -----------------------------------------------------------------------------------


def choose(state: DuelState, player: int, legal: list[Placement], data: st.DataObject) -> Placement:
    """A drawn legal placement, often next to an open task so that tasks get decided."""
    area = state.areas[player]
    near = {t.at.neighbour(d) for t in area.placed if t.task and t.task.is_open for d in range(6)}
    targeted = [p for p in legal if p.at in near]
    if targeted and data.draw(st.integers(0, 3), label="seek a task") > 0:
        legal = targeted
    return legal[data.draw(st.integers(0, len(legal) - 1), label="move")]


def play_checked(state: DuelState, data: st.DataObject) -> tuple[list[RefBoard], list[tuple[Any, ...]]]:
    """Play a whole Duel with drawn players and moves, checking everything after each placement.

    Returns the reference boards and the snapshot before each placement.
    """
    refs = [RefBoard(), RefBoard()]
    reveals = RevealCheck(state.game.tileset)
    reveals.check(state, refs)
    before_each: list[tuple[Any, ...]] = []
    while not state.is_over:
        revealed = state.revealed
        assert revealed is not None
        face, task = revealed.tile.face, revealed.task
        waiting = state.to_move()
        for p in waiting:
            legal = state.legal_placements(p)
            assert {(x.at, x.rot) for x in legal} == refs[p].legal_placements(face, ref_task(task))
        before = duel_snapshot(state)
        before_each.append(before)
        if data.draw(st.integers(0, 4), label="detour") == 0:
            p = data.draw(st.sampled_from(waiting), label="detour player")
            moves = state.legal_moves(p)
            cell, rot = moves[data.draw(st.integers(0, len(moves) - 1), label="detour move")]
            state.push_move(cell, rot, p)
            assert state.undo()[0] == p
            assert duel_snapshot(state) == before, "undo did not restore the game"
        player = data.draw(st.sampled_from(waiting), label="player")
        state.play(choose(state, player, state.legal_placements(player), data), player)
        placed = state.areas[player].placed[-1]
        assert (placed.face, placed.flag) == (revealed.tile.face, revealed.tile.flag)
        assert (None if placed.task is None else placed.task.spec) == task
        refs[player].place(RefTile(placed.face, placed.at, placed.rot, placed.flag, ref_task(task)))
        check_area(state.areas[player], refs[player])
        assert [pad.as_json() for pad in state.scores()] == [ref.score("duel") for ref in refs]
        reveals.check(state, refs)
    for p in (0, 1):
        assert state.legal_placements(p) == [] and state.legal_moves(p) == []
    a, b = (ref.score("duel")["total"] for ref in refs)
    assert state.winner() == (None if a == b else 0 if a > b else 1)
    note_events(refs)
    return refs, before_each


def note_events(refs: list[RefBoard]) -> None:
    for ref in refs:
        for tile, status in zip(ref.task_tiles, ref.statuses, strict=True):
            assert tile.task is not None
            if tile.task[0] in ("connection", "double"):
                event(f"a {tile.task[0]} task ended {status}")


def fresh_state(state: DuelState) -> DuelState:
    return DuelGame(seed=state.game.seed, tileset=state.game.tileset).new_state()


def check_undo_and_replay(state: DuelState, before_each: list[tuple[Any, ...]]) -> None:
    """Undo the whole game step by step (every earlier state comes back), then replay its record."""
    end = duel_snapshot(state)
    record = json.loads(json.dumps(record_of(state)))
    taken_back = state.taken_back
    assert len(record["decisions"]) == len(before_each)
    while before_each:
        state.undo()
        assert duel_snapshot(state) == before_each.pop()
    assert not state.history
    again = fresh_state(state)
    for number, raw in enumerate(record["decisions"], 1):
        apply_decision(again, number, raw)
    assert duel_snapshot(again) == end
    again.taken_back = taken_back  # rebuilt by hand: it took nothing back itself
    assert json.loads(json.dumps(record_of(again))) == record


# --- the designed set --------------------------------------------------------------------------


@tiers(2)
def test_duel_game_matches_reference(games: Games) -> None:
    """A random Duel with the designed set, checked after every placement, undone and replayed."""
    play(games, designed_set_game, seed=SEEDS, data=st.data())


def designed_set_game(seed: int, data: st.DataObject) -> None:
    state = DuelGame(seed=seed).new_state()
    refs, before_each = play_checked(state, data)
    for p in (0, 1):  # rule 23: each player lays (or sets aside) 42 - 3 landscape tiles
        laid = sum(1 for t in refs[p].tiles if t.task is None)
        aside = sum(1 for t in state.turns if not t.revealed.tile.is_task and t.set_aside[p])
        assert laid + aside == len(load_tileset("duel").landscapes) - REMOVED == 39
    record = json.loads(json.dumps(record_of(state)))
    replayed = replay_record(record)
    assert isinstance(replayed, DuelState)
    assert duel_snapshot(replayed) == duel_snapshot(state)
    assert json.loads(json.dumps(record_of(replayed))) == record
    check_undo_and_replay(state, before_each)


# --- small random boxes ------------------------------------------------------------------------

#: Letter pools: rivers and tracks crowd some, so tiles often fit nowhere (rule 10), in
#: one area and not in the other when the areas grew differently; one terrain crowds
#: others, so territories reach 6 (double tasks).  Double task tiles always get forest,
#: grain and village edges besides.
DUEL_PALETTES = (
    "RTFGVM",
    "RRTTFGV",
    "FGVM",
    "RRRTFGV",
    "TTMFGV",
    "FFFFGV",
    "GGGGFVR",
    "VVVVFGT",
    "RRRRRT",
    "RRRRTF",
    "RTTTTF",
)


@st.composite
def duel_tilesets(draw: st.DrawFn) -> TileSet:
    """A small random Duel box: landscapes (some with flags), task tiles of all seven types,
    markers of any small value (connection 0 fits only on an empty area), Double markers."""
    palette = draw(st.sampled_from(DUEL_PALETTES))
    letters = st.sampled_from(palette)
    face = st.lists(letters, min_size=6, max_size=6).map("".join)
    tiles: list[Tile] = []
    for f in draw(st.lists(face, max_size=16)):
        territories = sorted(set(f) & set("FGV"))
        flag = draw(st.none() | st.sampled_from(territories)) if territories else None
        tiles.append(Tile(LANDSCAPE, f, flag=flag))
    markers: dict[str, list[int]] = {}
    doubles: list[tuple[str, str]] = []
    for f in draw(st.lists(face, max_size=8)):
        kinds = [kind for kind, letter in TASK_LETTERS.items() if letter in f]
        kind = draw(st.sampled_from([*kinds, "connection"]))
        tiles.append(Tile(TASK, f, task=kind))
        markers.setdefault(kind, []).append(draw(st.integers(0 if kind == "connection" else 1, 6)))
    for _ in range(draw(st.integers(0, 3), label="double tiles")):
        rest = draw(st.lists(letters, min_size=3, max_size=3))
        tiles.append(Tile(TASK, "".join(draw(st.permutations(["F", "G", "V", *rest]))), task="double"))
        doubles.append(draw(st.sampled_from(DOUBLE_PAIRS)))
    tiles = draw(st.permutations(tiles))
    return TileSet("random", tuple(tiles), {k: tuple(v) for k, v in markers.items()}, tuple(doubles))


@tiers(24, quick=4)
def test_duel_with_random_boxes_matches_reference(games: Games) -> None:
    """Duels on random boxes: set-aside tiles in one or both areas, early ends, empty stacks."""

    def game(tileset: TileSet, seed: int, data: st.DataObject) -> None:
        state = DuelGame(seed=seed, tileset=tileset).new_state()
        _, before_each = play_checked(state, data)
        check_undo_and_replay(state, before_each)

    play(games, game, tileset=duel_tilesets(), seed=SEEDS, data=st.data())


@tiers(16, quick=4)
def test_duel_undo_in_the_middle_then_a_different_game(games: Games) -> None:
    """Undo several placements in the middle of a game, play on differently: the state is the one
    a fresh game reaches with the decisions that stood."""
    play(games, undo_in_the_middle, tileset=duel_tilesets(), seed=SEEDS, data=st.data())


def undo_in_the_middle(tileset: TileSet, seed: int, data: st.DataObject) -> None:
    state = DuelGame(seed=seed, tileset=tileset).new_state()
    while not state.is_over:
        if state.history and data.draw(st.integers(0, 5), label="take back") == 0:
            for _ in range(data.draw(st.integers(1, len(state.history)), label="how many")):
                state.undo()
        player = data.draw(st.sampled_from(state.to_move()), label="player")
        moves = state.legal_moves(player)
        cell, rot = moves[data.draw(st.integers(0, len(moves) - 1), label="move")]
        state.push_move(cell, rot, player)
        assert cell_of(*state.areas[player].placed[-1].at) == cell
    again = fresh_state(state)
    for number, raw in enumerate(record_of(state)["decisions"], 1):
        apply_decision(again, number, raw)
    assert duel_snapshot(again) == duel_snapshot(state)
