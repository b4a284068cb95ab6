"""Players' names: a readable random one for everyone who arrives, and which names may be taken.

A name is 2 to 20 of the letters ``A-Z a-z``, the digits, ``-`` and ``_`` (ASCII only), unique by
its skeleton (:func:`name_key`: ignoring case, and with the ASCII look-alikes of Unicode's
confusables folded, so ``AIice`` is ``Alice``, ``Adrnin`` is ``Admin`` and ``C0mputer`` is
``Computer``: two names that look alike are one name), and not one of the names that would pass
for the site or its computer players (:data:`RESERVED`, and any name beginning with ``admin`` or
``computer``, compared by their skeletons too).  A computer level that
plays rated games is named ``Computer (expert)``: with its space and brackets no player can take
it.

>>> check_name("QuietHeron"), name_key("QuietHeron")
('QuietHeron', 'quletheron')
>>> name_key("AIice") == name_key("Alice") == name_key("a1ice"), name_key("Adrnin") == name_key("admin")
(True, True)
>>> codes = []
>>> for bad in ("x", "a" * 21, "no spaces", "Admin", "computer2", "Expert", "\\ud800", "C0mputer", "Adrnin"):
...     try:
...         check_name(bad)
...     except NameRefused as exc:
...         codes.append(exc.code)
>>> print(*codes)
bad-name bad-name bad-name refused-name refused-name refused-name bad-name refused-name refused-name
>>> import random
>>> name = random_name(random.Random(3))
>>> check_name(name) == name
True
"""

from __future__ import annotations

import random
import re
import secrets
from typing import Any

from dorf.players.levels import levels
from dorf.server.storage.rows import CONFUSABLES as CONFUSABLES
from dorf.server.storage.rows import name_key as name_key
from dorf.server.storage.rows import name_key_sql as name_key_sql

NAME = re.compile(r"[A-Za-z0-9_-]{2,20}")
#: Names nobody may take (compared ignoring case), besides the computer levels' names.
RESERVED = (
    "admin",
    "administrator",
    "anonymous",
    "bot",
    "computer",
    "dorf",
    "dorfromantik",
    "guest",
    "lobby",
    "me",
    "moderator",
    "nobody",
    "player",
    "root",
    "server",
    "system",
)
#: Beginnings of names nobody may take.
REFUSED_PREFIXES = ("admin", "computer")

ADJECTIVES = (
    "Amber", "Autumn", "Bold", "Brave", "Bright", "Calm", "Clever", "Copper", "Cozy", "Dusky",
    "Eager", "Early", "Fair", "Fern", "Gentle", "Golden", "Green", "Happy", "Hazel", "Honest",
    "Jolly", "Keen", "Kind", "Lively", "Lucky", "Merry", "Misty", "Mossy", "Nimble", "Patient",
    "Plucky", "Proud", "Quick", "Quiet", "Rosy", "Rustic", "Silver", "Sleepy", "Sly", "Snowy",
    "Sunny", "Swift", "Tidy", "Wandering", "Warm", "Wild", "Wise", "Witty",
)  # fmt: skip
NOUNS = (
    "Badger", "Barn", "Beaver", "Birch", "Brook", "Clover", "Crane", "Deer", "Fox", "Glade",
    "Hare", "Harvest", "Hawk", "Heron", "Hill", "Lake", "Lark", "Meadow", "Mill", "Orchard",
    "Otter", "Owl", "Pine", "Pond", "Raven", "River", "Robin", "Sheep", "Spruce", "Stork",
    "Thistle", "Valley", "Village", "Willow", "Wren", "Oak", "Field", "Forest", "Bridge", "Rail",
)  # fmt: skip


class NameRefused(ValueError):
    """A name that may not be taken: ``code`` (``bad-name``: not made of the allowed characters,
    ``refused-name``: one kept back) and one line saying why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def refused_names() -> frozenset[str]:
    """The keys of the names kept back: :data:`RESERVED` and the computer levels' names."""
    kept = {name_key(name) for name in RESERVED}
    for level in levels():
        kept.update((name_key(level.name), name_key(level.label)))
    return frozenset(kept)


def check_name(raw: Any) -> str:
    """``raw`` if a player may take it as their name, else :class:`NameRefused`."""
    if not isinstance(raw, str) or not NAME.fullmatch(raw):
        raise NameRefused("bad-name", "a name is 2 to 20 letters (A-Z), digits, - and _, without spaces")
    key = name_key(raw)
    if key in refused_names() or key.startswith(tuple(name_key(p) for p in REFUSED_PREFIXES)):
        raise NameRefused("refused-name", f"the name {raw} is kept back: choose another")
    return raw


def random_name(rng: random.Random | None = None, number: bool = False, digits: int = 0) -> str:
    """A readable random name, such as ``QuietHeron`` (``number``: with two digits after it,
    ``QuietHeron42``, for when the plain one is taken; ``digits``: with that many, 2 to 4
    after both words, more after the noun alone, ``Heron48213907``, so that the name stays
    within 20 characters).

    >>> [len(random_name(random.Random(i), digits=d)) <= 20 for i, d in enumerate((0, 2, 4, 8))]
    [True, True, True, True]
    """
    pick = rng.choice if rng is not None else secrets.choice
    digits = digits or (2 if number else 0)
    noun = pick(NOUNS)
    if digits > 4:
        below = rng.randrange if rng is not None else secrets.randbelow
        return noun + str(10 ** (digits - 1) + below(9 * 10 ** (digits - 1)))
    name = pick(ADJECTIVES) + noun
    if digits:
        name += str(pick(range(10 ** (digits - 1), 10**digits)))
    return name


__all__ = ["NameRefused", "check_name", "name_key", "name_key_sql", "random_name", "refused_names"]
