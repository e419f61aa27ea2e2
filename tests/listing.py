"""Reading a paged, filtered manage list as a user's browser would: every page in turn, by
the pager's own "Next" links (which must keep the filters)."""

from __future__ import annotations

import html
import re
from urllib.parse import urlencode

NEXT = re.compile(r'href="\?([^"]*)" rel="next"')


def table_of(body: str, table_id: str) -> str:
    """The markup of the table with ``id="table_id"``."""
    return body.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]


def listed(client, url: str, query: dict[str, str], *, table_id: str, row: str) -> list[str]:
    """What ``row`` (a regular expression with one group) finds in the table on every page of
    ``url`` filtered by ``query``, following the "Next" links, each checked to keep ``query``
    (in the form's order) and to name the next page."""
    found: list[str] = []
    body = client.get(url, query).content.decode()
    for number in range(2, 1000):
        found += re.findall(row, table_of(body, table_id))
        link = NEXT.search(body)
        if link is None:
            return found
        assert html.unescape(link.group(1)) == urlencode({**query, "page": number})
        body = client.get(f"{url}?{html.unescape(link.group(1))}").content.decode()
    raise AssertionError("more than 1000 pages")


def assert_two_a_page(client, url: str, expected: list[str], *, table_id: str, row: str, noun: str) -> None:
    """The unfiltered list, two to a page: the first page says how many pages and ``noun``s
    there are and shows the first two of ``expected``; the pages together show ``expected``."""
    first = client.get(url).content.decode()
    assert f"Page 1 of {(len(expected) + 1) // 2} ({len(expected)} {noun})" in first
    assert re.findall(row, table_of(first, table_id)) == expected[:2]
    assert listed(client, url, {}, table_id=table_id, row=row) == expected


def newest_first(rows) -> list[str]:
    """The ids of ``rows`` (with ``created_at``) as a list shows them, newest first."""
    return [str(r.pk) for r in sorted(rows, key=lambda r: (r.created_at, r.pk), reverse=True)]
