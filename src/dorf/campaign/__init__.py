"""The cooperative campaign: games kept across sessions, the campaign sheet, progress and pictures.

A satellite of the rules engine: it reads finished games (typed-in pads or
``dorf-record/1`` files) and never changes the rules core.

- :mod:`dorf.campaign.pad`: a game's score pad and what the box allows.
- :mod:`dorf.campaign.sheet`: the campaign sheet as data (bands, track, achievements).
- :mod:`dorf.campaign.store`: :class:`Campaigns`, the campaigns in the shared SQLite database.
- :mod:`dorf.campaign.svg`: the score history and the track as SVG.
- :mod:`dorf.campaign.cli`: ``dorf campaign``.
"""

from __future__ import annotations

from dorf.campaign.pad import Limits, PadError, read_pad
from dorf.campaign.sheet import Sheet, SheetError, default_sheet, load_sheet, parse_sheet
from dorf.campaign.store import CampaignError, Campaigns, CampaignView, Change, read_finished_record

__all__ = [
    "CampaignError",
    "CampaignView",
    "Campaigns",
    "Change",
    "Limits",
    "PadError",
    "Sheet",
    "SheetError",
    "default_sheet",
    "load_sheet",
    "parse_sheet",
    "read_finished_record",
    "read_pad",
]
