"""The pictures in ``docs/screenshots/``, made from seeded games: ``python -m dorf.lab.screenshots``.

It starts the server in this process on a free loopback port with a fresh
database, plays seeded games through the HTTP API (the people's seats move as
the ``greedy`` computer player would, so the landscapes look played), opens
each in Debian's Chromium through Playwright and saves:

- ``solo-finished.png``: a finished solo game of the Board Game (1400 x 900);
- for each view, one picture at each size of :data:`SIZES` (``coop-390x844.png``,
  ``duel-844x390.png``, ``head-to-head-draft-1400x900.png``, ...): ``coop``, a solo game of
  the Board Game with a cell chosen; ``duel``, a Duel against the computer in progress with a
  cell chosen and its preview; ``head-to-head-draft``, the Head to Head draft with a tile
  shown large; ``head-to-head``, Head to Head after the draft, lakes and mountains laid.
  The phone sizes (390 x 844 upright, 844 x 390 on its side) are touch screens: the cell
  and the draft's tile are tapped.

The PNGs are reduced to a palette of 256 colours when Pillow is installed
(``pip install pillow``, or the ``plot`` extra), which keeps them small.
Needs the ``web`` extra, Playwright (``pip install playwright``) and Chromium
(``apt-get install chromium-headless-shell`` or ``chromium``, or ``$DORF_CHROMIUM``). ``--out DIR`` writes
elsewhere; ``--only NAME`` makes one picture (``--only duel``: the Duel at every size).

The browser tests start their server and their Chromium as here, with
:func:`dorf.testing.servers.launch` and :mod:`dorf.testing.browser`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dorf.testing.browser import CHROMIUM_ARGS, chromium_path
from dorf.testing.net import get, post
from dorf.testing.servers import Running, launch

WIDE = {"width": 1400, "height": 900}
#: The seeds of the pictured games.
SEEDS = {"solo": 11, "duel": 5, "head-to-head": 3, "phone": 8}


class Table:
    """A game on the server whose seats are all played here, through the API, as the greedy
    player would (it sees only the deciding seat's view).  The table keeps the game's record
    from the decisions the server accepted, so it never looks inside the server."""

    def __init__(
        self,
        base: str,
        mode: str,
        seed: int,
        names: list[str],
        players: tuple[str, ...] = ("greedy",),
    ) -> None:
        from dorf.formats.record import FORMAT
        from dorf.server.round.session import TILESETS

        self.base = base
        seats = [{"kind": "here", "name": name} for name in names]
        made = post(f"{self.base}/api/games", {"mode": mode, "seed": seed, "seats": seats})
        self.id: str = made["id"]
        self.tokens: dict[int, str] = {int(seat): token for seat, token in made["tokens"].items()}
        #: The computer player that decides for each seat (the last one for the seats after).
        self.players = players
        self.record: dict[str, Any] = {
            "format": FORMAT,
            "mode": mode,
            "tileset": TILESETS[mode],
            "seed": seed,
            "players": names,
            "decisions": [],
        }

    def state(self) -> dict[str, Any]:
        game: dict[str, Any] = get(f"{self.base}/api/games/{self.id}")
        return game

    def page_url(self, seat: int = 0) -> str:
        """The game's page holding the token of ``seat`` only: the others are people elsewhere."""
        return f"{self.base}/game/{self.id}#t={self.tokens[seat]}"

    def suggestion(self, seat: int, spec: str | None = None) -> dict[str, Any]:
        """What the seat's player (or ``spec``) would do for ``seat`` now."""
        from dorf.server.computer.thinking import think

        spec = spec or self.players[min(seat, len(self.players) - 1)]
        return think(self.record, seat, spec, len(self.record["decisions"]))

    def play(self, moves: int, only: int | None = None) -> dict[str, Any]:
        """Make ``moves`` decisions (of seat ``only``, else of whoever must decide); the state after."""
        game = self.state()
        for _ in range(moves):
            waiting = [s for s in game["waiting"] if only is None or s == only]
            if game["over"] or not waiting:
                break
            seat = waiting[0]
            body = {"token": self.tokens[seat], "seat": seat, **self.suggestion(seat)}
            answer = post(f"{self.base}/api/games/{self.id}/move", body)
            self.record["decisions"].append(answer["decision"])
            game = self.state()
        return game

    def until_turn_of(self, seat: int) -> None:
        """Let the other seats decide until ``seat`` must (or the game is over)."""
        game = self.state()
        while not game["over"] and seat not in game["waiting"]:
            game = self.play(1)

    def play_out(self) -> None:
        while not self.play(50)["over"]:
            pass


def _optimise(path: Path) -> None:
    """A palette of 256 colours (octree: it keeps the few blues of rivers): a fifth of the size."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(
            colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
    small.save(path, optimize=True)


def _settle(page: Any) -> None:
    """Let animations end and the fonts load before the picture is taken."""
    page.wait_for_timeout(400)


def choose_cell(page: Any, table: Table, seat: int, tap: bool = False) -> None:
    """Choose, in the page, the cell the greedy player would take: the ghost and the preview show."""
    page.locator(".legal-cell").first.wait_for()
    q, r = table.suggestion(seat, "greedy")["at"]
    cell = page.locator(f'.legal-cell[data-at="{q},{r}"]')
    if tap:
        cell.tap()
    else:
        cell.click()
        page.mouse.move(5, 5)  # the chosen cell stays; the pointer leaves the board
    page.locator(".ghost.selected").wait_for()
    page.locator(".card-preview .score-delta").wait_for(state="attached")


PLAYERS = ["Ann", "Bob"]
#: Ann plays as the greedy player would, Bob picks at random: two different landscapes.
STYLES = ("greedy", "random")


class Size:
    """A screen the pictures are taken on: its viewport, and whether it is a touch screen."""

    def __init__(self, width: int, height: int, touch: bool) -> None:
        self.viewport = {"width": width, "height": height}
        self.touch = touch
        self.name = f"{width}x{height}"


#: The sizes each view is pictured at: a phone upright, the phone on its side, a laptop.
SIZES = [Size(390, 844, True), Size(844, 390, True), Size(1400, 900, False)]


def solo_finished(server: Running, open_page: Callable[..., Any]) -> Any:
    table = Table(server.url, "coop", SEEDS["solo"], ["Ann"])
    table.play_out()
    page = open_page(table, WIDE)
    page.locator("#score-pad").wait_for()
    page.locator("#pad-close").click()
    return page


def coop(server: Running, open_page: Callable[..., Any], size: Size) -> Any:
    table = Table(server.url, "coop", SEEDS["phone"], ["Ann"])
    table.play(16)
    page = open_page(table, size.viewport, touch=size.touch)
    choose_cell(page, table, 0, tap=size.touch)
    return page


def duel(server: Running, open_page: Callable[..., Any], size: Size) -> Any:
    table = Table(server.url, "duel", SEEDS["duel"], PLAYERS, STYLES)
    table.play(28)  # 14 turns: both players now place the next tile
    table.until_turn_of(0)
    page = open_page(table, size.viewport, touch=size.touch)
    choose_cell(page, table, 0, tap=size.touch)
    return page


def head_to_head_draft(server: Running, open_page: Callable[..., Any], size: Size) -> Any:
    table = Table(server.url, "head-to-head", SEEDS["head-to-head"], PLAYERS, STYLES)
    table.play(8)
    table.until_turn_of(0)
    page = open_page(table, size.viewport, touch=size.touch)
    tile = page.locator("#draft-pool button.pool-tile").nth(5)
    if size.touch:
        tile.tap()  # a first tap shows the tile large
        page.locator("#pick-detail").wait_for()
    else:
        tile.hover()
    return page


def head_to_head(server: Running, open_page: Callable[..., Any], size: Size) -> Any:
    table = Table(server.url, "head-to-head", SEEDS["head-to-head"], PLAYERS, STYLES)
    table.play(80)
    table.until_turn_of(0)
    page = open_page(table, size.viewport, touch=size.touch)
    choose_cell(page, table, 0, tap=size.touch)
    return page


#: Each picture: its file name and how the page is brought there.
SHOTS: dict[str, Callable[[Running, Callable[..., Any]], Any]] = {"solo-finished": solo_finished}
#: The views pictured at every size of :data:`SIZES` (``duel-844x390``).
VIEWS: dict[str, Callable[[Running, Callable[..., Any], Size], Any]] = {
    "coop": coop,
    "duel": duel,
    "head-to-head-draft": head_to_head_draft,
    "head-to-head": head_to_head,
}


def _sized(
    make: Callable[[Running, Callable[..., Any], Size], Any], size: Size
) -> Callable[[Running, Callable[..., Any]], Any]:
    return lambda server, open_page: make(server, open_page, size)


SHOTS.update({f"{view}-{size.name}": _sized(make, size) for view, make in VIEWS.items() for size in SIZES})


def _chosen(name: str, only: str) -> bool:
    """Whether ``--only`` asks for the picture ``name``: by its name, or by its view (all sizes)."""
    return name == only or (only in VIEWS and any(name == f"{only}-{size.name}" for size in SIZES))


def shoot(out: Path, only: str | None = None) -> list[Path]:
    """Make the pictures (or the one named ``only``); returns the files written."""
    from playwright.sync_api import sync_playwright

    chromium = chromium_path()
    if chromium is None:
        raise SystemExit("screenshots: no chromium (apt-get install chromium-headless-shell)")
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        launch(Path(tmp) / "dorf.sqlite3", ai_delay=0) as server,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)

        def open_page(table: Table, viewport: Any, touch: bool = False) -> Any:
            # In English whatever the machine's language (the page speaks the browser's).
            context = browser.new_context(
                viewport=viewport,
                has_touch=touch,
                is_mobile=touch,
                reduced_motion="reduce",
                locale="en-US",
                extra_http_headers={"Accept-Language": "en-US"},
            )
            context.set_default_timeout(60_000)
            page = context.new_page()
            page.goto(table.page_url())
            return page

        for name, make in SHOTS.items():
            if only is not None and not _chosen(name, only):
                continue
            page = make(server, open_page)
            _settle(page)
            target = out / f"{name}.png"
            page.screenshot(path=str(target))
            page.context.close()
            _optimise(target)
            written.append(target)
            print(f"{target}  {target.stat().st_size // 1024} KB")
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dorf.lab.screenshots", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--out", type=Path, default=Path("docs/screenshots"), help="folder (default docs/screenshots)"
    )
    parser.add_argument(
        "--only",
        choices=[*SHOTS, *VIEWS],
        help="make this picture only (a view's name: at every size)",
    )
    args = parser.parse_args(argv)
    shoot(args.out, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
