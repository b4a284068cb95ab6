"""Glicko-2 with lichess's settings: one game is one rating period, and a rating's deviation grows
with the time its player stays away.

Mark Glickman's *Example of the Glicko-2 system* (glicko.net/glicko/glicko2.pdf) in its steps:
ratings on the Glicko-2 scale (``mu = (r - 1500) / 173.7178``, ``phi = RD / 173.7178``), the
opponents' weights ``g(phi)`` and expected scores ``E``, the estimated variance ``v`` and
improvement ``delta``, the new volatility by the Illinois algorithm (step 5, to within
:data:`TOLERANCE`), then the new deviation and rating.  lichess (``lila``, ``scalachess``'s
``glicko`` package) uses the same steps with these :class:`Settings`: a new player starts at
1500, RD 500, volatility 0.09; ``tau`` is 0.75; a deviation is kept between 45 and 500 and a
volatility at most 0.1; every game is its own rating period (both players are rated right after
it), and between games a deviation grows as ``phi' = sqrt(phi^2 + t sigma^2)`` for ``t`` =
0.21436 rating periods a day away (chosen by lichess so that a typical RD goes from 60 to 110
in a year).  A rating is provisional while its RD is 110 or more.

No library on PyPI does both the paper's example and these settings (the bounds, the growth
with time away): this module is small and tested against the paper (``tests/server/test_glicko.py``).

>>> a, b = game(Glicko(), Glicko(), 1.0)
>>> round(a.rating, 2), round(b.rating, 2), round(a.rd, 2), round(a.volatility, 6)
(1741.62, 1258.38, 396.81, 0.089998)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

#: The Glicko-2 scale: ``mu = (rating - 1500) / SCALE``.
SCALE = 173.7178
CENTRE = 1500.0
#: Step 5 stops once the volatility's interval is this narrow (the paper's and lichess's).
TOLERANCE = 0.000001
MAX_ITERATIONS = 1000


@dataclass(frozen=True)
class Settings:
    """How ratings move: a new player's rating, the bounds, ``tau``, the growth with time away."""

    rating: float = 1500.0
    rd: float = 500.0
    volatility: float = 0.09
    tau: float = 0.75
    min_rd: float = 45.0
    max_rd: float = 500.0
    max_volatility: float = 0.1
    #: Rating periods a day away: the deviation grows by so many periods' volatility a day.
    periods_per_day: float = 0.21436
    #: A rating whose RD is this or more is provisional (shown with "?").
    provisional_rd: float = 110.0


#: lichess's settings, the server's.
LICHESS = Settings()
#: The paper's example: tau 0.5, no bounds, no time away.
PAPER = Settings(tau=0.5, min_rd=0.0, max_rd=math.inf, max_volatility=math.inf, periods_per_day=0.0)


@dataclass(frozen=True)
class Glicko:
    """A rating, its deviation (RD) and its volatility, on the usual (Glicko) scale."""

    rating: float = LICHESS.rating
    rd: float = LICHESS.rd
    volatility: float = LICHESS.volatility

    @property
    def mu(self) -> float:
        return (self.rating - CENTRE) / SCALE

    @property
    def phi(self) -> float:
        return self.rd / SCALE


def new(settings: Settings = LICHESS) -> Glicko:
    """A new player's rating."""
    return Glicko(settings.rating, settings.rd, settings.volatility)


def bounded(rating: Glicko, settings: Settings = LICHESS) -> Glicko:
    """``rating`` with its RD between the bounds and its volatility at most the most."""
    rd = min(max(rating.rd, settings.min_rd), settings.max_rd)
    return replace(rating, rd=rd, volatility=min(rating.volatility, settings.max_volatility))


def away(rating: Glicko, days: float, settings: Settings = LICHESS) -> Glicko:
    """``rating`` after ``days`` without a rated game: its RD grown (step 6 of the paper for
    ``days * periods_per_day`` rating periods), at most ``max_rd``."""
    periods = max(0.0, days) * settings.periods_per_day
    phi = math.sqrt(rating.phi**2 + periods * rating.volatility**2)
    return bounded(replace(rating, rd=phi * SCALE), settings)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi**2 / math.pi**2)


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm (the paper's, as lichess does it)."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2.0 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= TOLERANCE:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    else:  # pragma: no cover - the algorithm converges for any finite input
        raise ArithmeticError("the volatility did not converge")
    return math.exp(big_a / 2.0)


def rate(
    player: Glicko,
    results: Sequence[tuple[Glicko, float]],
    settings: Settings = LICHESS,
    periods: float = 1.0,
) -> Glicko:
    """``player`` after one rating period of ``results`` (each an opponent's rating as it was
    before the period, and the score: 1 won, 0.5 drawn, 0 lost), bounded by ``settings``."""
    if not results:
        raise ValueError("a rating period without games changes only the RD: use away()")
    mu, phi = player.mu, player.phi
    weights = [(_g(o.phi), _e(mu, o.mu, o.phi), score) for o, score in results]
    v = 1.0 / sum(g**2 * e * (1.0 - e) for g, e, _ in weights)
    gain = sum(g * (score - e) for g, e, score in weights)
    sigma = _volatility(phi, player.volatility, v, v * gain, settings.tau)
    phi_star = math.sqrt(phi**2 + periods * sigma**2)
    new_phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    new_mu = mu + new_phi**2 * gain
    return bounded(Glicko(CENTRE + SCALE * new_mu, SCALE * new_phi, sigma), settings)


def game(a: Glicko, b: Glicko, score_a: float, settings: Settings = LICHESS) -> tuple[Glicko, Glicko]:
    """Both players after one game between them (``score_a``: 1 ``a`` won, 0.5 a draw, 0 ``b``
    won), each its own rating period, each rated against the other as they were before it."""
    return rate(a, [(b, score_a)], settings), rate(b, [(a, 1.0 - score_a)], settings)


def provisional(rating: Glicko, settings: Settings = LICHESS) -> bool:
    """Whether the rating is still provisional (RD of ``provisional_rd`` or more)."""
    return rating.rd >= settings.provisional_rd


__all__ = ["LICHESS", "PAPER", "Glicko", "Settings", "away", "bounded", "game", "new", "provisional", "rate"]
