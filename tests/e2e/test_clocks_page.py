"""Issue 31, clocks: the page shows both clocks of a Duel, ticking for the seat whose clock runs and
highlighted, warns when one is low, and shows a seat that lets its clock run out lose on time; a
seat resigns with its button.  The server's clocks run ten times faster (``clock_scale``, for
tests only: ``dorf serve --clock-scale``), so a one-minute clock runs out in six seconds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browsing import HTTP, PHONE, WIDE, Pages, create, decide_elsewhere

from dorf.testing.servers import launch

pytestmark = pytest.mark.slow

SCALE = 10.0
SEATS = [{"kind": "here", "name": "Ann"}, {"kind": "here", "name": "Bob"}]


@pytest.fixture(scope="module")
def fast_clocks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("clocks") / "dorf.sqlite3"
    with launch(db, ai_delay=0, clock_scale=SCALE) as server:
        yield server.url


def axe_on_clocks(page: object) -> list[str]:
    """What axe-core finds serious or critical in the strip of clocks as it is now."""
    import axe_playwright_python

    source = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")
    if not page.evaluate("typeof window.axe === 'object'"):  # type: ignore[attr-defined]
        page.evaluate(source + "\n;0")  # type: ignore[attr-defined]
    found: list[dict[str, object]] = page.evaluate(  # type: ignore[attr-defined]
        "() => axe.run('#clocks', { resultTypes: ['violations'] }).then((r) => r.violations)"
    )
    return [f"{v['id']}: {v['help']}" for v in found if v["impact"] in ("serious", "critical")]


#: Remembers in ``window.lowSeen`` that a clock was shown low (warned), however briefly.
LOW_SEEN = """new MutationObserver(() => {
  if (document.querySelector('.clocks .clock.low')) window.lowSeen = true;
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });"""


def faces(page: object) -> list[dict[str, object]]:
    """Each clock the page shows: its seat, time left (ms) and classes."""
    shown: list[dict[str, object]] = page.evaluate(  # type: ignore[attr-defined]
        """() => [...document.querySelectorAll('.clocks .clock')].map((c) => ({
            seat: Number(c.dataset.seat), ms: Number(c.dataset.ms), cls: c.className,
            time: c.querySelector('.clock-time').textContent }))"""
    )
    return shown


def test_a_seat_that_lets_its_clock_run_out_loses_on_time(fast_clocks: str, pages: Pages) -> None:
    # Bob watches on a wide screen and on a phone: both pages open (on the front page) before the
    # game begins, so that its clock's minute is not spent opening them.
    shown = []
    for size in (WIDE, PHONE):
        page = pages.new(*size, touch=size == PHONE)
        # The warning lasts the clock's last 10 s (1 s here): seen by the page itself, so that a
        # test slowed down meanwhile does not miss it.
        page.add_init_script(LOW_SEEN)
        page.goto(fast_clocks + "/")
        shown.append(page)
    made = create(fast_clocks, {"mode": "duel", "clock": "1+0", "seats": SEATS})
    gid, tokens = made["id"], made["tokens"]
    # Both place their first tile, and Ann her second: Bob's clock alone runs (a minute: 6 s here).
    decide_elsewhere(fast_clocks, gid, [tokens["0"], tokens["1"]], most=3)
    for page in shown:
        page.goto(f"{fast_clocks}/game/{gid}#t={tokens['1']}")
    for page in shown:
        page.locator(".clocks .clock.running").wait_for()
        first = faces(page)
        assert [f["seat"] for f in first] == [0, 1]
        assert "running" in str(first[1]["cls"]) and "running" not in str(first[0]["cls"])
        page.wait_for_timeout(400)
        later = faces(page)
        assert int(str(later[1]["ms"])) < int(str(first[1]["ms"]))  # Bob's ticks down ...
        assert later[0]["ms"] == first[0]["ms"]  # ... Ann's stands
    for page in shown:
        page.wait_for_function("window.lowSeen === true")  # under 10 s (of the clock's time): warned
        assert axe_on_clocks(page) == []
        page.locator("#clock-end").wait_for(timeout=20_000)
        assert page.locator("#clock-end").text_content() == "Bob lost on time: Ann wins"
        end = faces(page)
        assert "flagged" in str(end[1]["cls"]) and end[1]["time"] == "0:00.0"
        assert page.evaluate("document.body.dataset.over") == "1"
    state = HTTP.get(f"{fast_clocks}/api/games/{gid}").json()
    assert state["end"] == "time" and state["winner"] == 0
    assert not pages.errors


def test_a_seat_resigns_with_its_button(fast_clocks: str, pages: Pages) -> None:
    made = create(fast_clocks, {"mode": "duel", "clock": "15+10", "seats": SEATS})
    gid, tokens = made["id"], made["tokens"]
    decide_elsewhere(fast_clocks, gid, [tokens["0"], tokens["1"]], most=2)
    page = pages.wide()
    page.goto(f"{fast_clocks}/game/{gid}#t={tokens['0']}")
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator("#resign-button").click()
    page.locator("#clock-end").wait_for()
    assert page.locator("#clock-end").text_content() == "Ann resigned: Bob wins"
    assert page.locator("#resign-button").count() == 0
    assert HTTP.get(f"{fast_clocks}/api/games/{gid}").json()["end"] == "resign"
    assert not pages.errors


def test_a_game_whose_first_move_never_comes_is_aborted_unrated(fast_clocks: str, pages: Pages) -> None:
    made = create(fast_clocks, {"mode": "duel", "clock": "3+2", "seats": SEATS})
    gid, tokens = made["id"], made["tokens"]
    page = pages.phone()
    page.goto(f"{fast_clocks}/game/{gid}#t={tokens['0']}")
    page.locator(".clocks .clock .clock-first:text-matches('first move: [0-9]+ s')").first.wait_for()
    assert axe_on_clocks(page) == []
    page.locator("#clock-end").wait_for(timeout=20_000)  # 30 s of the clock's time: 3 s here
    assert page.locator("#clock-end").text_content() == "Aborted: a first move never came (not rated)"
    state = HTTP.get(f"{fast_clocks}/api/games/{gid}").json()
    assert state["end"] == "aborted" and state["winner"] is None and state["over"]
    assert not pages.errors


def test_a_server_restarted_mid_game_resumes_both_clocks_within_a_second(
    tmp_path: Path, pages: Pages
) -> None:
    from dorf.testing.net import free_port

    db, port = tmp_path / "dorf.sqlite3", free_port()
    with launch(db, process=True, port=port, ai_delay=0) as server:
        made = create(server.url, {"mode": "duel", "clock": "10+5", "seats": SEATS})
        gid, tokens = made["id"], made["tokens"]
        decide_elsewhere(server.url, gid, [tokens["0"], tokens["1"]], most=3)  # Bob's runs
        page = pages.wide()
        page.goto(f"{server.url}/game/{gid}#t={tokens['1']}")
        page.locator(".clocks .clock.running").wait_for()
        page.wait_for_timeout(300)
        before, at = faces(page), page.evaluate("Date.now()")
        server.kill()
    page.locator("#status.conn.bad").wait_for()  # the page lost the server
    # The server again on the same database and port (in the test's process: quicker to start).
    with launch(db, port=port, ai_delay=0):
        page.locator("#status.conn.ok").wait_for()  # and found it again: a new state
        page.wait_for_timeout(300)
        after, now = faces(page), page.evaluate("Date.now()")
    ran = now - at
    assert abs(int(str(after[1]["ms"])) - (int(str(before[1]["ms"])) - ran)) < 1000  # Bob's ran on
    assert abs(int(str(after[0]["ms"])) - int(str(before[0]["ms"]))) < 1000  # Ann's stood
    assert "running" in str(after[1]["cls"])
    assert not [e for e in pages.errors if "WebSocket" not in e and "ERR_CONNECTION_REFUSED" not in e]
