"""The Elo chart's points and the rows of its data table, built in Python at each visit.

Up to 200 of each: through the template engine (a ``{% url %}``, a ``date`` and a
``floatformat`` per row) they were 55 of the charts' 60 ms, which used to be paid once per
rated game because the rendered charts were cached. Only the data is cached now, and
markup is never read from the cache (web/caching.py), so they are formatted here, every
value escaped as ``format_html`` escapes it (``web.matches.list_rows`` formats the match list
likewise). The markup is the one the template wrote.
"""

from __future__ import annotations

from html import escape

from django.utils import timezone
from django.utils.safestring import SafeString

from web.links import match_url
from web.rounding import fixed

from .chart_svg import LineChart
from .charts import EloHistory


def _e(value: object) -> str:
    # What format_html does to each value (Django's escape() is this, behind a lazy-string
    # wrapper that costs more than the escaping itself: 1,600 calls a page here).
    return escape(str(value))


def elo_markers(chart: LineChart | None) -> SafeString:
    """A circle per point of the line, its tooltip a ``<title>``."""
    if chart is None:
        return SafeString("")
    return SafeString(
        "".join(
            f'<circle cx="{_e(m.x)}" cy="{_e(m.y)}" r="5"><title>{_e(m.label)}</title></circle>'
            for m in chart.markers
        )
    )


def elo_rows(history: EloHistory) -> SafeString:
    """The data table's ``<tr>`` per point: game, date, Elo and a link to its match."""
    return SafeString(
        "".join(
            f'<tr><td class="num">{_e(p.index)}</td>'
            f"<td>{_e(timezone.localtime(p.at).strftime('%Y-%m-%d %H:%M'))}</td>"
            f'<td class="num">{_e(fixed(p.rating, 1))}</td>'
            f'<td class="num"><a href="{_e(match_url(p.match_id))}">#{_e(p.match_id)}</a></td></tr>'
            for p in history.points
        )
    )
