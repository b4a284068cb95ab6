"""``dorf analyse``: every placement of a record weighed against the search player, biggest loss first."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dorf.cli import main
from dorf.formats.record import record_of, save_record
from dorf.games.coop import CoopGame
from dorf.games.duel import DuelGame
from dorf.games.headtohead import DRAFT, HeadToHeadGame
from dorf.players import RandomPlayer
from dorf.players.coach import analyse_record, report_lines, weigh
from dorf.players.search import SearchPlayer
from dorf.rules.area import Placement
from repo import DOCS

SPEC = "search:3"
KEYS = [
    "decision",
    "turn",
    "player",
    "tile",
    "task",
    "played",
    "preferred",
    "played_value",
    "preferred_value",
    "loss",
    "candidates",
    "reasons",
]


def _coop_record(turns: int = 10, seed: int = 5) -> dict[str, Any]:
    """The first ``turns`` placements of a solo game by a random player (the kind that errs)."""
    state = CoopGame(seed=seed).new_state()
    player = RandomPlayer(seed)
    for _ in range(turns):
        decision = player.choose(state.view())
        assert isinstance(decision, Placement)
        state.play(decision)
    return record_of(state)


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    state = CoopGame(seed=5).new_state()
    player = RandomPlayer(5)
    for _ in range(10):
        decision = player.choose(state.view())
        assert isinstance(decision, Placement)
        state.play(decision)
    path = tmp_path / "game.json"
    save_record(state, path)
    return path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``dorf ARGS...`` in this process: exit code, stdout, stderr."""
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_every_placement_is_weighed_and_the_biggest_mistakes_come_first() -> None:
    record = _coop_record()
    verdicts = analyse_record(record, SPEC)
    assert sorted(v.number for v in verdicts) == list(range(1, 11))
    assert [(v.loss, -v.number) for v in verdicts] == sorted(
        ((v.loss, -v.number) for v in verdicts), reverse=True
    )
    assert verdicts[0].loss > 0  # a random player makes mistakes
    by_number = {v.number: v for v in verdicts}
    for number, raw in enumerate(record["decisions"], 1):
        verdict = by_number[number]
        assert [verdict.played.at.q, verdict.played.at.r, verdict.played.rot] == [*raw["at"], raw["rot"]]
        assert (verdict.turn, verdict.tile, verdict.player) == (raw["turn"], raw["tile"], 0)
        assert verdict.loss >= 0
        assert verdict.loss == 0 or verdict.preferred != verdict.played
    assert analyse_record(record, SPEC) == verdicts  # seeded: the same report twice


def test_weigh_agrees_with_the_search_player_when_the_move_played_is_its_own() -> None:
    state = CoopGame(seed=2).new_state()
    for _ in range(6):
        state.play(state.legal_placements()[len(state.legal_placements()) // 2])
    view = state.view()
    analysed = SearchPlayer(4, iterations=5).analyse(view)
    best = analysed[0][1]
    weighed, index = weigh(SearchPlayer(4, iterations=5), view, best)
    assert weighed == analysed and index == 0


def test_a_move_the_search_would_not_consider_is_weighed_against_the_same_futures() -> None:
    state = CoopGame(seed=2).new_state()
    for _ in range(6):
        state.play(state.legal_placements()[0])
    view = state.view()
    player = SearchPlayer(4, iterations=5)
    candidates = {p for _, p in player.analyse(view)}
    outsider = next(p for p in state.legal_placements() if p not in candidates)
    weighed, index = weigh(SearchPlayer(4, iterations=5), view, outsider)
    assert len(weighed) == player.width + 1 and weighed[index][1] == outsider
    assert [value for value, _ in weighed] == sorted((value for value, _ in weighed), reverse=True)


def test_two_player_records_weigh_each_players_placements_from_their_own_view() -> None:
    duel = DuelGame(seed=4).new_state()
    player = RandomPlayer(1)
    for _ in range(8):
        p = duel.to_move()[0]
        decision = player.choose(duel.view(p))
        assert isinstance(decision, Placement)
        duel.play(decision, p)
    verdicts = analyse_record(record_of(duel), "search:2")
    assert len(verdicts) == 8 and {v.player for v in verdicts} == {0, 1}

    game = HeadToHeadGame(seed=4).new_state()
    placed = 0
    while placed < 6:
        p = game.to_move()[0]
        choice = player.choose(game.view(p))
        placed += game.phase != DRAFT
        game.apply(choice, p)
    verdicts = analyse_record(record_of(game), "search:2")
    assert len(verdicts) == 6 and {v.player for v in verdicts} == {0, 1}  # the picks are not weighed


def test_analyse_prints_a_table_biggest_loss_first(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "analyse", str(record_file), "--player", SPEC, "--top", "4")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"coop game, seed 5, 1 player: 10 placements weighed by {SPEC}"
    assert lines[1].startswith("expected loss ")
    assert lines[2].split() == ["turn", "player", "tile", "played", "preferred", "loss", "why"]
    rows = lines[3:7]
    end = lines[2].index("loss") + len("loss")
    losses = [float(row[:end].split()[-1]) for row in rows]
    assert losses == sorted(losses, reverse=True) and losses[0] > 0
    assert lines[7] == "... 6 more (--top)"
    assert len(lines) == 8


def test_analyse_json_is_one_object_per_placement(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "analyse", str(record_file), "--player", SPEC, "--json")
    assert code == 0
    objects = [json.loads(line) for line in out.splitlines()]
    assert len(objects) == 10
    assert all(list(o) == KEYS for o in objects)
    assert [o["loss"] for o in objects] == sorted((o["loss"] for o in objects), reverse=True)
    first = objects[0]
    assert first["loss"] == pytest.approx(first["preferred_value"] - first["played_value"], abs=2e-3)
    assert set(first["played"]) == {"at", "rot"}


def test_report_without_placements_has_just_the_header() -> None:
    record = record_of(CoopGame(seed=1).new_state())
    lines = report_lines(record, analyse_record(record, SPEC), SPEC)
    assert lines == [
        f"coop game, seed 1, 1 player: 0 placements weighed by {SPEC}",
        "expected loss 0.0 in all, 0.00 a placement; 0 of 0 as the coach would play",
    ]


def test_bad_records_and_players_are_one_line_and_exit_2(
    tmp_path: Path, record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    illegal = tmp_path / "illegal.json"
    record = json.loads(record_file.read_text())
    record["decisions"][3]["at"] = [40, 40]
    illegal.write_text(json.dumps(record))
    cases = [
        ([str(tmp_path / "missing.json")], "cannot read"),
        ([str(broken)], "is not valid JSON"),
        ([str(illegal), "--player", SPEC], "decision 4"),  # a quick coach weighs decisions 1 to 3
        ([str(record_file), "--player", "greedy"], "the coach is a look-ahead player"),
        ([str(record_file), "--player", "search:0"], "not a positive number"),
        ([str(record_file), "--top", "0"], "must be at least 1"),
    ]
    for args, message in cases:
        code, out, err = _run(capsys, "analyse", *args)
        assert code == 2, args
        assert out == ""
        assert err.count("\n") == 1 and message in err and err.startswith("dorf analyse: "), err


def test_the_documented_json_object_has_the_documented_keys() -> None:
    text = (DOCS / "simulate.md").read_text(encoding="utf-8")
    blocks = [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", text, re.S)]
    assert list(blocks[-1]) == KEYS
