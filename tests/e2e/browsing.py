"""What the browser tests share besides their fixtures (``conftest.py``): the pages a test opens,
the viewports, and waiting for the game a page shows.

Waits are for events, not on a timer: :func:`wait_version_after` and :func:`wait_turn` are one
``page.evaluate`` each, a promise that a ``MutationObserver`` on the page's ``<body>`` keeps (the
page writes the game's version, whose turn it is and whether it is over there on every change), so
they return as soon as the page changes and never poll.  ``page.evaluate`` runs under the server's
Content-Security-Policy, where ``wait_for_function``'s string predicates do not.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any

import httpx
from websockets.sync.client import connect

from dorf.server.protocol.delta import follow

#: One HTTP client for the tests of a process: a new one per request (``httpx.get``) builds a TLS
#: context each time, about a fifth of a second on this machine even for plain HTTP.  It keeps no
#: cookie, as a new client would not: each request is a visitor of its own.
HTTP = httpx.Client(timeout=30.0, cookies=CookieJar(DefaultCookiePolicy(allowed_domains=[])))

WIDE = (1400, 900)
PHONE = (390, 844)
#: The phone bar's preview of a chosen cell: the points the placement gains ("+3 points").
GAIN = re.compile(r"[+-]\d+ points?")
#: Requests the page makes to find out what the server offers; a 404 only means "not offered here".
OPTIONAL_ROUTES = re.compile(r"/api/levels$|/api/games/[^/]+/hint$")
#: Routes a page asks again when told 429 ``busy`` (the lessons: one computation at a time from an
#: address, and the browsers of a test share one).
BUSY_ROUTES = re.compile(r"/api/games/[^/]+/lessons$")


class Pages:
    """Browser contexts opened by a test; each page's console errors are kept."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []
        self.pages: list[Any] = []
        self.errors: list[str] = []

    def new(
        self,
        width: int = 1280,
        height: int = 800,
        touch: bool = False,
        locale: str = "en-US",
        motion: bool = False,
    ) -> Any:
        """A page in a context of its own; ``touch``: a phone (touch events, mobile viewport);
        ``locale``: the browser's language (its Accept-Language and navigator.language: the page
        speaks it), English unless given, whatever the machine's; ``motion``: the page animates as
        for most people (otherwise it is asked for reduced motion, as some ask: a tile is drawn
        where it lands, with the same result and far less for the renderer to draw)."""
        context = self.browser.new_context(
            reduced_motion="no-preference" if motion else "reduce",
            viewport={"width": width, "height": height},
            has_touch=touch,
            is_mobile=touch,
            locale=locale,
            extra_http_headers={"Accept-Language": locale},
        )
        context.set_default_timeout(15_000)
        page = context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on("console", lambda msg: self._console(msg))
        self.contexts.append(context)
        self.pages.append(page)
        return page

    def wide(self) -> Any:
        return self.new(*WIDE)

    def phone(self) -> Any:
        return self.new(*PHONE, touch=True)

    def _console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        url = (msg.location or {}).get("url", "")
        if "status of 404" in msg.text and OPTIONAL_ROUTES.search(url):
            return
        if "status of 429" in msg.text and BUSY_ROUTES.search(url):
            return
        self.errors.append(f"console: {msg.text} ({url})")

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def version(page: Any) -> int:
    """The version of the game the page shows (it counts the game's changes)."""
    return int(page.evaluate("document.body.dataset.version || '-1'"))


#: The game as the page's <body> shows it, once its version is newer than ``old`` and, with
#: ``turn``, the page's seat must decide or the game is over; null after ``ms`` milliseconds.
_BODY_AFTER = """([old, turn, ms]) => new Promise((resolve) => {
  const data = document.body.dataset;
  const shown = () => ({
    version: Number(data.version || -1), over: data.over === "1", mine: data.mine === "1",
    phase: data.phase || "",
  });
  const ready = (s) => s.version > old && (!turn || s.over || s.mine);
  if (ready(shown())) return resolve(shown());
  const watch = new MutationObserver(() => {
    const s = shown();
    if (ready(s)) { clearTimeout(timer); watch.disconnect(); resolve(s); }
  });
  const timer = setTimeout(() => { watch.disconnect(); resolve(null); }, ms);
  watch.observe(document.body, { attributes: true });
})"""


def wait_version_after(page: Any, old: int, limit: float = 30.0) -> dict[str, Any]:
    """Wait until the page shows a newer version of the game than ``old``; what it shows then
    (``version``, ``over``, ``mine``: the page's seat must decide, ``phase``)."""
    shown: dict[str, Any] | None = page.evaluate(_BODY_AFTER, [old, False, int(limit * 1000)])
    if shown is None:
        raise AssertionError(f"the page still shows version {version(page)}, not newer than {old}")
    return shown


def wait_turn(page: Any, limit: float = 30.0) -> dict[str, Any]:
    """Wait until the page's seat must decide or the game is over; what the page shows then (as
    :func:`wait_version_after` answers)."""
    shown: dict[str, Any] | None = page.evaluate(_BODY_AFTER, [-2, True, int(limit * 1000)])
    if shown is None:
        raise AssertionError("the page's seat never had to decide, and the game is not over")
    return shown


#: Whether the JS expression (filled in) holds, once it does or after ``ms`` milliseconds: looked
#: at again at each change of the page (a ``MutationObserver``), never on a timer or each frame.
_UNTIL = """(ms) => new Promise((resolve) => {
  const holds = () => { try { return !!(%s); } catch { return false; } };
  if (holds()) return resolve(true);
  const watch = new MutationObserver(() => {
    if (holds()) { clearTimeout(timer); watch.disconnect(); resolve(true); }
  });
  const timer = setTimeout(() => { watch.disconnect(); resolve(holds()); }, ms);
  watch.observe(document, { attributes: true, childList: true, characterData: true, subtree: true });
})"""


def wait_until(page: Any, expression: str, limit: float = 15.0) -> None:
    """Wait until the JS ``expression`` holds on the page, a condition on what the page shows (its
    DOM): looked at again when the page changes, as :func:`wait_version_after` waits, where
    ``wait_for_function`` would look at each frame the page draws meanwhile."""
    if not page.evaluate(_UNTIL % expression, int(limit * 1000)):
        raise AssertionError(f"the page never showed {expression} in {limit:g} s")


def place_by_clicking(page: Any, rng: random.Random) -> dict[str, Any]:
    """Choose a highlighted cell with the mouse, check the preview, click it again to place; what
    the page shows then."""
    cells = tappable_cells(page)
    x, y = cells[rng.randrange(len(cells))]
    old = version(page)
    page.mouse.click(x, y)
    page.locator("#place-button").wait_for()
    page.locator(".card-preview .score-delta").wait_for()
    page.mouse.click(x, y)  # the same cell again: place
    return wait_version_after(page, old)


def place_by_keys(page: Any) -> dict[str, Any]:
    """Place the tile with the keyboard alone: ``n`` chooses the next highlighted cell (at a
    rotation that fits), Enter places it; what the page shows then."""
    old = version(page)
    page.keyboard.press("n")
    page.keyboard.press("Enter")
    return wait_version_after(page, old)


def create(server_url: str, body: dict[str, Any]) -> dict[str, Any]:
    """A game made through the API (``POST /api/games``): its id, tokens and invitations."""
    made = HTTP.post(server_url + "/api/games", json=body)
    assert made.status_code == 201, made.text
    data: dict[str, Any] = made.json()
    return data


def _socket(server_url: str, game_id: str) -> str:
    return "ws" + server_url.removeprefix("http") + f"/ws/{game_id}"


def finished(server_url: str, game_id: str, limit: float = 60.0) -> None:
    """Wait until the game (its computer seats playing it) is over: the server's websocket wakes
    the wait at each change of the game, as it tells a page that watches it."""
    deadline = time.monotonic() + limit
    held: dict[str, Any] | None = None
    with connect(_socket(server_url, game_id), max_size=None) as socket:
        socket.send(json.dumps({"type": "hello", "tokens": []}))
        while held is None or not held["game"]["over"]:
            left = deadline - time.monotonic()
            assert left > 0, f"game {game_id} did not finish in {limit:g} s"
            try:
                message = json.loads(socket.recv(timeout=left))
            except TimeoutError:
                continue
            try:
                held = follow(held, message)
            except ValueError:  # a delta from a version it does not hold
                socket.send(json.dumps({"type": "sync"}))


def tokens_of(page: Any, game_id: str) -> list[str]:
    """The seat tokens the page's browser keeps for the game (a game started in its lobby)."""
    kept = page.evaluate("JSON.parse(localStorage.getItem('dorf.games.v1') || '{}')")
    return list(kept[game_id]["tokens"].values())


def decide_elsewhere(
    server_url: str,
    game_id: str,
    tokens: str | list[str],
    until: Callable[[dict[str, Any]], bool] = lambda game: False,
    most: int | None = None,
    choose: Callable[[dict[str, Any], int], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Decide for the seats ``tokens`` hold (one token or several) from a client of their own,
    over the game's websocket as a page does (another device of the same player): the first
    legal move each time (or what ``choose(held, seat)`` answers, a seat with a legal move
    waiting: ``{"at", "rot"}`` or ``{"pick"}``), until ``until(game)`` holds for the game as the
    client holds it, ``most`` decisions are made or the game is over; the game then.

    The pages open meanwhile follow the game as they follow any other seat's moves: the part of a
    game that is not a test's point is played this way, quickly, in front of them."""
    held: dict[str, Any] | None = None
    pending = False  # our last move is not answered yet
    answer = -1  # the version our last move made: the client holds it before it decides again
    made = 0
    with connect(_socket(server_url, game_id), max_size=None) as socket:
        socket.send(json.dumps({"type": "hello", "tokens": [tokens] if isinstance(tokens, str) else tokens}))
        while True:
            message = json.loads(socket.recv(timeout=30))
            if message.get("type") == "error":
                raise AssertionError(f"the server refused a move made elsewhere: {message}")
            if message.get("type") == "ok" and message.get("id") == made:
                pending, answer = False, message["version"]
            try:
                held = follow(held, message)
            except ValueError:  # a delta from a version it does not hold
                socket.send(json.dumps({"type": "sync"}))
                continue
            if held is None or pending or held["game"]["version"] < answer:
                continue
            game = held["game"]
            if game["over"] or until(game) or made == most:
                return game
            for seat in held["you"]["seats"]:
                if seat not in game["waiting"]:
                    continue
                if game["phase"] == "draft":
                    moves: list[dict[str, Any]] = [{"pick": tile["id"]} for tile in game["pool"]]
                else:
                    legal = held["you"]["legal"].get(str(seat), [])
                    moves = [{"at": [q, r], "rot": rots[0]} for q, r, rots in legal]
                if moves:
                    made += 1
                    pending = True
                    move = moves[0] if choose is None else choose(held, seat)
                    socket.send(json.dumps({"type": "move", "seat": seat, **move, "id": made}))
                    break


def no_sideways_scroll(page: Any) -> None:
    widths = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert widths[0] <= widths[1], f"{page.url} is {widths[0]} px wide in a {widths[1]} px window"


#: The box of the one element ``selector`` finds, if it is shown, and the window's size.
_BOX = """(selector) => {
  const found = document.querySelectorAll(selector);
  if (found.length !== 1) return { count: found.length };
  const r = found[0].getBoundingClientRect();
  const shown = r.width > 0 && r.height > 0 && getComputedStyle(found[0]).visibility !== "hidden";
  return { count: 1, box: shown ? { x: r.x, y: r.y, width: r.width, height: r.height } : null,
           window: [innerWidth, innerHeight] };
}"""


def inside_viewport(page: Any, selector: str) -> None:
    """The one element ``selector`` finds is shown, wholly inside the window (one round trip)."""
    found = page.evaluate(_BOX, selector)
    assert found["count"] == 1, f"{selector} finds {found['count']} elements"
    box, (width, height) = found["box"], found["window"]
    assert box is not None, f"{selector} is not shown"
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, (selector, box)


#: The centres of the highlighted cells of the acting area a finger (or mouse) can reach, on
#: screen and under no button, once there are any (looked for at each frame the page draws).
_TAPPABLE = """(ms) => new Promise((resolve) => {
  const end = performance.now() + ms;
  const look = () => {
    const points = [...document.querySelectorAll(".area-pane.acting .legal-cell")]
      .map((cell) => { const r = cell.getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2, cell]; })
      .filter(([x, y, cell]) => document.elementFromPoint(x, y) === cell)
      .map(([x, y]) => [x, y]);
    if (points.length) resolve(points);
    else if (performance.now() > end) resolve(null);
    else requestAnimationFrame(look);
  };
  look();
})"""


def tappable_cells(page: Any, limit: float = 15.0) -> list[list[float]]:
    """The centres of the highlighted cells a finger (or mouse) can reach: on screen, under no button."""
    points: list[list[float]] | None = page.evaluate(_TAPPABLE, int(limit * 1000))
    assert points, "no highlighted cell a finger can reach"
    return points


def start_from_lobby(
    page: Any, server_url: str, mode: str = "", names: tuple[str, ...] = (), computer: str = ""
) -> None:
    """Start a game on the front page: the mode's card (by its name), the players' names, and
    (``computer``, a level such as ``"easy"``) the second seat's player instead of the default."""
    page.goto(server_url + "/")
    if mode:
        page.locator("label.mode", has_text=mode).click()
    for i, name in enumerate(names):
        page.locator(".seat-name").nth(i).fill(name)
    if computer:
        page.locator(".seat-kind").nth(1).select_option(f"computer:{computer}")
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/game/"))
