#!/usr/bin/env python3
"""A random bot for dorf's bot protocol (docs/bots.md): any legal move, uniformly.

Plain Python, the standard library only.  Run it as a player:

    dorf simulate --mode duel --player "cmd:python examples/bots/random_bot.py" --opponent greedy

It draws with random.Random(seed) from the start message, one randrange over the
moves in the order dorf lists them, as dorf's own ``random`` player does: with the
same seeds (dorf simulate's), it plays the very same games.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random(0)
    while True:
        line = sys.stdin.readline()
        if not line:  # dorf closed our input: the game is over
            return
        message = json.loads(line)
        if message["type"] == "start":
            rng = random.Random(message["seed"])
        elif message["type"] == "decide":
            moves = message["moves"]
            print(json.dumps(moves[rng.randrange(len(moves))]), flush=True)
        elif message["type"] == "end":
            return


if __name__ == "__main__":
    main()
