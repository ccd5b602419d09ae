"""The bitemporal chart (api/web/chart.py): pure, no store. Readable with 1 row and with
200: every row drawn, labels never overlap each other and stay inside their boxes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from itertools import pairwise

from api.http.schemas.core import FactPublic
from api.web import chart

T0 = datetime(2024, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 12, 1, tzinfo=UTC)
NS = {"s": "http://www.w3.org/2000/svg"}


def row(
    value: str,
    vf: datetime,
    vt: datetime | None,
    rec: datetime,
    ret: datetime | None = None,
    status: str = "active",
) -> FactPublic:
    return FactPublic(
        id=f"f-{value}-{rec.timestamp()}",
        entity_id="e",
        attribute="location",
        value=value,
        object_id=None,
        cardinality="one",
        valid_from=vf,
        valid_to=vt,
        recorded_at=rec,
        retracted_at=ret,
        status=status,
        source="user_edit",
        evidence=None,
        reason=None,
        confidence=1.0,
    )


def draw(rows: list[FactPublic]) -> ET.Element:
    svg = chart.render(rows, NOW, lambda r: str(r.value), "test chart")
    return ET.fromstring(str(svg))


def boxes(svg: ET.Element) -> list[ET.Element]:
    return [
        r
        for r in svg.iter("{http://www.w3.org/2000/svg}rect")
        if "row" in r.get("class", "").split()
    ]


def labels(svg: ET.Element) -> list[ET.Element]:
    return [
        t
        for t in svg.iter("{http://www.w3.org/2000/svg}text")
        if "label" in (t.get("class") or "").split()
    ]


def test_one_row_is_a_labelled_open_box() -> None:
    """One open row: one box to the plot's right edge with an arrow, labelled, and a tick."""
    svg = draw([row("Paris", T0, None, T0)])
    (box,) = boxes(svg)
    assert float(box.get("x")) + float(box.get("width")) == chart.WIDTH - chart.RIGHT
    assert [t.text for t in labels(svg)] == ["Paris"]
    assert float(box.get("height")) >= chart.PLOT_MIN - 1
    assert 'marker-end="url(#arrow)"' in ET.tostring(svg, encoding="unicode").replace("ns0:", "")


def test_styles_follow_status_and_retraction() -> None:
    """Superseded, invalidated and retracted rows each get their own style."""
    t1, t2 = T0 + timedelta(seconds=1), T0 + timedelta(seconds=2)
    rows = [
        row("Paris", T0, None, T0, ret=t1),
        row("Paris", T0, T0 + timedelta(days=150), t1, status="superseded"),
        row("Berlin", T0 + timedelta(days=150), T0 + timedelta(days=300), t2, status="invalidated"),
    ]
    styles = sorted(b.get("class").split()[-1] for b in boxes(draw(rows)))
    assert styles == ["invalidated", "retracted", "superseded"]


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1])


def test_two_hundred_rows_draw_every_box_and_no_label_collides() -> None:
    """200 rows (a value a week, each recorded late): 200 boxes; labels inside their own
    boxes, never overlapping; the plot grows but stays bounded; y ticks stay apart."""
    rows = []
    for i in range(200):
        start = T0 + timedelta(days=7 * i)
        rec = T0 + timedelta(days=400, seconds=i)
        rows.append(row(f"city {i}", start, start + timedelta(days=7) if i < 199 else None, rec))
    svg = draw(rows)
    assert len(boxes(svg)) == 200
    placed = []
    for t in labels(svg):
        x, y = float(t.get("x")), float(t.get("y"))
        placed.append((x, y - chart.FONT, x + len(t.text) * chart.CHAR, y))
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            assert not _overlap(a, b)
    assert float(svg.get("height")) <= chart.TOP + chart.PLOT_MAX + chart.BOTTOM
    ticks = [
        float(t.get("y"))
        for t in svg.iter("{http://www.w3.org/2000/svg}text")
        if t.get("text-anchor") == "end" and (t.text or "").endswith(" UTC")
    ]
    assert len(ticks) >= 2
    assert min(abs(a - b) for a, b in pairwise(ticks)) >= chart.FONT
    lane = [t.text for t in labels(svg) if float(t.get("y")) < chart.TOP]
    assert "city 199" in lane and len(lane) >= 5  # the current value, and a value every so often


def test_tick_labels_name_the_day_once_and_split_seconds() -> None:
    """Tick labels carry the date where it changes and milliseconds when two share a second."""
    t = datetime(2026, 12, 1, 15, 33, 27, 120000, tzinfo=UTC)
    texts = chart.tick_texts([t, t + timedelta(milliseconds=300), t + timedelta(days=1)])
    assert texts == ["2026-12-01 15:33:27.120", "15:33:27.420", "2026-12-02 15:33:27.120"]
    assert chart.tick_texts([t, t + timedelta(seconds=2)]) == ["2026-12-01 15:33:27", "15:33:29"]


def test_values_are_escaped() -> None:
    """A value is text, never markup."""
    svg = str(
        chart.render([row("<script>x</script>", T0, None, T0)], NOW, lambda r: str(r.value), "t")
    )
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_late_knowledge_sits_above_and_left() -> None:
    """An older fact learned later is drawn higher (later transaction time) than a newer
    fact learned first, and further left (earlier valid time)."""
    first = row("Berlin", T0 + timedelta(days=100), None, T0)
    late = row("Paris", T0, T0 + timedelta(days=100), T0 + timedelta(seconds=5))
    b_first, b_late = boxes(draw([first, late]))
    assert float(b_late.get("x")) < float(b_first.get("x"))
    assert float(b_late.get("y")) + float(b_late.get("height")) < float(b_first.get("y")) + float(
        b_first.get("height")
    )
