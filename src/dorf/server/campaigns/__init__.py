"""The group's campaigns on the site (issue 63), a feature at the level of the lobby and the
daily challenge: :mod:`.desk` (members, "Next game", games recorded by themselves), :mod:`.ledger`
(a campaign's rules over its rows, one transaction each), :mod:`.kept` (the campaigns of before,
copied once), :mod:`.finished` (what a campaign records of a finished game), :mod:`.routes` (the
HTTP API).  The rows are :mod:`dorf.server.storage.campaigns`; the rules are the terminal's
(:mod:`dorf.campaign`).
"""

from __future__ import annotations

from dorf.server.campaigns.finished import SEALED, finished_game, record_request

__all__ = ["SEALED", "finished_game", "record_request"]
