"""Golden seeded games: whole cooperative games replayed and compared on every run.

Each golden game is a seed, a number of players and a deterministic player
(the legal placement with the highest immediate score, ties broken by the
smallest ``q``, ``r``, ``rot``).  Its full record (``record.record_of``) and
final score pad are stored under ``tests/golden/``; the test plays the game
again and must get exactly the same file.  A change in the rules engine, the
tile data or the reveal order shows up here as a diff.

If a change is intended, regenerate the files and review the diff::

    .venv/bin/python tests/test_golden.py --regen
"""

from __future__ import annotations

import difflib
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from dorf.formats.record import record_of, replay_record
from dorf.games.coop import CoopGame, CoopState
from dorf.rules.area import Placement, PlayArea
from dorf.rules.hexgrid import cell_of
from dorf.rules.scoring import score_coop

GOLDEN_DIR = Path(__file__).parent / "golden"
#: (seed, players) of each golden game.
GOLDEN_GAMES = ((1, 1), (2, 2), (3, 4))
PLAYER = "greedy: highest immediate total, then most open-task progress, then smallest (q, r, rot)"
REGEN = "python tests/test_golden.py --regen"


def golden_path(seed: int, players: int) -> Path:
    return GOLDEN_DIR / f"seed{seed}-{players}p.json"


# --- the deterministic player -----------------------------------------------------------


def progress(area: PlayArea) -> int:
    """How far the open tasks have got: the sizes of their territories, rivers and tracks."""
    total = 0
    for tile in area.placed:
        if tile.task is not None and tile.task.is_open:
            total += area.figures(cell_of(*tile.at), tile.task.spec.letter)[0]
    return total


def greedy_placement(state: CoopState) -> Placement:
    """The legal placement with the highest immediate score, then the most task progress;
    remaining ties go to the smallest (q, r, rot).

    The tie-break uses the placement itself, not the enumeration order, so that
    the golden games do not depend on how the engine happens to list its moves.
    """
    revealed = state.revealed
    assert revealed is not None
    tile, area = revealed.tile, state.area
    best: tuple[tuple[int, int, int, int, int], Placement] | None = None
    for placement in state.legal_placements():
        area.play(tile.face, placement, flag=tile.flag, task=revealed.task)
        key = (-score_coop(area).total, -progress(area), placement.at.q, placement.at.r, placement.rot)
        area.pop()
        if best is None or key < best[0]:
            best = (key, placement)
    assert best is not None, "the engine revealed a tile with no legal placement"
    return best[1]


def play_greedy(seed: int, players: int) -> CoopState:
    state = CoopGame(seed=seed, players=players).new_state()
    while not state.is_over:
        state.play(greedy_placement(state))
    return state


def final_score(state: CoopState) -> dict[str, Any]:
    pad = state.score()
    return {"s1": pad.s1, "s2": pad.s2, "s3": pad.s3, **pad.as_json()}


def golden_document(state: CoopState) -> dict[str, Any]:
    doc = {
        "about": f"golden game; regenerate with: {REGEN}",
        "player": PLAYER,
        "record": record_of(state),
        "final_score": final_score(state),
    }
    normal: dict[str, Any] = json.loads(json.dumps(doc))  # tuples become lists, as in the file
    return normal


@cache
def generated(seed: int, players: int) -> dict[str, Any]:
    return golden_document(play_greedy(seed, players))


# --- a readable, stable JSON layout -------------------------------------------------------


def to_text(value: Any, indent: str = "") -> str:
    """JSON with one short object (a decision, a task) per line, so that diffs stay readable."""
    flat = json.dumps(value, ensure_ascii=False)
    if len(indent) + len(flat) <= 100 or not isinstance(value, dict | list) or not value:
        return flat
    inner = indent + " "
    if isinstance(value, dict):
        parts = [f"{inner}{json.dumps(k)}: {to_text(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(parts) + f"\n{indent}}}"
    parts = [inner + to_text(v, inner) for v in value]
    return "[\n" + ",\n".join(parts) + f"\n{indent}]"


def write_golden(seed: int, players: int) -> Path:
    path = golden_path(seed, players)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_text(generated(seed, players)) + "\n", encoding="utf-8")
    return path


def load_golden(seed: int, players: int) -> dict[str, Any]:
    path = golden_path(seed, players)
    if not path.exists():
        pytest.fail(f"{path} is missing; create it with: {REGEN}")
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def diff_message(
    name: str, stored: dict[str, Any], fresh: dict[str, Any], limit: int = 60, regen: str = REGEN
) -> str:
    """A readable diff of a stored golden game and the same game played now, with how to regenerate."""
    lines = list(
        difflib.unified_diff(
            to_text(stored).splitlines(),
            to_text(fresh).splitlines(),
            fromfile=f"{name} (stored)",
            tofile=f"{name} (played now)",
            lineterm="",
        )
    )
    more = f"\n... {len(lines) - limit} more diff lines" if len(lines) > limit else ""
    return (
        f"golden game {name} changed. If the change is intended, run `{regen}` and review the diff.\n"
        + "\n".join(lines[:limit])
        + more
    )


# --- the tests ----------------------------------------------------------------------------

GAME_IDS = [f"seed{s}-{p}p" for s, p in GOLDEN_GAMES]


@pytest.mark.parametrize(("seed", "players"), GOLDEN_GAMES, ids=GAME_IDS)
def test_golden_game_is_played_again_exactly(seed: int, players: int) -> None:
    stored = load_golden(seed, players)
    fresh = generated(seed, players)
    assert stored == fresh, diff_message(golden_path(seed, players).name, stored, fresh)


@pytest.mark.parametrize(("seed", "players"), GOLDEN_GAMES, ids=GAME_IDS)
def test_golden_record_replays_to_the_same_score(seed: int, players: int) -> None:
    stored = load_golden(seed, players)
    record = stored["record"]
    assert record["seed"] == seed and len(record["players"]) == players and record["finished"]
    state = replay_record(record)
    assert state.is_over
    assert json.loads(json.dumps(final_score(state))) == stored["final_score"]
    assert json.loads(json.dumps(state.score().as_json())) == record["score"]
    assert json.loads(json.dumps(record_of(state))) == record


@pytest.mark.parametrize(("seed", "players"), GOLDEN_GAMES, ids=GAME_IDS)
def test_golden_game_scores_the_same_from_scratch(seed: int, players: int) -> None:
    """The reference recomputes the stored final score from the bare placed tiles."""
    from reference import RefBoard, RefTile

    state = replay_record(load_golden(seed, players)["record"])
    ref = RefBoard(
        RefTile(t.face, t.at, t.rot, t.flag, None if t.task is None else (t.task.type, t.task.value))
        for t in state.area.placed
    )
    stored = load_golden(seed, players)["final_score"]
    assert ref.score() == {k: v for k, v in stored.items() if k not in ("s1", "s2", "s3")}


def test_golden_games_are_not_trivial() -> None:
    """The greedy player completes tasks (so more task tiles come out), and some fail."""
    scores = [load_golden(s, p)["final_score"] for s, p in GOLDEN_GAMES]
    for score in scores:
        statuses = [entry["status"] for entry in score["task_list"]]
        assert statuses.count("completed") >= 3, statuses
    assert any(entry["status"] == "failed" for score in scores for entry in score["task_list"])


def first_legal_game(seed: int, players: int = 1) -> CoopState:
    state = CoopGame(seed=seed, players=players).new_state()
    while not state.is_over:
        state.play(state.legal_placements()[0])
    return state


def test_same_seed_and_decisions_give_the_same_game() -> None:
    state = first_legal_game(11, players=3)
    again = CoopGame(seed=11, players=3).new_state()
    for placement in state.decisions:
        again.play(placement)
    assert again.is_over
    assert record_of(again) == record_of(state)
    assert [t.revealed for t in again.turns] == [t.revealed for t in state.turns]
    assert again.score() == state.score()
    replayed = replay_record(json.loads(json.dumps(record_of(state))))
    assert record_of(replayed) == record_of(state)


def test_same_seed_deals_the_same_stacks() -> None:
    one, two = CoopGame(seed=42).new_state(), CoopGame(seed=42).new_state()
    assert one.revealed == two.revealed
    assert one.view().unseen == two.view().unseen
    first, second = first_legal_game(42), first_legal_game(42)
    assert [t.revealed for t in first.turns] == [t.revealed for t in second.turns]


def test_different_seeds_deal_different_stacks() -> None:
    sequences = {
        seed: tuple((t.revealed.tile_id, t.revealed.task) for t in first_legal_game(seed).turns)
        for seed in range(1, 9)
    }
    assert len(set(sequences.values())) == len(sequences), "two seeds revealed the same tiles in order"
    # Not only the order of task tiles: the landscape stacks differ too.
    landscapes = {seed: tuple(tile for tile, task in seq if task is None) for seed, seq in sequences.items()}
    assert len(set(landscapes.values())) == len(landscapes)


def main(argv: list[str]) -> int:
    if argv != ["--regen"]:
        print(f"usage: {REGEN}", file=sys.stderr)
        return 2
    for seed, players in GOLDEN_GAMES:
        path = write_golden(seed, players)
        score = generated(seed, players)["final_score"]
        print(f"wrote {path} (total {score['total']})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
