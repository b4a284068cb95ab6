"""A seat's view is data: nothing reachable from it leads back to the game (issue 26).

A player, an RL agent or a bot in the same process gets a view, never the state.  If a view
held the live areas, or a callable bound to the state, ``view.withheld.func.__self__._hidden``
would be the stack order.  These tests walk the object graph from views of every mode, at
many points of random games, the way :func:`gc.get_referents` sees it, and find none of: the
state, its game (with the seed), a random generator, the stacks and the other hidden lists, the
live play areas and anything mutable inside them, the other seat's placement held back; and
nothing callable at all.  A view is a snapshot: what the game does next, or what a player
does to the areas it was handed, changes nothing on the other side.
"""

from __future__ import annotations

import functools
import gc
import random
import types
from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from dorf.games.coop import CoopGame, CoopState
from dorf.games.duel import DuelGame, DuelState
from dorf.games.headtohead import HeadToHeadGame, HeadToHeadState
from dorf.games.seat import Seat
from dorf.players.registry import make_player
from dorf.rules.area import PlacedTile, Placement, PlayArea
from dorf.rules.hexgrid import cell_of
from dorf.rules.tasks import Task

#: A walk stops (and fails) past this many objects: a view holds a few thousand.
WALK_LIMIT = 50_000
#: Objects whose type is one of these are never part of a view's data, and reach everything:
#: the walk does not go into them (a class leads to its module, a module to the whole program).
_OPAQUE = (type, types.ModuleType)
#: Anything callable in a view could be bound to the state: there must be none.
_CALLABLE = (
    types.FunctionType,
    types.MethodType,
    types.BuiltinMethodType,
    types.CodeType,
    types.FrameType,
    types.GeneratorType,
    functools.partial,
)

State = CoopState | DuelState | HeadToHeadState


def reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` through :func:`gc.get_referents`, but classes and modules."""
    seen: dict[int, object] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _OPAQUE):
            continue
        seen[id(obj)] = obj
        assert len(seen) <= WALK_LIMIT, "the walk from a view found far more than a view holds"
        stack.extend(gc.get_referents(obj))
    return list(seen.values())


def area_parts(area: PlayArea) -> Iterator[object]:
    """The area and everything mutable it holds that a caller can get at."""
    yield area
    yield area.placed
    yield area.tasks
    yield from area.tasks
    yield from (value for value in vars(area).values() if not isinstance(value, int | str))


def live_areas(state: State) -> list[PlayArea]:
    if isinstance(state, CoopState):
        return [state.area]
    if isinstance(state, DuelState):
        return list(state.areas)
    return [state.area(0), state.area(1)] if state.seats is not None else []


def seat_parts(seat: Seat) -> Iterator[object]:
    yield from (seat, seat.turns, seat._tasks, seat._landscapes, seat._moves)
    yield from seat.turns
    yield from area_parts(seat.area)


def forbidden(state: State) -> dict[int, str]:
    """By identity: the objects of the game no view may lead to, with what each is."""
    out: dict[int, str] = {}

    def add(name: str, objects: Iterable[object]) -> None:
        for obj in objects:
            out.setdefault(id(obj), name)

    add("the state", [state, vars(state)])
    add("the game (and its seed)", [state.game])
    if isinstance(state, CoopState):
        hidden = state._hidden
        add("the hidden set-up", [hidden, hidden.removed, hidden.markers, *hidden.markers.values()])
        add("the seat", seat_parts(state._seat))
    elif isinstance(state, DuelState):
        stacks = state._hidden
        add(
            "the stacks",
            [stacks, stacks.tasks, stacks.landscapes, stacks.removed, stacks.doubles, stacks.markers],
        )
        add("the marker piles", stacks.markers.values())
        add("the turns", [state.turns, state.history, state._moves, *state._moves, *state.turns])
    else:
        add("the draft", [state.pool, state.owned, *state.owned, state.history])
        for seat in state.seats or ():
            add("a seat", seat_parts(seat))
    for area in live_areas(state):
        add("a live play area", area_parts(area))
    return out


def check_view(state: State, player: int, view: Any) -> list[object]:
    """Walk from ``view``: nothing of the game, nothing callable, no random generator, and the
    other's placement held back is nowhere; returns what the walk found."""
    found = reachable(view)
    bad = forbidden(state)
    for obj in found:
        assert id(obj) not in bad, f"the view of player {player} leads to {bad[id(obj)]}: {type(obj)}"
        assert not isinstance(obj, _CALLABLE), f"the view of player {player} holds a callable: {obj!r}"
        assert not isinstance(obj, random.Random), f"the view of player {player} holds a random generator"
    if isinstance(state, DuelState | HeadToHeadState):
        other = 1 - player
        if other in state.pending():
            check_held_back(state, player, view, found)
    return found


def heads(area: PlayArea) -> list[tuple[Any, ...]]:
    """What an area shows, whatever object holds it: each tile's face, place, rotation and flag."""
    return [tile[:4] for tile in area.placed]


def check_held_back(state: DuelState | HeadToHeadState, player: int, view: Any, found: list[object]) -> None:
    """The other has placed and ``player`` has not: their latest placement is nowhere in the view."""
    other = 1 - player
    live = live_areas(state)[other]
    latest = live.placed[-1]
    assert all(obj is not latest for obj in found), "the view holds the placement held back"
    shown = view.areas[other]
    assert heads(shown) == heads(live)[:-1]
    # Nor in the order of its frontier: as the tiles before it laid again, not as undone
    # (undoing it would put the cell it took at the end of the frontier).
    again = replayed(live.placed[:-1])
    assert shown.frontier_cells() == again.frontier_cells()
    assert shown.legal_moves("FFFFFF") == again.legal_moves("FFFFFF")
    areas = [obj for obj in found if isinstance(obj, PlayArea)]
    assert len(areas) == 2
    for area in areas:
        assert area is view.area or heads(area) != heads(live), "an area in the view shows it"
    tiles = [obj for obj in found if isinstance(obj, PlacedTile)]
    assert sum(1 for tile in tiles if tile[:4] == latest[:4]) <= sum(
        1 for tile in view.area.placed if tile[:4] == latest[:4]
    ), "a placed tile in the view shows it"
    if isinstance(state, HeadToHeadState):
        assert state.seats is not None
        turns = state.seats[other].turns
        last = max(i for i, turn in enumerate(turns) if turn.placement is not None)
        since = {id(turn.revealed) for turn in turns[last + 1 :]}
        assert not any(id(obj) in since for obj in found), "the view holds a tile the other revealed since"


def replayed(tiles: Iterable[PlacedTile]) -> PlayArea:
    area = PlayArea()
    for tile in tiles:
        task = None if tile.task is None else tile.task.spec
        area.push(tile.face, cell_of(*tile.at), tile.rot, flag=tile.flag, task=task)
    return area


# --- random games --------------------------------------------------------------------------------


def coop_points(seed: int, players: int) -> Iterator[tuple[State, list[tuple[int, Any]]]]:
    rng = random.Random(seed)
    state = CoopGame(seed=seed, players=players).new_state()
    while not state.is_over:
        yield state, [(state.player, state.view())]
        state.push_move(*rng.choice(state.legal_moves()))
        if state.decisions and rng.random() < 0.1:
            state.undo()
    yield state, [(0, state.view())]


def two_player_points(
    state: DuelState | HeadToHeadState, seed: int
) -> Iterator[tuple[State, list[tuple[int, Any]]]]:
    rng = random.Random(seed)
    while isinstance(state, HeadToHeadState) and state.pool:
        yield state, [(p, state.view(p)) for p in (0, 1)]
        state.pick(rng.choice(state.pool))
    while not state.is_over:
        yield state, [(p, state.view(p)) for p in (0, 1)]
        player = rng.choice(state.to_move())
        state.push_move(*rng.choice(state.legal_moves(player)), player)
        if state.history and rng.random() < 0.05:
            state.undo()
    yield state, [(p, state.view(p)) for p in (0, 1)]


def points(mode: str, seed: int) -> Iterator[tuple[State, list[tuple[int, Any]]]]:
    if mode == "coop":
        return coop_points(seed, players=1 + seed % 3)
    if mode == "duel":
        return two_player_points(DuelGame(seed=seed).new_state(), seed)
    return two_player_points(HeadToHeadGame(seed=seed).new_state(), seed)


MODES = ("coop", "duel", "head-to-head")


@pytest.mark.parametrize("mode", MODES)
def test_nothing_reachable_from_a_view_leads_to_the_game(mode: str) -> None:
    held_back = 0
    walked = 0
    stride = 1 if mode == "coop" else 3
    for seed in (1, 2):
        for number, (state, views) in enumerate(points(mode, seed)):
            if number % stride and not (isinstance(state, DuelState | HeadToHeadState) and state.pending()):
                continue  # every third point, and every point where a placement is held back
            for player, view in views:
                check_view(state, player, view)
                walked += 1
                if isinstance(state, DuelState | HeadToHeadState) and 1 - player in state.pending():
                    held_back += 1
    assert walked >= 60
    if mode != "coop":
        assert held_back >= 20  # the case that matters most was met often


@pytest.mark.parametrize("mode", MODES)
def test_a_view_is_a_snapshot_the_game_and_the_player_cannot_change_each_other(mode: str) -> None:
    """A view made earlier stays as it was while the game goes on; what a player does to its
    areas (push, pop) leaves the game alone."""
    kept: list[tuple[Any, list[list[tuple[Any, ...]]]]] = []
    for number, (state, views) in enumerate(points(mode, seed=3)):
        live = [heads(area) for area in live_areas(state)]
        for _, view in views:
            areas = [view.area] if mode == "coop" else list(view.areas)
            if number % 5 == 0:
                kept.append((view, [heads(area) for area in areas]))
            own = view.area
            placements = view.legal_placements()
            revealed = view.revealed[view.player] if mode == "head-to-head" else view.revealed
            if own.placed:
                own.pop()  # a player may take the areas it was handed apart
            if placements and revealed is not None:
                at, tile = placements[0], revealed.tile
                own.push(tile.face, cell_of(*at.at), at.rot, flag=tile.flag, task=revealed.task)
        assert [heads(area) for area in live_areas(state)] == live
    assert kept
    for view, shown in kept:
        if mode != "coop":  # (the one area of a cooperative view was taken apart above)
            other = 1 - view.player
            assert heads(view.areas[other]) == shown[other]  # the game went on; the view did not


@pytest.mark.parametrize("mode", ["duel", "head-to-head"])
def test_the_area_held_back_does_not_tell_where_the_other_placed(mode: str) -> None:
    """Regression: the other's area shown as a copy with the latest placement popped had the
    cell of that placement last in its frontier (and in the order of its legal moves)."""
    last_is_theirs = held_back = 0
    for state, views in points(mode, seed=8):
        assert isinstance(state, DuelState | HeadToHeadState)
        for player, view in views:
            other = 1 - player
            if other in state.pending():
                live = live_areas(state)[other]
                held_back += 1
                last_is_theirs += view.areas[other].frontier_cells()[-1] == cell_of(*live.placed[-1].at)
    assert held_back >= 20
    assert last_is_theirs < held_back / 3


@pytest.mark.parametrize("mode", ["duel", "head-to-head"])
def test_the_area_held_back_follows_undo(mode: str) -> None:
    """The area shown for a placement held back is kept from one view to the next and grows
    with the game: after undo (often here) it is still the tiles before, laid again."""
    rng = random.Random(9)
    state: DuelState | HeadToHeadState = (
        DuelGame(seed=9).new_state() if mode == "duel" else HeadToHeadGame(seed=9).new_state()
    )
    while isinstance(state, HeadToHeadState) and state.pool:
        state.pick(rng.choice(state.pool))
    checked = 0
    while not state.is_over:
        placements = (
            len(state.history)
            if isinstance(state, DuelState)
            else sum(1 for _, decision in state.history if isinstance(decision, Placement))
        )
        if placements and rng.random() < 0.3:
            for _ in range(rng.randint(1, min(3, placements))):
                state.undo()  # placements only: not back into the draft
        else:
            player = rng.choice(state.to_move())
            state.push_move(*rng.choice(state.legal_moves(player)), player)
        for other in state.pending():
            live = live_areas(state)[other]
            shown = state.view(1 - other).areas[other]
            again = replayed(live.placed[:-1])
            assert heads(shown) == heads(again) and shown.frontier_cells() == again.frontier_cells()
            checked += 1
    assert checked >= 20


def test_a_copied_area_is_equal_and_shares_nothing_that_changes() -> None:
    """PlayArea.copy: the same tiles, tasks, figures and moves, its own Task objects, and it pops
    back as far as the original could."""
    state = DuelGame(seed=4).new_state()
    rng = random.Random(4)
    for _ in range(40):
        player = rng.choice(state.to_move())
        state.push_move(*rng.choice(state.legal_moves(player)), player)
    for area in state.areas:
        copy = area.copy()
        assert type(copy) is type(area)
        assert heads(copy) == heads(area)
        assert [(t.cell, t.spec, t.status) for t in copy.tasks] == [
            (t.cell, t.spec, t.status) for t in area.tasks
        ]
        assert not {id(t) for t in copy.tasks} & {id(t) for t in area.tasks}
        assert all(isinstance(t, Task) for t in copy.tasks)
        assert (copy.active_count, copy.longest_river, copy.longest_track, copy.lakes, copy.mountains) == (
            area.active_count,
            area.longest_river,
            area.longest_track,
            area.lakes,
            area.mountains,
        )
        for face in ("FFFFFF", "RRMMMM", "TTGGGG", "LMMMMM", "FGVMRT"):
            assert copy.legal_moves(face) == area.legal_moves(face)
        popped = [copy.pop() for _ in range(len(copy))]
        assert len(copy) == 0 and copy.frontier_cells() == [cell_of(0, 0)] and not copy.tasks
        assert len(area) == len(popped)  # the original is untouched
        again = area.copy()
        again.pop()
        assert heads(again) == heads(area)[:-1]


def test_players_choose_from_views_alone() -> None:
    """The players decide on views that lead nowhere: greedy players through the draft and 30
    placements of each mode, every view walked."""
    states: list[State] = [
        CoopGame(seed=5).new_state(),
        DuelGame(seed=5).new_state(),
        HeadToHeadGame(seed=5).new_state(),
    ]
    for state in states:
        player = make_player("greedy")
        placements = 0
        while placements < 30 and not state.is_over:
            if isinstance(state, CoopState):
                view = state.view()
                check_view(state, state.player, view)
                state.play(player.choose(view))
                placements += 1
                continue
            p = state.to_move()[-1]
            view = state.view(p)
            check_view(state, p, view)
            decision = player.choose(view)
            if isinstance(state, DuelState):
                assert isinstance(decision, Placement)
                state.play(decision, p)
            else:
                state.apply(decision, p)
            placements += isinstance(decision, Placement)
        assert placements == 30


def test_the_openspiel_core_view_is_data_too() -> None:
    pytest.importorskip("pyspiel")
    from dorf.rl.openspiel import DorfCoopGame

    game = DorfCoopGame()
    state = game.new_initial_state()
    rng = random.Random(1)
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, weights)[0])
            continue
        core = state._core
        view = core.view()
        found = reachable(view)
        bad = {id(obj) for obj in (core, core.seat, core.tasks, core.landscapes, core.markers, core.actions)}
        bad |= {id(obj) for obj in area_parts(core.seat.area)}
        assert not any(id(obj) in bad or isinstance(obj, _CALLABLE) for obj in found)
        checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked >= 20


def test_the_encoder_keeps_its_marks_across_the_copies_views_hand_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Views hand out a new copy of each area every time: the encoder still updates its planes
    tile by tile instead of drawing every area again (it compares tiles, not identities)."""
    pytest.importorskip("numpy")
    from dorf.rl import planes
    from dorf.rl.window import Window

    made = 0
    original = planes._Marks.__init__

    def counting(self: Any, *args: Any) -> None:
        nonlocal made
        made += 1
        original(self, *args)

    monkeypatch.setattr(planes._Marks, "__init__", counting)
    state = DuelGame(seed=6).new_state()
    encoder = planes.Encoder("duel", Window(4), state.game.tileset)
    rng = random.Random(6)
    views = 0
    while not state.is_over:
        for p in (0, 1):
            encoder.encode(state.view(p))
            views += 1
        player = rng.choice(state.to_move())
        state.push_move(*rng.choice(state.legal_moves(player)), player)
    assert views > 100
    assert made <= 6  # a few blocks per prefix for the whole game, not one a view


@pytest.mark.parametrize("mode", MODES)
def test_the_encoder_gives_what_a_new_one_gives_on_copies_taken_apart(mode: str) -> None:
    """Marks kept across copies are right however the copies differ: undo in the game, and
    areas a player took apart and built otherwise (other tiles above shared ones)."""
    np = pytest.importorskip("numpy")
    from dorf.rl.planes import Encoder
    from dorf.rl.window import Window

    rng = random.Random(7)
    encoder: Encoder | None = None
    for number, (state, views) in enumerate(points(mode, seed=7)):
        tileset = state.game.tileset
        if encoder is None:
            encoder = Encoder(mode, Window(4), tileset)
        for _, view in views:
            if number % 4 == 1 and view.area.placed:
                area = view.area
                for _ in range(rng.randint(1, min(3, len(area)))):
                    area.pop()
                for tile in rng.sample(tileset.tiles, 2):
                    moves = area.legal_moves(tile.face)
                    if moves:
                        area.push(tile.face, *rng.choice(moves), flag=tile.flag)
            kept = encoder.encode(view)
            assert np.array_equal(kept, Encoder(mode, Window(4), tileset).encode(view))
