"""Quick pairing, pure: who plays whom among the seeks waiting (no I/O, no clock of its own).

A :class:`Seek` is one player asking for a game of a mode, a clock and rated or
casual, since some moment.  Two seeks are **compatible** when they ask for the
same mode, clock and rated flag and come from two different players (never a
player with themselves).  Two compatible seeks **accept** each other when their
ratings are close enough for both (:func:`allowed`): the accepted difference
starts at lichess's pool figure for the lower rating (:func:`base_range`) and
widens the longer both have waited (:func:`wait_bonus`), and a provisional
rating (a high RD) is a guess, so it is met more widely.  A seek is paired with
the **nearest rating** among those it accepts (the one waiting longest on a
tie); the **oldest seeks choose first**.  The numbers are argued in
``docs/server.md`` ("The lobby and pairing").

>>> a = Seek("a1", "p1", "Ann", 1500.0, 60.0, "duel", "3+2", True, 0.0)
>>> b = Seek("b1", "p2", "Bob", 1620.0, 60.0, "duel", "3+2", True, 1.0)
>>> allowed(a, b, 1.0), allowed(a, b, 4.0)
(False, True)
>>> [(x.id, y.id) for x, y in pairs([a, b], 4.0)]
[('a1', 'b1')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dorf.server.storage.rows import Seek as Seek

#: Rating points the accepted difference widens by per second that both seeks have waited.
GROW_PER_SECOND = 10.0
#: The most the waiting adds (lichess's largest miss bonus, 460 points).
MAX_WAIT_BONUS = 460.0
#: A provisional rating's uncertainty counts half its RD: a new player (RD 500) is met within
#: 250 at once, an established one (RD 60) within the pool's range alone.
RD_SHARE = 0.5


def compatible(a: Seek, b: Seek) -> bool:
    """Same mode, clock and rated flag, and two different players."""
    return a.player != b.player and (a.mode, a.clock, a.rated) == (b.mode, b.clock, b.rated)


def base_range(rating: float) -> float:
    """The difference accepted at once (lichess's pool, ``ratingToMaxScore``): 130 below 1000,
    100 up to 1500, a fifteenth of the rating above (133 at 2000, 200 at 3000).

    >>> base_range(900), base_range(1500), base_range(2400)
    (130.0, 100.0, 160.0)
    """
    if rating < 1000:
        return 130.0
    if rating < 1500:
        return 100.0
    return rating / 15.0


def wait_bonus(waited: float) -> float:
    """What ``waited`` seconds add to the accepted difference.

    >>> wait_bonus(0), wait_bonus(10), wait_bonus(3600)
    (0.0, 100.0, 460.0)
    """
    return min(MAX_WAIT_BONUS, GROW_PER_SECOND * max(0.0, waited))


def accepted_range(a: Seek, b: Seek, now: float) -> float:
    """The largest rating difference at which ``a`` and ``b`` play each other at ``now``: the
    pool's range for the lower rating, or the surer RD's share if larger, plus the bonus of the
    seek that waited less (both must have waited for it, as lichess takes the smaller miss bonus)."""
    base = max(base_range(min(a.rating, b.rating)), RD_SHARE * min(a.rd, b.rd))
    return base + wait_bonus(now - max(a.since, b.since))


def allowed(a: Seek, b: Seek, now: float) -> bool:
    """Whether ``a`` and ``b`` may be paired at ``now``."""
    return compatible(a, b) and abs(a.rating - b.rating) <= accepted_range(a, b, now)


def best(seek: Seek, others: Iterable[Seek], now: float) -> Seek | None:
    """The seek ``seek`` is paired with among ``others``: the nearest rating it accepts, the
    one waiting longest on a tie (then the smaller id, so the choice never depends on order)."""
    chosen: Seek | None = None
    for other in others:
        if other.id == seek.id or not allowed(seek, other, now):
            continue
        if chosen is None or _closer(seek, other, chosen):
            chosen = other
    return chosen


def _closer(seek: Seek, other: Seek, chosen: Seek) -> bool:
    gap, held = abs(seek.rating - other.rating), abs(seek.rating - chosen.rating)
    return (gap, other.since, other.id) < (held, chosen.since, chosen.id)


def pairs(seeks: Sequence[Seek], now: float) -> list[tuple[Seek, Seek]]:
    """Every pair to make now: the oldest seek first takes its :func:`best` among the seeks not
    yet paired, and so on; each pair is (older, newer)."""
    waiting = sorted(seeks, key=lambda s: (s.since, s.id))
    free = {s.id: s for s in waiting}
    made: list[tuple[Seek, Seek]] = []
    for seek in waiting:
        if seek.id not in free:
            continue
        del free[seek.id]
        partner = best(seek, free.values(), now)
        if partner is None:
            free[seek.id] = seek  # still there for a newer seek (whose range is its own)
            continue
        del free[partner.id]
        made.append((seek, partner))
    return made
