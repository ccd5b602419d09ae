"""The bitemporal chart of an attribute's history, drawn on the server as SVG (issue 14).

Valid time runs along x (when a value holds in the world), transaction time up y (when
the service believed it). Each row is a rectangle `[valid_from, valid_to) × [recorded_at,
retracted_at)` labelled with its value; an open end runs to the plot's edge with an
arrow. Late knowledge shows as a box that starts high (recorded late) but far left
(valid early); a correction as a box cut off at the top (retracted) with its
replacement above it.

Scales. x is linear in time between the earliest start and the latest end (open ends
and "now" included), with a margin on the right for open ends. y is ordinal: one equal
step per distinct transaction time (commits are seconds apart while valid time spans
years, so a linear y would crush them); the caption says so.

Readability from 1 to 200 rows: the plot grows with the number of steps up to a
cap; a label is drawn only where it fits inside its box and clears every label already
placed (truncated with "…" when only part fits); every box has a `<title>` (hover) and
the table beside the chart lists every row. Tick labels are thinned to stay apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import pairwise

from markupsafe import Markup, escape

from api.http.schemas.core import FactPublic
from api.web.timewords import moment

WIDTH = 960
LEFT, RIGHT, TOP, BOTTOM = 196, 36, 80, 72
LANE = TOP - 10
"""The baseline of the lane above the plot where values of boxes too narrow to hold
their label are written, at the box's left edge."""
LANE_CHARS = 16
"""Longest label written in the lane (longer ones end with "…")."""
THIN = 8.0
"""Boxes narrower than this (px) are drawn flat (no hatching) with a hairline edge."""
STEP_MAX, PLOT_MIN, PLOT_MAX = 30.0, 90.0, 1400.0
FONT, CHAR = 12, 6.8
"""Label font size (px) and the width of one character, estimated (px)."""
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 1, 1, tzinfo=UTC)
"""Valid times outside this range are drawn at the plot's edge as open."""
STYLES = ("active", "superseded", "invalidated", "retracted")


@dataclass(frozen=True, slots=True)
class Box:
    """One row placed on the plot (pixels), its style and its label."""

    x0: float
    x1: float
    y0: float
    y1: float
    style: str
    label: str
    title: str
    open_right: bool
    open_top: bool
    alt: bool = False


def style_of(row: FactPublic) -> str:
    """`retracted` for a row no longer believed, else its status."""
    if row.retracted_at is not None:
        return "retracted"
    return row.status if row.status in STYLES else "active"


def _clamp(t: datetime) -> datetime:
    return min(max(t, EARLIEST), LATEST)


def render(
    rows: Sequence[FactPublic],
    now: datetime,
    label: Callable[[FactPublic], str],
    title: str,
) -> Markup:
    """Draw `rows` as an SVG chart.

    Args:
        rows: history rows (any order), times aware UTC, open ends None.
        now: the current time (UTC), where open valid ends are drawn past.
        label: a row's value as text (names for relationship values).
        title: the chart's accessible name.

    Returns:
        The `<svg>` element, safe to put in a template.
    """
    if not rows:
        return Markup("")
    steps = sorted({r.recorded_at for r in rows} | {r.retracted_at for r in rows if r.retracted_at})
    index = {t: i for i, t in enumerate(steps)}
    n = len(steps)
    plot_h = min(PLOT_MAX, max(PLOT_MIN, n * STEP_MAX))
    step = plot_h / n
    height = TOP + plot_h + BOTTOM
    plot_w = WIDTH - LEFT - RIGHT
    starts = [_clamp(r.valid_from) for r in rows]
    ends = [_clamp(r.valid_to) for r in rows if r.valid_to is not None]
    lo = min(starts)
    hi = max([*ends, *starts, min(_clamp(now), max(starts) + timedelta(days=3650))])
    if hi <= lo:
        lo, hi = lo - timedelta(days=1), hi + timedelta(days=1)
    span = (hi - lo).total_seconds()
    inner = plot_w * 0.9  # the last tenth is where open ends run out

    def x(t: datetime) -> float:
        return LEFT + inner * ((_clamp(t) - lo).total_seconds() / span)

    def y(i: float) -> float:
        return TOP + plot_h - i * step

    boxes: list[Box] = []
    for r in rows:
        top = index[r.retracted_at] if r.retracted_at else n
        x1 = LEFT + plot_w if r.valid_to is None or r.valid_to > LATEST else x(r.valid_to)
        value = label(r)
        tip = (
            f"{r.attribute} = {value}; valid {moment(r.valid_from, 'the beginning')} → "
            f"{moment(r.valid_to)}; recorded {moment(r.recorded_at)}"
            + (f", retracted {moment(r.retracted_at)}" if r.retracted_at else "")
            + f"; {style_of(r)}; source {r.source}"
        )
        boxes.append(
            Box(
                x(r.valid_from),
                max(x1, x(r.valid_from) + 2),
                y(top),
                y(index[r.recorded_at]),
                style_of(r),
                value,
                tip,
                r.valid_to is None,
                r.retracted_at is None,
                len(boxes) % 2 == 1,
            )
        )
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{WIDTH}" '
            f'height="{height:.0f}" viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
            'aria-labelledby="chart-title chart-desc">'
        ),
        f'<title id="chart-title">{escape(title)}</title>',
        (
            f'<desc id="chart-desc">{len(rows)} rows. Valid time runs left to right, '
            "transaction time bottom to top, one step per change. The table below lists "
            "every row.</desc>"
        ),
        _defs(),
        _legend(),
        _x_axis(lo, hi, x, plot_h, now),
        _y_axis(steps, y, step, plot_w),
    ]
    parts += [_box(b) for b in boxes]
    now_mark = _now_line(lo, hi, x, plot_h, now)
    parts.append(now_mark[0])
    inside, lane = _labels(boxes, now_mark[1])
    parts += inside + lane
    parts.append("</svg>")
    return Markup("".join(parts))


def _defs() -> str:
    return (
        "<defs>"
        '<pattern id="hatch-superseded" width="8" height="8" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="8" height="8" fill="#ececec"/>'
        '<line x1="0" y1="0" x2="0" y2="8" stroke="#9a9a9a" stroke-width="3"/></pattern>'
        '<pattern id="hatch-retracted" width="8" height="8" patternUnits="userSpaceOnUse">'
        '<rect width="8" height="8" fill="#fff4f5"/>'
        '<path d="M0 0L8 8M8 0L0 8" stroke="#e3a3ad" stroke-width="1"/></pattern>'
        '<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="#333"/></marker>'
        "</defs>"
    )


def _legend() -> str:
    items = [
        ("active", "current"),
        ("superseded", "superseded"),
        ("invalidated", "forgotten (invalidated)"),
        ("retracted", "no longer believed (retracted)"),
    ]
    out = ['<g class="legend" aria-hidden="true">']
    xpos: float = LEFT
    for style, text in items:
        out.append(f'<rect class="box {style}" x="{xpos}" y="12" width="18" height="14"/>')
        out.append(f'<text x="{xpos + 24}" y="24" class="tick">{text}</text>')
        xpos += 40 + len(text) * CHAR
    out.append("</g>")
    return "".join(out)


def _box(b: Box) -> str:
    w, h = b.x1 - b.x0, max(b.y1 - b.y0, 1.0)
    thin = " thin" + (" alt" if b.alt else "") if w < THIN else ""
    out = [
        (
            f'<g><title>{escape(b.title)}</title><rect class="box row {b.style}{thin}" '
            f'x="{b.x0:.1f}" y="{b.y0:.1f}" width="{w:.1f}" height="{h:.1f}"/>'
        )
    ]
    if b.open_right:
        ym = b.y0 + h / 2
        out.append(
            f'<line class="open" x1="{b.x1 - 14:.1f}" y1="{ym:.1f}" x2="{b.x1 - 2:.1f}" '
            f'y2="{ym:.1f}" marker-end="url(#arrow)"/>'
        )
    out.append("</g>")
    return "".join(out)


def _fits(box: tuple[float, float, float, float], placed: list[tuple[float, ...]]) -> bool:
    return all(box[2] < p[0] or p[2] < box[0] or box[3] < p[1] or p[3] < box[1] for p in placed)


def _labels(boxes: list[Box], now_x: float | None) -> tuple[list[str], list[str]]:
    """Labels inside their boxes, largest boxes first, where they fit and clear every label
    already placed (truncated with "…" when only part fits); then, for boxes still believed
    whose label did not fit inside, a label in the lane above the plot at the box's left
    edge, left to right, skipping any that would overlap the previous one or "now"."""
    placed: list[tuple[float, ...]] = []
    inside, done = [], set()
    for i, b in sorted(
        enumerate(boxes), key=lambda ib: -(ib[1].x1 - ib[1].x0) * (ib[1].y1 - ib[1].y0)
    ):
        room = b.x1 - b.x0 - 22 if b.open_right else b.x1 - b.x0 - 8
        if b.y1 - b.y0 < FONT + 4 or room < 4 * CHAR:
            continue
        text = b.label if len(b.label) * CHAR <= room else b.label[: int(room / CHAR) - 1] + "…"
        x0, y0 = b.x0 + 4, b.y1 - FONT - 5
        box = (x0, y0, x0 + len(text) * CHAR, y0 + FONT + 2)
        if not _fits(box, placed):
            continue
        placed.append(box)
        done.add(i)
        inside.append(f'<text class="label" x="{x0:.1f}" y="{b.y1 - 6:.1f}">{escape(text)}</text>')
    lane: list[str] = []
    taken: list[tuple[float, ...]] = []
    if now_x is not None:
        taken.append((now_x - 2, LANE - FONT, now_x + 3 * CHAR + 6, LANE + 2))
    # The current values first (they reach the top and have no valid end), then left to right.
    order = sorted(enumerate(boxes), key=lambda ib: (not ib[1].open_right, ib[1].x0))
    for i, b in order:
        if i in done or not b.open_top:
            continue
        text = b.label if len(b.label) <= LANE_CHARS else b.label[: LANE_CHARS - 1] + "…"
        box = (b.x0, LANE - FONT, b.x0 + len(text) * CHAR + 6, LANE + 2)
        if box[2] > WIDTH or not _fits(box, taken):
            continue
        taken.append(box)
        lane.append(
            f'<line class="lead" x1="{b.x0:.1f}" y1="{LANE + 2}" x2="{b.x0:.1f}" y2="{TOP}"/>'
            f'<text class="label lane" x="{b.x0 + 2:.1f}" y="{LANE:.1f}">{escape(text)}</text>'
        )
    return inside, lane


def _x_axis(
    lo: datetime, hi: datetime, x: Callable[[datetime], float], plot_h: float, now: datetime
) -> str:
    base = TOP + plot_h
    out = [f'<line class="axis" x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}"/>']
    span = (hi - lo).total_seconds()
    count = 6
    last = -math.inf
    for i in range(count + 1):
        t = lo + timedelta(seconds=span * i / count)
        px = x(t)
        text = t.strftime("%Y-%m-%d") if span > 3 * 86400 else t.strftime("%m-%d %H:%M")
        if px - last < len(text) * CHAR + 8:
            continue
        last = px
        out.append(f'<line class="grid" x1="{px:.1f}" y1="{TOP}" x2="{px:.1f}" y2="{base}"/>')
        out.append(
            f'<text class="tick" x="{px:.1f}" y="{base + 20}" text-anchor="middle">{text}</text>'
        )
    out.append(
        f'<text class="axis-title" x="{LEFT + (WIDTH - LEFT - RIGHT) / 2:.0f}" y="{base + 46}" '
        'text-anchor="middle">valid time: when it holds in the world →</text>'
    )
    return "".join(out)


def _now_line(
    lo: datetime, hi: datetime, x: Callable[[datetime], float], plot_h: float, now: datetime
) -> tuple[str, float | None]:
    """A dashed line at now on the valid axis, over the boxes, when now is on the plot;
    and its x (None when off the plot)."""
    if not lo <= now <= hi:
        return "", None
    px = x(now)
    return (
        f'<line class="now" x1="{px:.1f}" y1="{LANE - FONT}" x2="{px:.1f}" y2="{TOP + plot_h}"/>'
        f'<text class="tick" x="{px + 3:.1f}" y="{LANE:.1f}">now</text>'
    ), px


def tick_texts(times: list[datetime]) -> list[str]:
    """Labels of transaction-time ticks: the date only where it changes (and first), the
    time to the second, or to the millisecond where two neighbours share a second."""
    seconds = [t.astimezone(UTC).replace(microsecond=0) for t in times]
    fine = any(a == b for a, b in pairwise(seconds))
    out, last_day = [], None
    for t in times:
        utc = t.astimezone(UTC)
        text = utc.strftime("%H:%M:%S") + (f".{utc.microsecond // 1000:03d}" if fine else "")
        if utc.date() != last_day:
            text = f"{utc.date().isoformat()} {text}"
            last_day = utc.date()
        out.append(text)
    return out


def _y_axis(steps: list[datetime], y: Callable[[float], float], step: float, plot_w: float) -> str:
    """Ticks at the transaction times, thinned so labels stay at least a line apart."""
    out = [f'<line class="axis" x1="{LEFT}" y1="{y(0)}" x2="{LEFT}" y2="{y(len(steps))}"/>']
    every = max(1, math.ceil((FONT + 4) / step))
    shown = [i for i in range(len(steps)) if i % every == 0]
    if shown[-1] != len(steps) - 1 and step * (len(steps) - 1 - shown[-1]) >= FONT + 4:
        shown.append(len(steps) - 1)
    for i, text in zip(shown, tick_texts([steps[i] for i in shown]), strict=True):
        py = y(i)
        out.append(
            f'<line class="grid" x1="{LEFT}" y1="{py:.1f}" x2="{LEFT + plot_w}" y2="{py:.1f}"/>'
        )
        out.append(
            f'<text class="tick" x="{LEFT - 6}" y="{py + 4:.1f}" text-anchor="end">'
            f"{escape(text)} UTC</text>"
        )
    if step >= 2 * (FONT + 4):
        out.append(
            f'<text class="tick" x="{LEFT - 6}" y="{y(len(steps)) + 12:.1f}" text-anchor="end">'
            "still believed ↑</text>"
        )
    out.append(
        f'<text class="axis-title" x="{LEFT - 6}" y="{TOP - 22}" text-anchor="end">'
        "transaction time ↑</text>"
    )
    return "".join(out)
