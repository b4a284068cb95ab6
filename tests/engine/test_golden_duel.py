"""Golden seeded Duels: whole games replayed and compared on every run.

Each golden Duel is a seed and a deterministic chooser: a ``random.Random(seed)``
picks which waiting player places next, then an index into that player's legal
placements sorted by ``(q, r, rot)``.  The full record (``record.record_of``),
both final score pads and the winner are stored under ``tests/golden/``; the test
plays the game again and must get exactly the same file.  A change in the rules
engine, the Duel tile set or the reveal order shows up here as a diff.

If a change is intended, regenerate the files and review the diff::

    .venv/bin/python tests/test_golden_duel.py --regen
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from test_golden import diff_message as golden_diff
from test_golden import to_text

from dorf.formats.record import record_of, replay_record
from dorf.games.duel import DuelGame, DuelState
from dorf.rules.area import Placement

GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN_SEEDS = (1, 2, 3)
PLAYER = (
    "seeded: random.Random(seed) picks the waiting player; three times in four it keeps only the "
    "legal placements next to an open task of that player (if any), then picks an index into "
    "them sorted by (q, r, rot)"
)
REGEN = "python tests/test_golden_duel.py --regen"


def golden_path(seed: int) -> Path:
    return GOLDEN_DIR / f"duel-seed{seed}.json"


def choose(state: DuelState, player: int, rng: random.Random) -> Placement:
    """The golden chooser's placement; sorting keeps it independent of the engine's listing order."""
    legal = sorted(state.legal_placements(player), key=lambda p: (p.at.q, p.at.r, p.rot))
    area = state.areas[player]
    near = {t.at.neighbour(d) for t in area.placed if t.task is not None and t.task.is_open for d in range(6)}
    targeted = [p for p in legal if p.at in near]
    if targeted and rng.random() < 0.75:
        legal = targeted
    return legal[rng.randrange(len(legal))]


def play_seeded(seed: int) -> DuelState:
    rng = random.Random(seed)
    state = DuelGame(seed=seed).new_state()
    while not state.is_over:
        waiting = state.to_move()
        player = waiting[rng.randrange(len(waiting))]
        state.play(choose(state, player, rng), player)
    return state


def final_scores(state: DuelState) -> list[dict[str, Any]]:
    return [pad.as_json() for pad in state.scores()]


def golden_document(state: DuelState) -> dict[str, Any]:
    doc = {
        "about": f"golden Duel; regenerate with: {REGEN}",
        "player": PLAYER,
        "record": record_of(state),
        "final_scores": final_scores(state),
        "winner": state.winner(),
    }
    normal: dict[str, Any] = json.loads(json.dumps(doc))  # tuples become lists, as in the file
    return normal


@cache
def generated(seed: int) -> dict[str, Any]:
    return golden_document(play_seeded(seed))


def write_golden(seed: int) -> Path:
    path = golden_path(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_text(generated(seed)) + "\n", encoding="utf-8")
    return path


def load_golden(seed: int) -> dict[str, Any]:
    path = golden_path(seed)
    if not path.exists():
        pytest.fail(f"{path} is missing; create it with: {REGEN}")
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def diff_message(name: str, stored: dict[str, Any], fresh: dict[str, Any]) -> str:
    return golden_diff(name, stored, fresh, regen=REGEN)


# --- the tests ----------------------------------------------------------------------------

IDS = [f"duel-seed{s}" for s in GOLDEN_SEEDS]


@pytest.mark.parametrize("seed", GOLDEN_SEEDS, ids=IDS)
def test_golden_duel_is_played_again_exactly(seed: int) -> None:
    stored = load_golden(seed)
    fresh = generated(seed)
    assert stored == fresh, diff_message(golden_path(seed).name, stored, fresh)


@pytest.mark.parametrize("seed", GOLDEN_SEEDS, ids=IDS)
def test_golden_duel_record_replays_to_the_same_scores(seed: int) -> None:
    stored = load_golden(seed)
    record = stored["record"]
    assert record["mode"] == "duel" and record["seed"] == seed and record["finished"]
    state = replay_record(record)
    assert isinstance(state, DuelState) and state.is_over
    assert json.loads(json.dumps(final_scores(state))) == stored["final_scores"] == record["score"]
    assert state.winner() == stored["winner"] == record["winner"]
    assert json.loads(json.dumps(record_of(state))) == record


@pytest.mark.parametrize("seed", GOLDEN_SEEDS, ids=IDS)
def test_golden_duel_scores_the_same_from_scratch(seed: int) -> None:
    """The reference recomputes both stored pads from the bare placed tiles."""
    from test_property import ref_task

    from reference import RefBoard, RefTile

    stored = load_golden(seed)
    state = replay_record(stored["record"])
    assert isinstance(state, DuelState)
    for area, pad in zip(state.areas, stored["final_scores"], strict=True):
        ref = RefBoard(
            RefTile(t.face, t.at, t.rot, t.flag, None if t.task is None else ref_task(t.task.spec))
            for t in area.placed
        )
        assert ref.score("duel") == pad
    totals = [pad["total"] for pad in stored["final_scores"]]
    expected = None if totals[0] == totals[1] else totals.index(max(totals))
    assert stored["winner"] == expected


def test_golden_duels_are_not_trivial() -> None:
    """Whole games: 39 landscape tiles each, players in both orders, tasks completed and left open."""
    docs = [load_golden(seed) for seed in GOLDEN_SEEDS]
    statuses = Counter(
        entry["status"] for doc in docs for pad in doc["final_scores"] for entry in pad["task_list"]
    )
    assert statuses["completed"] >= 3 and statuses["failed"] >= 3 and statuses["open"] >= 3
    for doc in docs:
        decisions = doc["record"]["decisions"]
        landscapes = [d for d in decisions if "task" not in d]
        assert [sum(1 for d in landscapes if d["player"] == p) for p in (0, 1)] == [39, 39]
        first_by_turn: dict[int, int] = {}
        for d in decisions:
            first_by_turn.setdefault(d["turn"], d["player"])
        assert set(first_by_turn.values()) == {0, 1}  # either player places first, turn by turn
    types = {entry["type"] for doc in docs for pad in doc["final_scores"] for entry in pad["task_list"]}
    assert {"connection", "double"} <= types


def main(argv: list[str]) -> int:
    if argv != ["--regen"]:
        print(f"usage: {REGEN}", file=sys.stderr)
        return 2
    for seed in GOLDEN_SEEDS:
        path = write_golden(seed)
        totals = [pad["total"] for pad in generated(seed)["final_scores"]]
        print(f"wrote {path} (totals {totals[0]} and {totals[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
