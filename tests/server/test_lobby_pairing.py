"""The pairing rule on hand-built seek lists (``dorf.server.lobby.pairing``): compatible seeks
only, never a player with themselves, the nearest rating, a range widening with the wait, the
oldest seeks first."""

from __future__ import annotations

from dorf.server.lobby.pairing import (
    MAX_WAIT_BONUS,
    Seek,
    accepted_range,
    allowed,
    base_range,
    best,
    pairs,
)


def seek(
    sid: str,
    rating: float,
    since: float = 0.0,
    *,
    player: str | None = None,
    mode: str = "duel",
    clock: str | None = "3+2",
    rated: bool = True,
    rd: float = 60.0,
) -> Seek:
    return Seek(sid, player or f"p-{sid}", sid.upper(), rating, rd, mode, clock, rated, since)


def ids(made: list[tuple[Seek, Seek]]) -> list[tuple[str, str]]:
    return [(a.id, b.id) for a, b in made]


def test_only_the_same_mode_clock_and_rated_flag_are_paired() -> None:
    base = seek("a", 1500)
    for other in (
        seek("b", 1500, mode="head-to-head"),
        seek("c", 1500, clock="5+3"),
        seek("d", 1500, clock=None),
        seek("e", 1500, rated=False),
    ):
        assert not allowed(base, other, 100.0)
        assert pairs([base, other], 100.0) == []
    assert ids(pairs([base, seek("f", 1500)], 0.0)) == [("a", "f")]


def test_never_a_player_with_themselves() -> None:
    """Two seeks of one player (two tabs) are never paired, however long they wait; a third
    player's seek is."""
    mine = [seek("a", 1500, 0, player="ann"), seek("b", 1500, 1, player="ann")]
    assert pairs(mine, 1000.0) == []
    assert best(mine[0], mine, 1000.0) is None
    assert ids(pairs([*mine, seek("c", 1900, 2, player="cy")], 1000.0)) == [("a", "c")]


def test_the_nearest_rating_is_chosen() -> None:
    me = seek("me", 1500, 0)
    others = [seek("far", 1580, 1), seek("near", 1490, 2), seek("mid", 1530, 3)]
    chosen = best(me, others, 3.0)
    assert chosen is not None and chosen.id == "near"
    assert ids(pairs([me, *others], 3.0)) == [("me", "near"), ("far", "mid")]


def test_equal_distance_goes_to_the_one_waiting_longest() -> None:
    me = seek("me", 1500, 5)
    chosen = best(me, [seek("late", 1550, 4), seek("early", 1450, 1)], 5.0)
    assert chosen is not None and chosen.id == "early"


def test_the_range_widens_with_the_wait_of_both() -> None:
    """1500 against 1700 (RD 60): the pool's 100 at once; each second both have waited adds 10,
    so they are paired once the newer seek has waited 10 s; the older's long wait alone does not."""
    old, new = seek("old", 1500, 0), seek("new", 1700, 100)
    assert accepted_range(old, new, 100.0) == 100.0
    assert not allowed(old, new, 109.0)
    assert allowed(old, new, 110.0)
    assert pairs([old, new], 109.0) == []
    assert ids(pairs([old, new], 110.0)) == [("old", "new")]


def test_the_widening_stops() -> None:
    a, b = seek("a", 1000, 0), seek("b", 1000 + 100 + MAX_WAIT_BONUS + 1, 0)
    assert accepted_range(a, b, 1e6) == 100 + MAX_WAIT_BONUS
    assert not allowed(a, b, 1e6)


def test_the_base_range_is_lichess_pool_range() -> None:
    assert [base_range(r) for r in (800, 1200, 1499, 1500, 3000)] == [130, 100, 100, 100, 200]


def test_a_provisional_rating_is_met_more_widely() -> None:
    """Two new players (RD 500) are paired 240 apart at once; an established one (RD 60) and a
    new one are not (the surer RD counts)."""
    assert allowed(seek("a", 1500, rd=500), seek("b", 1740, rd=500), 0.0)
    assert not allowed(seek("a", 1500, rd=60), seek("b", 1740, rd=500), 0.0)


def test_the_oldest_seek_chooses_first() -> None:
    """The oldest seek takes its nearest even if a newer one is nearer still to that partner."""
    oldest = seek("oldest", 1500, 0)
    newer = seek("newer", 1545, 1)
    target = seek("target", 1540, 2)
    assert ids(pairs([target, newer, oldest], 2.0)) == [("oldest", "target")]


def test_pairs_are_disjoint_and_everybody_compatible_is_paired() -> None:
    seeks = [seek(f"s{i}", 1400 + (i * 37) % 200, i * 0.1) for i in range(40)]
    made = pairs(seeks, 30.0)
    used = [s.id for pair in made for s in pair]
    assert len(used) == len(set(used)) == 40
    for a, b in made:
        assert a.since <= b.since and allowed(a, b, 30.0)


def test_a_lone_seek_waits() -> None:
    assert pairs([seek("alone", 1500)], 1e6) == []
    assert pairs([], 0.0) == []
