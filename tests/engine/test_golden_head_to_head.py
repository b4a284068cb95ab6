"""Golden seeded Head to Head games: whole games replayed and compared on every run.

Each golden game is a seed and a deterministic chooser driven by
``random.Random(seed)``: a pick is an index into the sorted open pool, the
player to place next is drawn from ``to_move()``, and a placement is either an
index into the *sorted* legal placements ("random") or the legal placement with
the highest immediate total, ties to the smallest ``(q, r, rot)`` ("greedy").
The full record (``record.record_of``), both final score pads and the winner
are stored under ``tests/golden/head-to-head-*.json``; the test plays the game
again and must get exactly the same file.  A change in the rules engine, the
draft, the deal, the reveal order or the tile data shows up here as a diff.

The games use the real tile set (``head-to-head``, the only one a record can
name).  Its faces are designed and may be rebalanced: the file keeps a digest of
the tile set, so that such a change is reported as what it is.  If a change is
intended, regenerate the files and review the diff::

    .venv/bin/python tests/test_golden_head_to_head.py --regen
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from test_golden import diff_message as golden_diff
from test_golden import to_text

from dorf.formats.record import record_of, replay_record
from dorf.games.headtohead import DRAFT, HeadToHeadGame, HeadToHeadState
from dorf.rules.area import Placement
from dorf.rules.scoring import score_head_to_head
from dorf.rules.tiles import load_tileset

GOLDEN_DIR = Path(__file__).parent / "golden"
#: (seed, chooser) of each golden game.
GOLDEN_GAMES = ((1, "random"), (2, "random"), (3, "greedy"), (4, "greedy"))
CHOOSERS = {
    "random": "random.Random(seed): picks an index into the sorted pool, the placing player from "
    "to_move(), a placement an index into the sorted legal placements",
    "greedy": "random.Random(seed): picks an index into the sorted pool, the placing player from "
    "to_move(); the placement with the highest immediate total, then the smallest (q, r, rot)",
}
REGEN = "python tests/test_golden_head_to_head.py --regen"
TILESET = "head-to-head"


def golden_path(seed: int, chooser: str) -> Path:
    return GOLDEN_DIR / f"head-to-head-seed{seed}-{chooser}.json"


def tileset_digest() -> str:
    """A fingerprint of the tile set the golden games were played with."""
    lines = "\n".join(t.text() + f" kind={t.kind}" for t in load_tileset(TILESET).tiles)
    return hashlib.sha256(lines.encode()).hexdigest()[:16]


# --- the deterministic chooser ------------------------------------------------------------


def greedy_placement(state: HeadToHeadState, player: int) -> Placement:
    revealed = state.revealed(player)
    assert revealed is not None
    area = state.area(player)
    best: tuple[tuple[int, int, int, int], Placement] | None = None
    for placement in state.legal_placements(player):
        area.play(revealed.tile.face, placement, task=revealed.task)
        key = (-score_head_to_head(area).total, placement.at.q, placement.at.r, placement.rot)
        area.pop()
        if best is None or key < best[0]:
            best = (key, placement)
    assert best is not None, "the engine revealed a tile with no legal placement"
    return best[1]


def play_seeded(seed: int, chooser: str) -> HeadToHeadState:
    state = HeadToHeadGame(seed=seed).new_state()
    rng = random.Random(seed)
    while state.phase == DRAFT:
        pool = sorted(state.pool)
        state.pick(pool[rng.randrange(len(pool))])
    while not state.is_over:
        movers = state.to_move()
        player = movers[rng.randrange(len(movers))]
        if chooser == "greedy":
            placement = greedy_placement(state, player)
        else:
            legal = sorted(state.legal_placements(player))
            placement = legal[rng.randrange(len(legal))]
        state.play(placement, player)
    return state


def final_score(state: HeadToHeadState) -> dict[str, Any]:
    pads = state.scores()
    return {
        "pads": [pad.as_json() for pad in pads],
        "tie_breakers": [list(pad.tie_breakers()) for pad in pads],
        "winner": state.winner(),
    }


def golden_document(state: HeadToHeadState, chooser: str) -> dict[str, Any]:
    doc = {
        "about": f"golden Head to Head game; regenerate with: {REGEN}",
        "chooser": CHOOSERS[chooser],
        "tileset_digest": tileset_digest(),
        "record": record_of(state),
        "final_score": final_score(state),
    }
    normal: dict[str, Any] = json.loads(json.dumps(doc))  # tuples become lists, as in the file
    return normal


@cache
def generated(seed: int, chooser: str) -> dict[str, Any]:
    return golden_document(play_seeded(seed, chooser), chooser)


def write_golden(seed: int, chooser: str) -> Path:
    path = golden_path(seed, chooser)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_text(generated(seed, chooser)) + "\n", encoding="utf-8")
    return path


def load_golden(seed: int, chooser: str) -> dict[str, Any]:
    path = golden_path(seed, chooser)
    if not path.exists():
        pytest.fail(f"{path} is missing; create it with: {REGEN}")
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if doc["tileset_digest"] != tileset_digest():
        pytest.fail(
            f"{path.name}: the {TILESET} tile set changed since this golden game was stored; "
            f"if that is intended, run `{REGEN}` and review the diff"
        )
    return doc


def diff_message(name: str, stored: dict[str, Any], fresh: dict[str, Any]) -> str:
    return golden_diff(name, stored, fresh, regen=REGEN)


# --- the tests ----------------------------------------------------------------------------

GAME_IDS = [f"seed{s}-{c}" for s, c in GOLDEN_GAMES]


@pytest.mark.parametrize(("seed", "chooser"), GOLDEN_GAMES, ids=GAME_IDS)
def test_golden_game_is_played_again_exactly(seed: int, chooser: str) -> None:
    stored = load_golden(seed, chooser)
    fresh = generated(seed, chooser)
    assert stored == fresh, diff_message(golden_path(seed, chooser).name, stored, fresh)


@pytest.mark.parametrize(("seed", "chooser"), GOLDEN_GAMES, ids=GAME_IDS)
def test_golden_record_replays_to_the_same_score(seed: int, chooser: str) -> None:
    stored = load_golden(seed, chooser)
    record = stored["record"]
    assert record["mode"] == "head-to-head" and record["seed"] == seed and record["finished"]
    state = replay_record(record)
    assert isinstance(state, HeadToHeadState) and state.is_over
    assert json.loads(json.dumps(final_score(state))) == stored["final_score"]
    assert record["score"] == stored["final_score"]["pads"]
    assert record["winner"] == stored["final_score"]["winner"]
    assert json.loads(json.dumps(record_of(state))) == record


@pytest.mark.parametrize(("seed", "chooser"), GOLDEN_GAMES, ids=GAME_IDS)
def test_golden_game_scores_the_same_from_scratch(seed: int, chooser: str) -> None:
    """The reference recomputes both stored score pads from the bare placed tiles."""
    from reference import RefBoard, RefTile

    stored = load_golden(seed, chooser)
    state = replay_record(stored["record"])
    assert isinstance(state, HeadToHeadState)
    for p in (0, 1):
        ref = RefBoard(
            RefTile(t.face, t.at, t.rot, None, None if t.task is None else (t.task.type, t.task.value))
            for t in state.area(p).placed
        )
        assert ref.score("head-to-head") == stored["final_score"]["pads"][p]


def test_golden_games_are_not_trivial() -> None:
    """Between them the golden games complete and fail tasks, form mountains and lakes,
    score flags, and each player lays every landscape tile they own."""
    docs = [load_golden(s, c) for s, c in GOLDEN_GAMES]
    pads = [pad for doc in docs for pad in doc["final_score"]["pads"]]
    statuses = [entry["status"] for pad in pads for entry in pad["task_list"]]
    assert "completed" in statuses and "failed" in statuses
    assert sum(pad["mountains_lakes"] for pad in pads) > 0
    assert any(pad["flags"] for pad in pads)
    for doc in docs:
        picks = [d for d in doc["record"]["decisions"] if "pick" in d]
        assert len(picks) == 58
        assert [d["player"] for d in picks] == [n % 2 for n in range(58)]


def main(argv: list[str]) -> int:
    if argv != ["--regen"]:
        print(f"usage: {REGEN}", file=sys.stderr)
        return 2
    for seed, chooser in GOLDEN_GAMES:
        path = write_golden(seed, chooser)
        score = generated(seed, chooser)["final_score"]
        totals = [pad["total"] for pad in score["pads"]]
        print(f"wrote {path} (totals {totals[0]} and {totals[1]}, winner {score['winner']})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
