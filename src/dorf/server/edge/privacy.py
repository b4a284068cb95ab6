"""Privacy and the one-time sign-in links (``docs/server.md``, "Privacy"):

- ``GET /privacy``: what the server stores, why and for how long: :data:`DEFAULT_NOTICE`, or the
  operator's own file (``dorf serve --privacy-file FILE``): a file named ``*.html`` or ``*.htm`` is
  the operator's HTML, put in the page as it is (the operator is trusted: it is their server);
  any other file is text in a little Markdown (``#`` headings, ``-`` items, paragraphs between
  blank lines, ``**bold**``), shown escaped: no markup of its own gets through;
- ``GET /api/me/export``: everything stored of this browser's player, as a JSON download;
- ``POST /api/me/delete`` (``{"name"}``, the name typed again): the account and its data deleted,
  its games kept with its seats anonymised;
- ``GET /sign-in/LINK``: a page with one button, whose ``POST /sign-in/LINK`` uses the link
  ``dorf admin reset-password`` printed (a link previewer that fetches the page uses nothing).
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from dorf.server.edge.limits import allowed_origin
from dorf.server.players.privacy import delete_own, export, redeem_link
from dorf.server.protocol.messages import ProtocolError, need_object

if TYPE_CHECKING:
    from dorf.server.config import ServerConfig
    from dorf.server.players.service import Players
    from dorf.server.storage.base import Storage

#: What ``/privacy`` says unless the operator gives a file of its own (the little Markdown of
#: :func:`markdown_html`).
DEFAULT_NOTICE = """\
# Privacy

This site runs dorf, a program for playing the Dorfromantik board games. This page says what the
site stores about you, why, and for how long. Its operator may have replaced this text with
their own.

## What is stored, why, for how long

- **A player**, made the first time you do something that needs one (take a seat, seek a game,
  play the daily challenge, choose a name): a name, when it was made, whether it is a bot account.
  A player that never plays is removed after 7 days; otherwise it is kept until you delete it.
- **Your browser's sign-in**: a cookie holding a long random secret; the site keeps only a hash
  of it, one per device, until you sign out (or sign out everywhere, or change your password).
- **A password**, if you set one: only its argon2id hash, to let you sign in on another device.
- **API tokens** for bots, if you make any: their hash, a label, when each was made and last used,
  until you revoke them.
- **Games**: the seats' names, every move with its time, how the game ended, the coach's
  lessons once asked for, and what the seated players said at the table (each line with its
  seat's name and time). Kept for good, so that games can be replayed and ratings checked.
  Deleting your account keeps your games, with your seats (and your lines at the table) renamed
  "Deleted player".
- **Ratings** and their history (per rated game: opponent, result, rating before and after), and
  **daily challenge results** (day, score, place): kept with your player until you delete it.
- **A name you give up** by renaming is held for you for 30 days, so nobody else takes it at once.
- **Network addresses** are used only for limits against abuse (new players, games, sign-ins a
  minute; connections per address). One server on its own keeps them in memory only, for a
  minute or while you are connected. Several servers sharing one database keep them there
  just as long (a request counter for about a minute, a connection while it lasts). An open game
  listed in the lobby keeps the address that listed it while it is listed (at most 30 minutes
  with a real-time clock, a day otherwise). The server's log leaves addresses out unless its
  operator asks for them.

## Your data

On your player's page you can download everything stored about you (as JSON) and delete your
account. Nothing is shared with anyone else; the site sets no cookie but the sign-in one and
loads nothing from other sites.
"""

_BOLD = re.compile(r"\*\*(.+?)\*\*")


def _inline(text: str) -> str:
    return _BOLD.sub(r"<b>\1</b>", html.escape(text))


def markdown_html(text: str) -> str:
    """Little Markdown as HTML, every character of it escaped first.

    >>> markdown_html("# A <b>\\n\\nOne\\ntwo.\\n\\n- **x**\\n  more\\n- y")
    '<h1>A &lt;b&gt;</h1>\\n<p>One two.</p>\\n<ul>\\n<li><b>x</b> more</li>\\n<li>y</li>\\n</ul>'
    """
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        heading = re.fullmatch(r"(#{1,3})\s+(.*)", lines[0])
        if heading and len(lines) == 1:
            level = len(heading.group(1))
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif lines[0].startswith("- "):
            items: list[list[str]] = []
            for line in lines:
                if line.startswith("- "):
                    items.append([line[2:]])
                else:
                    items[-1].append(line)
            out.append("<ul>\n" + "\n".join(f"<li>{_inline(' '.join(i))}</li>" for i in items) + "\n</ul>")
        else:
            out.append(f"<p>{_inline(' '.join(lines))}</p>")
    return "\n".join(out)


def notice_html(path: Path | None) -> str:
    """The body of ``/privacy``: the operator's file (``*.html``/``*.htm`` as it is, any other
    escaped as little Markdown), or :data:`DEFAULT_NOTICE`.  OSError/UnicodeError if it cannot be
    read."""
    if path is None:
        return markdown_html(DEFAULT_NOTICE)
    text = path.read_text(encoding="utf-8")
    return text if path.suffix.lower() in (".html", ".htm") else markdown_html(text)


def page(title: str, body: str) -> str:
    """A small page of the site's look: the header's link home, ``body`` (HTML)."""
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)} · dorf</title>\n"
        '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">\n'
        '<link rel="stylesheet" href="/static/style.css">\n</head>\n<body>\n'
        '<header class="topbar"><a class="brand" href="/">'
        '<img src="/static/favicon.svg" alt="" width="24" height="24"> dorf</a></header>\n'
        f'<main id="app" class="notice">\n{body}\n</main>\n</body>\n</html>\n'
    )


class PrivacyParts:
    """What these routes use of the server (the app factory hands them the composition root's)."""

    storage: Storage
    players: Players
    config: ServerConfig


#: Exports (``GET /api/me/export``) an address may ask for in a minute.
EXPORTS_PER_MINUTE = 6


def add_privacy_routes(
    app: FastAPI,
    hub: Callable[[], Any],
    body_of: Callable[[Request], Awaitable[Any]],
    config: ServerConfig,
    too_many: Callable[[Request, int, str], Awaitable[JSONResponse | None]],
) -> None:
    """The privacy page, a player's export and deletion, and the sign-in links' page on ``app``
    (``hub()`` the server's parts once it runs, :class:`PrivacyParts`)."""
    notice = page("Privacy", notice_html(config.privacy_file))  # read once: a bad file stops serve

    @app.get("/privacy", include_in_schema=False)
    async def privacy() -> HTMLResponse:
        return HTMLResponse(notice)

    @app.get("/api/me/export")
    async def export_me(request: Request) -> JSONResponse:
        parts = hub()
        player = await parts.players.of_request(request, None)
        # A player's whole history is read: a few a minute from an address (EXPORTS_PER_MINUTE).
        refused = await too_many(request, EXPORTS_PER_MINUTE, "exports")
        if refused is not None:
            return refused
        data = await export(parts.storage, player)
        headers = {"Content-Disposition": f'attachment; filename="dorf-{player.name}.json"'}
        return JSONResponse(data, headers=headers)

    @app.post("/api/me/delete")
    async def delete_me(request: Request, response: Response) -> dict[str, Any]:
        data = need_object(await body_of(request), "a deletion")
        parts = hub()
        player = await parts.players.of_request(request, None)
        await delete_own(request, response, parts.storage, player, data)
        return {"deleted": True}

    @app.get("/sign-in/{link}", include_in_schema=False)
    async def sign_in_page(link: str) -> HTMLResponse:
        body = (
            "<h1>Sign in</h1>\n<p>This link signs this browser in once, as the player it was made"
            " for; then it is used up.</p>\n"
            f'<form method="post" action="/sign-in/{html.escape(link, quote=True)}">'
            '<button type="submit" id="use-link">Sign in</button></form>'
        )
        return HTMLResponse(page("Sign in", body), headers={"Cache-Control": "no-store"})

    @app.post("/sign-in/{link}", include_in_schema=False)
    async def use_link(request: Request, link: str) -> Response:
        if not allowed_origin(
            request.headers.get("origin"), request.headers.get("host"), config.allowed_hosts, config.origins
        ):
            raise ProtocolError("bad-origin", "this request comes from a page of another site", 403)
        answer = RedirectResponse("/", status_code=303)
        try:
            player = await redeem_link(hub().players, request, answer, link)
        except ProtocolError as exc:
            body = f'<h1>Sign in</h1>\n<p>{html.escape(exc.message)}.</p>\n<p><a href="/">Home</a></p>'
            return HTMLResponse(page("Sign in", body), status_code=exc.status)
        answer.headers["Location"] = "/@/" + player.name  # names are [A-Za-z0-9_-]
        return answer


__all__ = ["DEFAULT_NOTICE", "add_privacy_routes", "markdown_html", "notice_html"]
