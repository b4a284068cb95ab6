"""The protocol ``dorf-bot/1``: what a program is told, and how its answers are read.

One JSON object a line (``docs/bots.md``): ``start`` when the program starts (the mode, its
seat, a seed, the clock), ``decide`` when its seat must decide (the seat's view, exactly what
the page shows that seat: :meth:`GameSession.document
<dorf.server.round.session.GameSession.document>`, ``{"you", "game"}``, and the legal moves), ``end``
with the final view.  The program answers each ``decide`` with one line, one of the moves:
``{"at": [q, r], "rot": k}`` or ``{"pick": tile}``.  An answer that is not one of them is a
:class:`Lost` decision, with the reason in words.

>>> moves_of({"you": {"seats": [0], "legal": {"0": [[0, 1, [0, 3]], [1, 0, [2]]]}},
...           "game": {"phase": "playing", "waiting": [0]}}, 0)
[{'at': [0, 1], 'rot': 0}, {'at': [0, 1], 'rot': 3}, {'at': [1, 0], 'rot': 2}]
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from dorf.arguments import bounded
from dorf.games.headtohead import Pick
from dorf.players import Decision
from dorf.rules.area import Placement
from dorf.rules.hexgrid import Hex

Json = dict[str, Any]

#: The protocol's name, in every start message.
PROTOCOL = "dorf-bot/1"
#: The clock of one decision, in seconds, unless ``--bot-seconds`` says otherwise.
DEFAULT_SECONDS = 5.0
#: The longest answer line read, in bytes (an answer is a few dozen).
MAX_ANSWER = 4096
#: ``--bot-seconds``: from a hundredth of a second to an hour.
bot_seconds = bounded(0.01, 3600, cast=float, what="seconds")


class Lost(Exception):
    """A decision lost: why, in words, and whether the program is stopped for it."""

    def __init__(self, reason: str, stop: bool = False, silent: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stop = stop
        #: Said once, not at every decision.
        self.silent = silent


def one_way_seed(seed: int, seat: int) -> int:
    """A program's seed derived from a game's: nothing about the game's seed (so the order of
    its tiles) can be learnt from it.

    >>> one_way_seed(7, 1) == one_way_seed(7, 1) != one_way_seed(7, 0)
    True
    """
    digest = hashlib.blake2b(f"{seed}/{seat}".encode(), digest_size=4, person=b"dorf-bot").digest()
    return int.from_bytes(digest)


def moves_of(document: Json, seat: int) -> list[Json]:
    """The legal moves of ``seat`` in the page's description ``{"you", "game"}``, in the
    engine's order (that of ``view.legal_decisions()``): picks from the open pool in the Head
    to Head draft, else placements, by cell (row, then column), then rotation."""
    game = document["game"]
    if seat not in game.get("waiting", ()):
        return []
    if game.get("phase") == "draft":
        return [{"pick": tile["id"]} for tile in game.get("pool", ())]
    legal = document["you"]["legal"].get(str(seat), ())
    return [{"at": [q, r], "rot": rot} for q, r, rots in legal for rot in rots]


def canon_of(document: Json, seat: int) -> list[int] | None:
    """The rotations the same as 0 to 5 of the seat's revealed tile (``canon``), if shown."""
    game = document["game"]
    revealed = game.get("revealed") or []
    index = seat if len(revealed) > 1 else 0  # a tile per seat (Head to Head), or one on the table
    tile = revealed[index] if index < len(revealed) else None
    return tile.get("canon") if isinstance(tile, dict) else None


def answers_another(line: bytes, number: int) -> bool:
    """Whether an answer says it is for another decision than ``number`` (its optional
    ``"decision"`` field): a line written late for an earlier one, dropped.

    >>> answers_another(b'{"at": [0, 1], "rot": 3, "decision": 2}', 3), answers_another(b'{"pick": 4}', 3)
    (True, False)
    """
    try:
        answer = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(answer, dict) and "decision" in answer and answer["decision"] != number


def read_answer(line: bytes, moves: list[Json], canon: list[int] | None = None) -> Json:
    """The legal move an answer line names (a rotation the same as a listed one counts as it);
    :class:`Lost` saying what is wrong otherwise.

    >>> read_answer(b'{"at": [0, 1], "rot": 3}', [{"at": [0, 1], "rot": 3}])
    {'at': [0, 1], 'rot': 3}
    >>> read_answer(b'{"pick": 9}', [{"pick": 4}])
    Traceback (most recent call last):
    ...
    dorf.bots.protocol.Lost: it answered {"pick": 9}, which is not one of the legal moves
    """
    shown = line[:60].decode("utf-8", "replace") + ("..." if len(line) > 60 else "")
    try:
        answer = json.loads(line)
    except (ValueError, RecursionError):
        raise Lost(f"it answered {shown!r}, which is not JSON") from None
    if not isinstance(answer, dict):
        raise Lost(f"it answered {shown}, which is not a JSON object")
    if "pick" in answer:
        if type(answer["pick"]) is not int:
            raise Lost(f"it answered {shown}, which is no pick: a tile's id is an integer")
        key: tuple[Any, ...] = ("pick", answer["pick"])
    else:
        at, rot = answer.get("at"), answer.get("rot")
        if (
            not (isinstance(at, list) and len(at) == 2 and all(type(x) is int for x in at))
            or type(rot) is not int
        ):
            raise Lost(
                f'it answered {shown}, which is no move: {{"at": [q, r], "rot": k}} or {{"pick": tile}}'
            )
        if canon is not None and 0 <= rot < len(canon):
            rot = canon[rot]
        key = ("at", at[0], at[1], rot)
    for move in moves:
        if key == (("pick", move["pick"]) if "pick" in move else ("at", *move["at"], move["rot"])):
            return move
    raise Lost(f"it answered {shown}, which is not one of the legal moves")


def line_of(message: Json) -> bytes:
    """A message as one line of compact JSON (UTF-8)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def decision_of(move: Json) -> Decision:
    """A move of the protocol as the engine's decision."""
    if "pick" in move:
        return Pick(move["pick"])
    return Placement(Hex(*move["at"]), move["rot"])
