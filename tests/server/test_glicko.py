"""Glicko-2 (``dorf.server.players.glicko``) against Glickman's worked example and a game by
lichess's settings computed by hand (step by step from the paper's formulas, step 5 by plain
bisection rather than the Illinois algorithm the module uses)."""

from __future__ import annotations

import math

import pytest

from dorf.server.players.glicko import LICHESS, PAPER, Glicko, away, bounded, game, new, provisional, rate


def test_the_papers_example() -> None:
    """*Example of the Glicko-2 system*: 1500/200/0.06 with tau 0.5 beats 1400/30, loses to
    1550/100 and 1700/300: 1464.06, RD 151.52, volatility 0.05999."""
    player = Glicko(1500, 200, 0.06)
    results = [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]
    after = rate(player, results, PAPER)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)  # the paper rounds 0.059996 down


def _by_hand(phi: float, sigma: float, tau: float, score: float) -> tuple[float, float, float]:
    """Two players alike (mu 0, ``phi``, ``sigma``), one game: the paper's steps 3 to 8."""
    g = 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)
    e = 0.5  # the same rating: the expected score is a half
    v = 1 / (g**2 * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(sigma**2)

    def f(x: float) -> float:
        return (
            math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / tau**2
        )

    low, high = a - 20, a + 20  # f falls from positive to negative: bisect
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if f(middle) > 0 else (low, middle)
    new_sigma = math.exp(low / 2)
    phi_star = math.sqrt(phi**2 + new_sigma**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = new_phi**2 * g * (score - e)
    return 1500 + 173.7178 * new_mu, 173.7178 * new_phi, new_sigma


def test_a_game_by_lichess_settings_computed_by_hand() -> None:
    """Two new players (1500, RD 500, volatility 0.09; tau 0.75), the first wins.  By hand:
    phi = 500 / 173.7178 = 2.87823, g = 0.533146, E = 0.5, v = 14.0724, delta = 3.75132,
    sigma' = 0.0899983, phi* = 2.87964, phi' = 2.28423: 1741.62 and 1258.38, RD 396.81."""
    winner, loser = game(new(), new(), 1.0)
    rating, rd, sigma = _by_hand(500 / 173.7178, 0.09, 0.75, 1.0)
    assert (round(rating, 2), round(rd, 2), round(sigma, 7)) == (1741.62, 396.81, 0.0899983)
    assert winner.rating == pytest.approx(rating, abs=1e-6)
    assert winner.rd == pytest.approx(rd, abs=1e-6)
    assert winner.volatility == pytest.approx(sigma, abs=1e-7)
    assert loser.rating == pytest.approx(3000 - rating, abs=1e-6)
    assert loser.rd == pytest.approx(rd, abs=1e-6)
    drawn = game(new(), new(), 0.5)
    assert drawn[0].rating == pytest.approx(1500) and drawn[1].rating == pytest.approx(1500)


def test_lichess_bounds_and_the_growth_with_time_away() -> None:
    # RD at least 45, at most 500; volatility at most 0.1.
    assert bounded(Glicko(1800, 20, 0.3)) == Glicko(1800, 45, 0.1)
    assert bounded(Glicko(1800, 900, 0.05)) == Glicko(1800, 500, 0.05)
    # A settled player (RD 45) stays near 45 after a game (never below it).
    opponent = Glicko(1900, 45, 0.06)
    assert 45 <= rate(Glicko(1900, 45, 0.06), [(opponent, 1.0)]).rd < 50
    assert rate(Glicko(1900, 40, 0.06), [(Glicko(1900, 500, 0.06), 0.5)]).rd == 45
    # Away: phi' = sqrt(phi^2 + days * 0.21436 * sigma^2); a year takes RD 60 to about 110.
    back = away(Glicko(1700, 60, 0.06), 365)
    expected = 173.7178 * math.sqrt((60 / 173.7178) ** 2 + 365 * 0.21436 * 0.06**2)
    assert back.rd == pytest.approx(expected) and 100 < back.rd < 120 and back.rating == 1700
    assert away(Glicko(1700, 300, 0.09), 10_000).rd == 500  # never past the most
    assert away(Glicko(1700, 60, 0.06), 0).rd == pytest.approx(60)


def test_provisional_while_rd_is_110_or_more() -> None:
    assert provisional(new()) and provisional(Glicko(1500, 110)) and not provisional(Glicko(1500, 109.9))
    assert LICHESS.rating == 1500 and LICHESS.rd == 500 and LICHESS.volatility == 0.09 and LICHESS.tau == 0.75


def test_a_rating_period_has_a_game() -> None:
    with pytest.raises(ValueError):
        rate(new(), [])
