"""Property tests for Head to Head: whole games against a from-scratch recomputation.

Random games, with the real tile set and with small random tile sets, are played
decision by decision: random picks in the draft, then placements with a random
interleaving of the two players.  Throughout:

- the draft: pool and owned tiles partition the tiles other than the flag tiles,
  players alternate from player 1, the last tile goes to player 2 (rule 17);
- after every placement, the area of the player who placed equals what
  :mod:`reference` recomputes from its bare tiles (groups, tasks, longest river,
  lakes and mountains, the Head to Head score pad, legal placements), and the
  other area did not change;
- each seat's reveals follow the reveal rule on that seat's own area, recomputed
  from its turns (rules 10, 13, 14, 18);
- pacing: while both play, nobody is more than one placement ahead, and
  ``to_move()`` lists exactly the players who may place (rule 18);
- undo restores the whole state exactly (a snapshot read through the public
  API), and a record replays to the same state.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from test_property import (
    HEAD_TO_HEAD_PALETTES,
    SEEDS,
    engine_groups,
    engine_tasks,
    ref_task,
    reference_groups,
    reference_tasks,
)

from budget import Games, play, tiers
from dorf.formats.record import record_of, replay_record
from dorf.games.headtohead import DRAFT, HeadToHeadGame, HeadToHeadState, Pick
from dorf.rules.area import Placement, PlayArea
from dorf.rules.scoring import score_head_to_head
from dorf.rules.tasks import TaskSpec
from dorf.rules.tiles import LANDSCAPE, TASK, Tile, TileSet
from reference import RefBoard, RefTile

H2H_TASK_LETTERS = {"forest": "F", "grain": "G", "village": "V", "river": "R"}
#: Letter pools crowded with edges that must meet their kind.
CROWDED_PALETTES = ("LLPPRR", "PPPPLF", "RRRRLG", "LP", "RL", "ML", "PM", "RLPM")
#: Faces that fit only where every touching edge is of their kinds.
STUBBORN = ("LLLLLL", "PPPPPP", "RRRRRR", "LLLPPP", "RRRLLL", "RPRPRP")

# --- reading a state through the public API ----------------------------------------------


def area_figures(area: PlayArea) -> tuple[Any, ...]:
    """What the engine keeps incrementally for one Head to Head area, in the reference's terms."""
    return (
        [(t.face, t.at, t.rot) for t in area.placed],
        engine_groups(area),
        engine_tasks(area),
        area.longest_river,
        (area.lakes, area.mountains),
        frozenset(area.frontier()),
        score_head_to_head(area).as_json(),
    )


def reference_figures(ref: RefBoard) -> tuple[Any, ...]:
    return (
        [(t.face, t.at, t.rot) for t in ref.tiles],
        reference_groups(ref),
        reference_tasks(ref),
        ref.longest("R"),
        (ref.pairs("L"), ref.pairs("P")),
        frozenset(ref.frontier()),
        ref.score("head-to-head"),
    )


def snapshot(state: HeadToHeadState) -> tuple[Any, ...]:
    """Everything undo must restore, read only through the public API."""
    seats = []
    for p in (0, 1):
        area = state.area(p)
        revealed = state.revealed(p)
        turns = (
            [
                (t.number, t.player, t.revealed.tile_id, t.revealed.task, t.placement, t.set_aside)
                for t in state.seats[p].turns
            ]
            if state.seats is not None
            else []
        )
        seats.append(
            (
                area_figures(area),
                [t.status for t in area.tasks],
                len(area.active_tasks()),
                None if revealed is None else (revealed.tile_id, revealed.task),
                state.legal_placements(p),
                sorted(state.legal_moves(p)),
                turns,
                state.unseen(p),
            )
        )
    views = []
    for p in (0, 1):
        view = state.view(p)
        views.append(
            (
                view.player,
                view.phase,
                view.to_move,
                view.pool,
                view.owned,
                view.revealed,
                view.stacks_left,
                view.unseen,
                view.legal_placements(),
                view.legal_picks(),
            )
        )
    return (
        state.phase,
        state.is_over,
        state.to_move(),
        state.player,
        list(state.pool),
        (list(state.owned[0]), list(state.owned[1])),
        list(state.history),
        state.legal_picks(),
        [pad.as_json() for pad in state.scores()],
        state.winner(),
        seats,
        views,
    )


# --- checks ------------------------------------------------------------------------------------


def check_draft(state: HeadToHeadState) -> None:
    """Rule 17: the pool and the owned tiles partition the drafted tiles; players alternate."""
    tiles = state.game.tileset.tiles
    flags = {i for pair in state.flags for i in pair}
    drafted = [i for i in range(len(tiles)) if i not in flags]
    assert sorted(state.pool + state.owned[0] + state.owned[1]) == drafted
    assert state.flags[0][0] != state.flags[1][0] and state.flags[0][1] != state.flags[1][1]
    for p in (0, 1):
        mountain, lake = (tiles[i] for i in state.flags[p])
        assert mountain.flag == lake.flag == "X" and "P" in mountain.face and "L" in lake.face
    picks = len(state.history) if state.seats is None else len(drafted) - 1
    if state.seats is None:
        assert state.pool == sorted(state.pool)
        assert (len(state.owned[0]), len(state.owned[1])) == ((picks + 1) // 2, picks // 2)
        assert state.to_move() == (picks % 2,)
        assert state.legal_picks() == [Pick(i) for i in state.pool]
    else:
        assert state.pool == []
        assert (len(state.owned[0]), len(state.owned[1])) == ((picks + 1) // 2, picks // 2 + 1)
        assert state.legal_picks() == []
    assert state.view(0).owned == state.view(1).owned == (tuple(state.owned[0]), tuple(state.owned[1]))


def check_pacing(state: HeadToHeadState) -> None:
    """Rule 18: one placement a round each; a finished player waits while the other plays on."""
    assert state.seats is not None
    counts = [len(seat.decisions) for seat in state.seats]
    over = [seat.is_over for seat in state.seats]
    if not any(over):
        assert abs(counts[0] - counts[1]) <= 1, counts
        expected = tuple(p for p in (0, 1) if counts[p] <= counts[1 - p])
    else:
        expected = tuple(p for p in (0, 1) if not over[p])
    assert state.to_move() == expected
    assert state.is_over == all(over)
    for p in (0, 1):
        assert bool(state.legal_placements(p)) == (p in expected)


class SeatChecker:
    """The reference's copy of one seat's area, and the reveal rule recomputed from its turns."""

    def __init__(self, state: HeadToHeadState, player: int) -> None:
        tiles = state.game.tileset.tiles
        mine = [*state.owned[player], *state.flags[player]]
        self.mine = set(mine)
        self.player = player
        self.tasks_total = sum(1 for i in mine if tiles[i].is_task)
        self.landscapes_total = len(mine) - self.tasks_total
        self.ref = RefBoard()
        self.checked = 0

    def placed(self, state: HeadToHeadState) -> None:
        """The seat's last placement: add it to the reference and compare every figure."""
        t = state.area(self.player).placed[-1]
        self.ref.place(RefTile(t.face, t.at, t.rot, None, None if t.task is None else ref_task(t.task.spec)))
        assert area_figures(state.area(self.player)) == reference_figures(self.ref)

    def reveals(self, state: HeadToHeadState) -> None:
        """Rules 10, 13, 14 on this seat's own area, for the turns revealed since the last check."""
        assert state.seats is not None
        seat = state.seats[self.player]
        turns = seat.turns
        active = self.ref.statuses.count("open")
        tasks_seen = sum(1 for t in turns[: self.checked] if t.revealed.tile.is_task)
        for index in range(self.checked, len(turns)):
            turn = turns[index]
            tasks_left = self.tasks_total - tasks_seen
            want_task = tasks_left > 0 and (turn.number <= 3 or active < 3)
            assert turn.number == index + 1 and turn.player == self.player
            assert turn.revealed.tile.is_task == want_task, f"player {self.player} turn {turn.number}"
            tile = turn.revealed.tile
            assert turn.revealed.task == (TaskSpec(tile.task, tile.value) if tile.is_task else None)
            tasks_seen += want_task
            fits = bool(self.ref.legal_placements(tile.face, ref_task(turn.revealed.task)))
            assert turn.set_aside == (not fits), f"player {self.player} turn {turn.number}: rule 10"
            if not turn.set_aside:
                assert index == len(turns) - 1
        self.checked = len(turns)
        ids = [t.revealed.tile_id for t in turns]
        assert len(set(ids)) == len(ids) and set(ids) <= self.mine, "a tile not from this player's stacks"
        landscapes_left = self.landscapes_total - (len(turns) - tasks_seen)
        if seat.is_over:
            assert landscapes_left == 0, "rule 14: the game ends only when a landscape tile is missing"
            assert not (self.tasks_total - tasks_seen > 0 and active < 3), "rule 13: a task tile was due"
        else:
            waiting = turns[-1].revealed
            assert state.revealed(self.player) == waiting
            expected = self.ref.legal_placements(waiting.tile.face, ref_task(waiting.task))
            assert {(p.at, p.rot) for p in seat.legal_placements()} == expected
        assert seat.task_tiles_left() == self.tasks_total - tasks_seen
        assert seat.landscapes_left() == landscapes_left


# --- playing a game ------------------------------------------------------------------------------


def play_checked(game: HeadToHeadGame, data: st.DataObject, *, detours: bool = True) -> HeadToHeadState:
    """Play a whole game with drawn decisions, checking every property on the way."""
    state = game.new_state()
    check_draft(state)
    while state.phase == DRAFT:
        if detours and data.draw(st.integers(0, 9), label="draft detour") == 0:
            before = snapshot(state)
            state.pick(data.draw(st.sampled_from(state.pool), label="detour pick"))
            state.undo()
            assert snapshot(state) == before, "undo of a pick did not restore the game"
        player = state.player
        state.pick(data.draw(st.sampled_from(state.pool), label="pick"), player)
        assert state.history[-1][0] == player
        check_draft(state)
    checkers = (SeatChecker(state, 0), SeatChecker(state, 1))
    for checker in checkers:
        checker.reveals(state)
    check_pacing(state)
    while not state.is_over:
        player = data.draw(st.sampled_from(state.to_move()), label="who places")
        legal = state.legal_placements(player)
        if detours and data.draw(st.integers(0, 4), label="detour") == 0:
            before = snapshot(state)
            state.play(legal[data.draw(st.integers(0, len(legal) - 1), label="detour move")], player)
            assert state.undo()[0] == player
            assert snapshot(state) == before, "undo of a placement did not restore the game"
        other = area_figures(state.area(1 - player))
        state.play(choose(state.area(player), legal, data), player)
        assert state.history[-1] == (player, state.seats[player].decisions[-1])
        checkers[player].placed(state)
        checkers[player].reveals(state)
        assert area_figures(state.area(1 - player)) == other, "the other player's area changed"
        check_pacing(state)
    for p in (0, 1):
        assert state.scores()[p].as_json() == checkers[p].ref.score("head-to-head")
        if any(t.set_aside for t in state.seats[p].turns):
            event("a tile was set aside")
    if state.winner() is None:
        event("a shared victory")
    statuses = {t.status.value for p in (0, 1) for t in state.area(p).tasks}
    for status in sorted(statuses - {"open"}):
        event(f"a task ended {status}")
    if any(pad.mountains + pad.lakes for pad in state.scores()):
        event("a mountain or lake formed")
    if any(pad.flags for pad in state.scores()):
        event("a multicoloured flag scored")
    return state


def choose(area: PlayArea, legal: list[Placement], data: st.DataObject) -> Placement:
    """A drawn legal placement, often next to an open task so that tasks get completed or failed."""
    near = {t.at.neighbour(d) for t in area.placed if t.task and t.task.is_open for d in range(6)}
    targeted = [p for p in legal if p.at in near]
    if targeted and data.draw(st.integers(0, 2), label="seek a task") > 0:
        legal = targeted
    return legal[data.draw(st.integers(0, len(legal) - 1), label="move")]


def replayed(state: HeadToHeadState) -> HeadToHeadState:
    """The same game from its decisions (a record's content) on a fresh state."""
    again = state.game.new_state()
    for player, decision in state.history:
        again.apply(decision, player)
    return again


# --- the real tile set ------------------------------------------------------------------------


@tiers(4)
def test_head_to_head_games_match_the_reference(games: Games) -> None:
    """Random games with the real box; the record replays to the same state."""
    play(games, real_box_game, seed=SEEDS, data=st.data())


def real_box_game(seed: int, data: st.DataObject) -> None:
    state = play_checked(HeadToHeadGame(seed=seed), data)
    record = json.loads(json.dumps(record_of(state)))
    again = replay_record(record)
    assert isinstance(again, HeadToHeadState)
    assert snapshot(again) == snapshot(state)
    assert json.loads(json.dumps(record_of(again))) == record


@tiers(3)
def test_head_to_head_undo_all_the_way_and_replay(games: Games) -> None:
    """Take back every decision, one by one, through the end of the draft; then play them again."""
    play(games, undo_all_the_way, seed=SEEDS, data=st.data())


def undo_all_the_way(seed: int, data: st.DataObject) -> None:
    state = HeadToHeadGame(seed=seed).new_state()
    history = []
    while not state.is_over:
        history.append(snapshot(state))
        if state.phase == DRAFT:
            state.pick(data.draw(st.sampled_from(state.pool), label="pick"))
        else:
            player = data.draw(st.sampled_from(state.to_move()), label="who places")
            moves = state.legal_moves(player)
            cell, rot = moves[data.draw(st.integers(0, len(moves) - 1), label="move")]
            state.push_move(cell, rot, player)
    end = snapshot(state)
    decisions = list(state.history)
    while history:
        state.undo()
        assert snapshot(state) == history.pop()
    assert state.history == [] and state.phase == DRAFT
    for player, decision in decisions:
        state.apply(decision, player)
    assert snapshot(state) == end


# --- small random tile sets ---------------------------------------------------------------------


@st.composite
def flag_faces(draw: st.DrawFn, half: str, others: str) -> str:
    """A flag tile face: one X edge, the given half, the rest from ``others`` (no territory)."""
    rest = [*draw(st.lists(st.sampled_from(others), min_size=4, max_size=4)), half]
    return "X" + "".join(draw(st.permutations(rest)))


@st.composite
def head_to_head_tilesets(draw: st.DrawFn) -> TileSet:
    """Four flag tiles and a few random landscapes and task tiles with printed values."""
    flags = [
        *(Tile(LANDSCAPE, draw(flag_faces("P", "MMRLP")), "X") for _ in range(2)),
        *(Tile(LANDSCAPE, draw(flag_faces("L", "MMRL")), "X") for _ in range(2)),
    ]
    palette = draw(st.sampled_from(HEAD_TO_HEAD_PALETTES + CROWDED_PALETTES))
    face = st.lists(st.sampled_from(palette), min_size=6, max_size=6).map("".join)
    tiles = [Tile(LANDSCAPE, f) for f in draw(st.lists(face, min_size=0, max_size=14))]
    # Tiles all of whose edges must meet their kind: they often fit nowhere (rule 10).
    tiles += [Tile(LANDSCAPE, f) for f in draw(st.lists(st.sampled_from(STUBBORN), max_size=3))]
    for f in draw(st.lists(face, max_size=8)):
        kinds = [kind for kind, letter in H2H_TASK_LETTERS.items() if letter in f]
        if kinds:
            kind = draw(st.sampled_from(kinds))
            top = 6 if kind == "river" else 7
            tiles.append(Tile(TASK, f, task=kind, value=draw(st.integers(3, top))))
    if len(tiles) < 2:  # a draft needs two open tiles (see the xfail test of rule 17)
        tiles += [Tile(LANDSCAPE, "MMMMMM")] * (2 - len(tiles))
    order = draw(st.permutations(range(len(tiles) + 4)))
    every = [*flags, *tiles]
    return TileSet("random", tuple(every[i] for i in order))


@tiers(20, quick=4)
def test_head_to_head_random_boxes_match_the_reference(games: Games) -> None:
    """Small random boxes: lopsided drafts, set-aside tiles, one player's game ending early."""
    play(games, random_box_game, tileset=head_to_head_tilesets(), seed=SEEDS, data=st.data())


def random_box_game(tileset: TileSet, seed: int, data: st.DataObject) -> None:
    state = play_checked(HeadToHeadGame(seed=seed, tileset=tileset), data)
    assert snapshot(replayed(state)) == snapshot(state)
    counts = [len(seat.decisions) for seat in state.seats]
    if abs(counts[0] - counts[1]) > 1:
        event("one player played on alone")
