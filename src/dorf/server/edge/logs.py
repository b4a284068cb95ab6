"""What the server's logs leave out: the code of a seat invitation.

A link ``/join/ID/CODE`` is a live seat invitation: whoever has it takes the seat.  uvicorn's
access log (``dorf serve --log-level info``) writes the path of every request, so the page
request of an invited player would leave the code in the log for anyone who reads it.
:class:`RedactInvites`, a filter on the logger ``uvicorn.access`` (:func:`redact_access_log`),
writes ``/join/ID/…`` instead; the game's id stays (which game was joined is worth knowing).

>>> redact_path("/join/abc123/s3cr3t-c0de?x=1")
'/join/abc123/…?x=1'
>>> redact_path("/game/abc123"), redact_path("/join/abc123")
('/game/abc123', '/join/abc123')
"""

from __future__ import annotations

import logging
import re

#: The logger uvicorn writes one line a request to.
ACCESS_LOGGER = "uvicorn.access"
#: The code of an invitation in a path (what follows ``/join/ID/`` up to a query or the end).
INVITE = re.compile(r"(/join/[^/?#\s\"]+/)[^?#\s\"]+")


def redact_path(text: str) -> str:
    """``text`` with the code of every invitation link in it replaced by ``…``."""
    return INVITE.sub(r"\1…", text)


class RedactInvites(logging.Filter):
    """A logging filter that takes the invitation codes out of a record (its arguments, as
    uvicorn's access log passes the path, or its message): it lets every record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and any(isinstance(a, str) and "/join/" in a for a in args):
            record.args = tuple(redact_path(a) if isinstance(a, str) else a for a in args)
        if isinstance(record.msg, str) and "/join/" in record.msg:
            record.msg = redact_path(record.msg)
        return True


def redact_access_log() -> RedactInvites:
    """Put a :class:`RedactInvites` on uvicorn's access logger (once): the filter."""
    logger = logging.getLogger(ACCESS_LOGGER)
    for present in logger.filters:
        if isinstance(present, RedactInvites):
            return present
    added = RedactInvites()
    logger.addFilter(added)
    return added
