"""Pictures of a campaign as SVG text, written with the standard library.

:func:`score_plot_svg` draws the score history over the sheet's score bands;
:func:`track_svg` draws the track with what is checked, reached and unlocked.
Both return a complete standalone SVG document (a web page can inline it).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from xml.sax.saxutils import escape

from dorf.campaign.sheet import CIRCLE, FORK, GREEN, HEART, Band, Sheet
from dorf.campaign.store import CampaignView, GameEntry, Progress

FONT = "font-family='sans-serif'"
INK = "#333"
PENCIL = "#1d4f91"
GREEN_ON, GREEN_OFF = "#4c9a2a", "#e3f1dc"
HEART_ON = "#c8102e"
WAIT = "#e07b00"


def _num(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _text(x: float, y: float, body: str, size: int = 11, anchor: str = "middle", extra: str = "") -> str:
    return (
        f"<text x='{_num(x)}' y='{_num(y)}' font-size='{size}' text-anchor='{anchor}' {FONT} fill='{INK}'"
        f"{extra}>{escape(body)}</text>"
    )


def _document(width: float, height: float, title: str, body: Iterable[str]) -> str:
    head = (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{_num(width)}' height='{_num(height)}'"
        f" viewBox='0 0 {_num(width)} {_num(height)}' role='img'>\n"
        f"<title>{escape(title)}</title>\n"
        f"<rect width='100%' height='100%' fill='white'/>\n"
    )
    return head + "\n".join(body) + "\n</svg>\n"


def _nice_step(span: int, ticks: int = 6) -> int:
    raw = max(1, span / ticks)
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= raw:
            return int(factor * magnitude)
    return int(10 * magnitude)


def score_plot_svg(name: str, games: Sequence[GameEntry], bands: Sequence[Band]) -> str:
    """The totals of ``games`` in order, over the score bands (how many circles each score checks)."""
    width, height = 720.0, 380.0
    left, right, top, bottom = 56.0, 120.0, 44.0, 48.0
    plot_w, plot_h = width - left - right, height - top - bottom
    totals = [g.total for g in games]
    highest = max([*totals, 50])
    step = _nice_step(highest)
    y_max = step * math.ceil(highest * 1.05 / step)

    def y_of(score: float) -> float:
        return top + plot_h - plot_h * score / y_max

    def x_of(index: int) -> float:
        if len(games) <= 1:
            return left + plot_w / 2
        return left + plot_w * index / (len(games) - 1)

    out = [_text(left, 24, f"{name}: scores", 15, "start", " font-weight='bold'")]
    shown = [b for b in bands if b.min_score < y_max]
    for index, band in enumerate(shown):
        upper = shown[index + 1].min_score if index + 1 < len(shown) else y_max
        shade = "#f4f7fb" if index % 2 == 0 else "#ffffff"
        out.append(
            f"<rect x='{_num(left)}' y='{_num(y_of(upper))}' width='{_num(plot_w)}'"
            f" height='{_num(y_of(band.min_score) - y_of(upper))}' fill='{shade}'/>"
        )
        label = f"{band.min_score}+: {band.circles} circle{'s' if band.circles != 1 else ''}"
        middle = (y_of(band.min_score) + y_of(upper)) / 2 + 4
        if y_of(band.min_score) - y_of(upper) >= 11:
            out.append(_text(left + plot_w + 8, middle, label, 10, "start"))
        if band.min_score > 0:
            out.append(
                f"<line x1='{_num(left)}' y1='{_num(y_of(band.min_score))}' x2='{_num(left + plot_w)}'"
                f" y2='{_num(y_of(band.min_score))}' stroke='#b8c4d6' stroke-dasharray='4 3'/>"
            )
    for value in range(0, y_max + 1, step):
        y = y_of(value)
        out.append(
            f"<line x1='{_num(left - 4)}' y1='{_num(y)}' x2='{_num(left)}' y2='{_num(y)}' stroke='{INK}'/>"
        )
        out.append(_text(left - 8, y + 4, str(value), 10, "end"))
    out.append(
        f"<path d='M{_num(left)} {_num(top)} V{_num(top + plot_h)} H{_num(left + plot_w)}'"
        f" fill='none' stroke='{INK}'/>"
    )
    out.append(_text(left + plot_w / 2, height - 10, "game", 11))
    out.append(
        _text(
            16,
            top + plot_h / 2,
            "score",
            11,
            "middle",
            f" transform='rotate(-90 16 {_num(top + plot_h / 2)})'",
        )
    )
    if not games:
        out.append(_text(left + plot_w / 2, top + plot_h / 2, "no games recorded yet", 13))
        return _document(width, height, f"{name}: scores", out)
    label_every = max(1, math.ceil(len(games) / 20))
    for index, game in enumerate(games):
        if index % label_every == 0 or index == len(games) - 1:
            x = x_of(index)
            out.append(
                f"<line x1='{_num(x)}' y1='{_num(top + plot_h)}' x2='{_num(x)}' y2='{_num(top + plot_h + 4)}'"
                f" stroke='{INK}'/>"
            )
            out.append(_text(x, top + plot_h + 16, str(game.number), 10))
    points = " ".join(f"{_num(x_of(i))},{_num(y_of(t))}" for i, t in enumerate(totals))
    out.append(f"<polyline points='{points}' fill='none' stroke='{PENCIL}' stroke-width='2'/>")
    for index, game in enumerate(games):
        circles = f"{game.circles} circle{'s' if game.circles != 1 else ''}"
        tip = f"game {game.number}, {game.played}: {game.total} ({circles})"
        out.append(
            f"<circle cx='{_num(x_of(index))}' cy='{_num(y_of(game.total))}' r='4' fill='{PENCIL}'>"
            f"<title>{escape(tip)}</title></circle>"
        )
    best = max(totals)
    out.append(_text(left + plot_w, top - 8, f"best {best}, mean {sum(totals) / len(totals):.1f}", 11, "end"))
    return _document(width, height, f"{name}: scores", out)


def _hexagon(x: float, y: float, r: float) -> str:
    corners = [
        (x + r * math.cos(math.radians(60 * k + 30)), y + r * math.sin(math.radians(60 * k + 30)))
        for k in range(6)
    ]
    return " ".join(f"{_num(cx)},{_num(cy)}" for cx, cy in corners)


def _heart(x: float, y: float, r: float) -> str:
    return (
        f"M{_num(x)} {_num(y + r)} "
        f"C{_num(x - 1.6 * r)} {_num(y)} {_num(x - 0.9 * r)} {_num(y - 1.2 * r)} "
        f"{_num(x)} {_num(y - 0.45 * r)} "
        f"C{_num(x + 0.9 * r)} {_num(y - 1.2 * r)} {_num(x + 1.6 * r)} {_num(y)} {_num(x)} {_num(y + r)} Z"
    )


def _chevron(x1: float, y1: float, x2: float, y2: float, colour: str) -> str:
    """A small arrowhead half-way along an edge: which way the track runs."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    mx, my = (x1 + x2) / 2 + 3 * ux, (y1 + y2) / 2 + 3 * uy
    back, side = 6.0, 4.0
    points = [
        (mx, my),
        (mx - back * ux + side * uy, my - back * uy - side * ux),
        (mx - back * ux - side * uy, my - back * uy + side * ux),
    ]
    return f"<polygon points='{' '.join(f'{_num(x)},{_num(y)}' for x, y in points)}' fill='{colour}'/>"


def track_svg(name: str, sheet: Sheet, progress: Progress) -> str:
    """The track as laid out by the sheet: checked circles crossed in pencil, reached green
    hexes and hearts filled, the next node ringed, a waiting fork and its branches in orange."""
    cell_w, cell_h, margin, top = 46.0, 66.0, 40.0, 56.0
    cols = max(c for c, _ in sheet.places.values()) + 1
    rows = max(r for _, r in sheet.places.values()) + 1
    width = max(2 * margin + (cols - 1) * cell_w + 40, 560.0)
    legend_y = top + (rows - 1) * cell_h + 54
    height = legend_y + 40

    def at(node: str) -> tuple[float, float]:
        col, row = sheet.places[node]
        return margin + col * cell_w, top + row * cell_h

    reached = set(progress.reached)
    taken_edges = set(itertools.pairwise(progress.reached))
    out = [
        _text(margin - 16, 24, f"{name}: track", 15, "start", " font-weight='bold'"),
        _text(
            width - 16,
            24,
            f"{progress.checked} of {progress.track_circles} circles checked"
            + (f", waiting at fork {progress.waiting}" if progress.waiting else "")
            + (f" ({progress.banked} banked)" if progress.banked else "")
            + (", track complete" if progress.at_end else ""),
            11,
            "end",
        ),
    ]
    for start, nexts in sheet.successors.items():
        for nxt in nexts:
            (x1, y1), (x2, y2) = at(start), at(nxt)
            walked = (start, nxt) in taken_edges
            colour = PENCIL if walked else "#9aa5b1"
            if start == progress.waiting:
                colour = WAIT
            out.append(
                f"<line x1='{_num(x1)}' y1='{_num(y1)}' x2='{_num(x2)}' y2='{_num(y2)}' stroke='{colour}'"
                f" stroke-width='{3 if walked else 1.5}'/>"
            )
            out.append(_chevron(x1, y1, x2, y2, colour))
    for node_id, node in sheet.nodes.items():
        x, y = at(node_id)
        done = node_id in reached
        tip = f"{node_id}: {node.kind}" + (f", unlocks {node.unlocks}" if node.unlocks else "")
        tip += " (reached)" if done else ""
        title = f"<title>{escape(tip)}</title>"
        if node.kind == CIRCLE:
            out.append(
                f"<circle cx='{_num(x)}' cy='{_num(y)}' r='11' fill='white' stroke='{INK}'"
                f" stroke-width='1.5'>{title}</circle>"
            )
        elif node.kind == HEART:
            fill = HEART_ON if done else "white"
            out.append(
                f"<path d='{_heart(x, y, 11)}' fill='{fill}' stroke='{HEART_ON}'"
                f" stroke-width='1.5'>{title}</path>"
            )
        elif node.kind == GREEN:
            fill = GREEN_ON if done else GREEN_OFF
            out.append(
                f"<polygon points='{_hexagon(x, y, 13)}' fill='{fill}' stroke='{GREEN_ON}'"
                f" stroke-width='1.5'>{title}</polygon>"
            )
        elif node.kind == FORK:
            fill = PENCIL if done else "white"
            d = 8
            out.append(
                f"<polygon points='{_num(x)},{_num(y - d)} {_num(x + d)},{_num(y)} {_num(x)},{_num(y + d)}"
                f" {_num(x - d)},{_num(y)}' fill='{fill}' stroke='{INK}' stroke-width='1.5'>{title}</polygon>"
            )
        if done and node.kind in (CIRCLE, HEART):
            s = 7
            cross = PENCIL if node.kind == CIRCLE else "white"
            out.append(
                f"<path d='M{_num(x - s)} {_num(y - s)} L{_num(x + s)} {_num(y + s)}"
                f" M{_num(x + s)} {_num(y - s)} L{_num(x - s)} {_num(y + s)}' stroke='{cross}'"
                " stroke-width='2.5' stroke-linecap='round'/>"
            )
        if node_id == progress.next and not progress.waiting:
            out.append(
                f"<circle cx='{_num(x)}' cy='{_num(y)}' r='17' fill='none' stroke='{PENCIL}'"
                " stroke-dasharray='3 3' stroke-width='1.5'/>"
            )
        if node_id == progress.waiting or node_id in progress.options:
            out.append(
                f"<circle cx='{_num(x)}' cy='{_num(y)}' r='17' fill='none' stroke='{WAIT}' stroke-width='2'/>"
            )
        if node.kind == FORK or sheet.fork_of(node_id) is not None:
            out.append(_text(x, y - 21, node_id, 9, "middle", " fill-opacity='0.7'"))
        if node.unlocks:
            first, sep, rest = node.unlocks.partition(" (")
            lines = [first, "(" + rest] if sep else [first]
            weight = " font-weight='bold'" if done else ""
            for index, line in enumerate(lines):
                out.append(_text(x, y + 27 + 10 * index, line, 9, "middle", weight))
    legend = [
        (f"<circle cx='0' cy='0' r='8' fill='white' stroke='{INK}'/>", "white circle"),
        (f"<path d='{_heart(0, 0, 8)}' fill='white' stroke='{HEART_ON}'/>", "heart"),
        (
            f"<polygon points='{_hexagon(0, 0, 9)}' fill='{GREEN_OFF}' stroke='{GREEN_ON}'/>",
            "green hex (free)",
        ),
        (f"<polygon points='0,-7 7,0 0,7 -7,0' fill='white' stroke='{INK}'/>", "fork (choose)"),
        (f"<path d='M-6 -6 L6 6 M6 -6 L-6 6' stroke='{PENCIL}' stroke-width='2.5'/>", "checked"),
    ]
    x = margin - 8
    for shape, label in legend:
        out.append(f"<g transform='translate({_num(x)} {_num(legend_y)})'>{shape}</g>")
        out.append(_text(x + 14, legend_y + 4, label, 10, "start"))
        x += 28 + 6.2 * len(label)
    return _document(width, height, f"{name}: track", out)


def campaign_score_svg(view: CampaignView) -> str:
    """:func:`score_plot_svg` for a campaign."""
    return score_plot_svg(view.info.name, view.games, view.sheet.bands)


def campaign_track_svg(view: CampaignView) -> str:
    """:func:`track_svg` for a campaign."""
    return track_svg(view.info.name, view.sheet, view.progress)


__all__ = ["campaign_score_svg", "campaign_track_svg", "score_plot_svg", "track_svg"]
