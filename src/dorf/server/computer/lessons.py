"""``POST /api/games/ID/lessons``: the coach's three biggest lessons of a finished game, computed
away from the event loop (``dorf analyse`` on the server), in two steps of about a second each:

1. :func:`screen_lessons`: a quick look at every placement of the record's ``players`` by a cheap
   coach (:data:`SCREEN`: the planner's evaluation over a few short futures, the best few
   candidates only), which keeps the :data:`KEEP` placements that look most costly;
2. :func:`weigh_lesson`, once for each of those: the coach at its full budget weighs that one
   placement (:func:`dorf.players.coach.verdict_at`) and says, in words, what the better placement
   does.

The server runs each step as a job of its own in the think pool, behind computer moves and hints
(:mod:`dorf.server.computer.pool`), and keeps the :data:`LESSONS` that lost most (:func:`chosen`).
Weighing the whole game at the full budget took 44 to 57 s; these steps take a few seconds
(``examples/lessons_time.py`` measures them).  :func:`lessons_for` runs both in one go.

A lesson carries what the page needs to show it: the placement played, the one the coach
preferred, and how many tiles lay on the board before it (the board as it stood then is the
first ``tiles_before`` tiles of the area, which the game's description lists in placement order).

>>> record = {"format": "dorf-record/1", "mode": "coop", "tileset": "base", "seed": 4,
...           "players": ["Ann"], "decisions": []}
>>> lessons_for(record, [0], "planner:1")
{'lessons': []}
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from dorf.formats.record import apply_decision, start_of
from dorf.players.coach import Verdict, coach_player, screen_losses, verdict_at
from dorf.players.planner import PlannerPlayer

#: How many lessons a game gets.
LESSONS = 3
#: The placements the quick look keeps for the coach to weigh at its full budget.
KEEP = 5
#: The quick look's coach: its candidates, futures (no more than the coach's own: ``planner:1``
#: looks at one) and the tiles a future plays.
SCREEN = {"width": 3, "iterations": 16, "depth": 8}
#: The candidates the coach weighs a kept placement against (the planner's own: 20), besides it.
WIDTH = 8


def lesson_text(verdict: Verdict) -> str:
    """A lesson in one line: ``Turn 12: Forest 4 at 1,-2 turned 3 rather than at 0,1 turned 0: ...``."""
    tile = verdict.tile if verdict.task is None else f"{verdict.tile} with task {verdict.task}"
    better, played = verdict.preferred, verdict.played
    text = (
        f"Turn {verdict.turn}: {tile} at {better.at.q},{better.at.r} turned {better.rot}"
        f" rather than at {played.at.q},{played.at.r} turned {played.rot}"
    )
    if verdict.reasons:
        text += ": " + "; ".join(verdict.reasons)
    return f"{text} (about {verdict.loss:.1f} points)"


def screen_lessons(
    record: dict[str, Any], players: list[int], spec: str, keep: int | None = None
) -> dict[str, Any]:
    """The first step: the decision numbers of the ``keep`` placements of ``players`` (engine
    numbers) the quick look finds most costly, most costly first (none that lost nothing)."""
    coach = coach_player(spec)  # a coach that can weigh (AnalyseError otherwise)
    futures = SCREEN["iterations"]
    if isinstance(coach, PlannerPlayer) and coach.iterations is not None:  # never more than the coach's
        futures = min(futures, coach.iterations)
    look = PlannerPlayer(
        0,
        iterations=futures,
        width=SCREEN["width"],
        depth=SCREEN["depth"],
        halving=False,
        endgame=False,
    )
    losses = screen_losses(record, players, look)
    ranked = sorted((n for n, loss in losses.items() if loss > 0), key=lambda n: (-losses[n], n))
    return {"decisions": ranked[: KEEP if keep is None else keep]}


def weigh_lesson(record: dict[str, Any], decision: int, spec: str) -> dict[str, Any]:
    """The second step: the coach's verdict on placement ``decision`` of the record, as a lesson
    (``{"lesson": None}`` if it is not a placement)."""
    state = start_of(record)
    decisions = record["decisions"]
    if not 1 <= decision <= len(decisions):
        return {"lesson": None}
    for number, raw in enumerate(decisions[: decision - 1], 1):
        apply_decision(state, number, raw)
    verdict = verdict_at(state, decision, decisions[decision - 1], spec, width=WIDTH)
    if verdict is None:
        return {"lesson": None}
    lesson = verdict.as_json()
    lesson["tiles_before"] = len(state.areas[state.area_index(verdict.player)].placed)
    lesson["text"] = lesson_text(verdict)
    return {"lesson": lesson}


def chosen(weighed: list[dict[str, Any] | None]) -> list[dict[str, Any]]:
    """The lessons to show of the placements weighed: the :data:`LESSONS` that lost most, biggest
    loss first (then in the game's order), none that lost nothing."""
    found = [lesson for lesson in weighed if lesson is not None and lesson["loss"] > 0]
    found.sort(key=lambda lesson: (-lesson["loss"], lesson["decision"]))
    return found[:LESSONS]


#: How a step is run: ``run(queue, kind, args, seconds)``, as
#: :meth:`dorf.server.computer.seats.ComputerSeats.work` runs it in the think pool.
Run = Callable[[str, str, dict[str, Any], float], Awaitable[dict[str, Any]]]


async def lessons_in(
    run: Run, queue: str, record: dict[str, Any], players: list[int], spec: str, seconds: float
) -> list[dict[str, Any]]:
    """The lessons, each step a job of ``queue`` run by ``run`` (at most ``seconds`` each): the
    quick look, then the placements it kept, weighed side by side (as workers come free)."""
    screened = await run(
        queue, "lessons-screen", {"record": record, "players": players, "spec": spec}, seconds
    )
    weighed = await asyncio.gather(
        *(
            run(queue, "lessons-weigh", {"record": record, "decision": number, "spec": spec}, seconds)
            for number in screened["decisions"]
        )
    )
    return chosen([answer["lesson"] for answer in weighed])


def lessons_for(record: dict[str, Any], players: list[int], spec: str) -> dict[str, Any]:
    """The biggest lessons of ``players``' placements in a finished game's record, both steps in
    one go."""
    numbers = screen_lessons(record, players, spec)["decisions"]
    return {"lessons": chosen([weigh_lesson(record, n, spec)["lesson"] for n in numbers])}


__all__ = [
    "KEEP",
    "LESSONS",
    "SCREEN",
    "WIDTH",
    "Run",
    "chosen",
    "lesson_text",
    "lessons_for",
    "lessons_in",
    "screen_lessons",
    "weigh_lesson",
]
