#!/usr/bin/env python3
"""A greedy bot for dorf's bot protocol (docs/bots.md): one placement ahead, by its edges.

Plain Python, the standard library only.  Each legal placement is scored by how well
the tile's edges fit its neighbours (the same terrain on both sides grows an area:
forests, fields and villages for tasks and flags, rivers and tracks for the longest),
how many neighbours it has, and whether it completes an open task's size; the best
one is played (ties: the first in dorf's order).  In the Head to Head draft it takes
the tile with the most area edges, flags and tasks counting extra.

    dorf simulate --mode duel --player "cmd:python examples/bots/greedy_bot.py" --opponent random
"""

import json
import sys

#: (dq, dr) of the neighbour in each direction, 0 (north) to 5, clockwise.
DIRECTIONS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
#: What a matched edge of each terrain is worth.
WORTH = {"F": 3, "G": 3, "V": 3, "R": 2, "T": 2, "L": 2, "P": 2, "X": 2, "M": 1}
LETTERS = {"forest": "F", "grain": "G", "village": "V", "river": "R", "track": "T"}


def rotate(face, k):
    """The edges by direction once the tile is turned k steps clockwise."""
    return face[6 - k :] + face[: 6 - k] if k else face


def task_bonus(area, at, edges, cells):
    """Points for growing an open task's area next to it towards its size."""
    bonus = 0.0
    for task in area["tasks"]:
        if task["status"] != "open" or task.get("type") not in LETTERS:
            continue
        letter, (tq, tr) = LETTERS[task["type"]], task["at"]
        for d, (dq, dr) in enumerate(DIRECTIONS):
            near = cells.get((at[0] + dq, at[1] + dr))
            if (at[0] + dq, at[1] + dr) == (tq, tr) and edges[d] == letter == near[(d + 3) % 6]:
                size = max(task.get("sizes") or [0]) + edges.count(letter)
                bonus += 6 if size == task["value"] else (2 if size < task["value"] else -2)
    return bonus


def placement_score(area, cells, move, tile):
    edges = rotate(tile["face"], move["rot"])
    q, r = move["at"]
    score, neighbours, fits = 0.0, 0, 0
    for d, (dq, dr) in enumerate(DIRECTIONS):
        other = cells.get((q + dq, r + dr))
        if other is None:
            continue
        neighbours += 1
        if edges[d] == other[(d + 3) % 6]:
            fits += 1
            score += WORTH.get(edges[d], 1)
    if neighbours and fits == neighbours:
        score += 2 * neighbours  # a perfect fit
    return score + 0.5 * neighbours + task_bonus(area, (q, r), edges, cells)


def draft_score(tile):
    area_edges = sum(1 for letter in tile["face"] if letter != "M")
    return area_edges + (3 if tile.get("flag") else 0) + (tile.get("value") or 0) / 2


def decide(message):
    game, seat, moves = message["state"]["game"], message["seat"], message["moves"]
    if "pick" in moves[0]:
        pool = {tile["id"]: tile for tile in game["pool"]}
        return max(moves, key=lambda move: draft_score(pool[move["pick"]]))
    index = seat if game["mode"] != "coop" else 0
    area = game["areas"][index]
    tile = game["revealed"][index if game["mode"] == "head-to-head" else 0]
    cells = {tuple(placed["at"]): placed["edges"] for placed in area["tiles"]}
    scores = [placement_score(area, cells, move, tile) for move in moves]
    return moves[scores.index(max(scores))]


def main():
    for line in iter(sys.stdin.readline, ""):
        message = json.loads(line)
        if message["type"] == "decide":
            print(json.dumps(decide(message)), flush=True)
        elif message["type"] == "end":
            return


if __name__ == "__main__":
    main()
