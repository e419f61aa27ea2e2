"""HTML of the scoring page's repeated controls, built once per request in Python.

A sheet has about 60 score controls and 16 category selects; rendering them
through template tags costs tens of thousands of node renders per page. These
helpers produce the same markup with every dynamic value escaped
(``django.utils.html.escape``), and the template inserts the results.
"""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


def scale_html(scale: dict, *, where: str = "", readonly: bool = False) -> SafeString:
    """A radio group (one radio per score) addressed by the entry path."""
    path = escape(scale["path"])
    legend = escape(scale["label"]) + (f" · {escape(where)}" if where else "")
    disabled = " disabled" if readonly or not scale["enabled"] else ""
    parts = [
        f'<fieldset class="scale" id="{escape(scale["id"])}" data-path="{path}"{disabled}>'
        f'<legend class="visually-hidden">{legend}</legend>'
    ]
    for c in scale["choices"]:
        checked = " checked" if c["checked"] else ""
        parts.append(
            f'<label class="pip" title="{escape(c["text"])}"><input type="radio" name="{path}" '
            f'value="{c["score"]}"{checked}><span>{c["score"]}</span></label>'
        )
    parts.append("</fieldset>")
    return mark_safe("".join(parts))  # noqa: S308 - every value above is escaped


def levels_html(scale: dict, *, summary: str, open_: bool = False) -> SafeString:
    """The level descriptions of a score control, shown on demand."""
    rows = "".join(f"<dt>{c['score']}</dt><dd>{escape(c['text']) or '—'}</dd>" for c in scale["choices"])
    return mark_safe(  # noqa: S308 - every value is escaped
        f'<details class="levels"{" open" if open_ else ""}><summary>{escape(summary)}</summary><dl>{rows}</dl></details>'
    )


def options_html(
    *, empty: str, yes_label: str, categories: list[dict], invalid_label: str, invalid: list[dict]
) -> str:
    """The options of a classification select (no option selected yet)."""
    cats = "".join(f'<option value="{escape(c["key"])}">{escape(c["label"])}</option>' for c in categories)
    bad = "".join(
        f'<option value="{escape(t["key"])}">{escape(t["label"])} — {escape(t["description"])}</option>'
        for t in invalid
    )
    return (
        f'<option value="">{escape(empty)}</option><optgroup label="{escape(yes_label)}">{cats}</optgroup>'
        f'<optgroup label="{escape(invalid_label)}">{bad}</optgroup>'
    )


def select_html(
    *, options: str, select_id: str, path: str, label: str, value: str, readonly: bool
) -> SafeString:
    """A classification select with ``value`` selected."""
    if value:
        marker = f'<option value="{escape(value)}">'
        options = options.replace(marker, marker[:-1] + " selected>", 1)
    disabled = " disabled" if readonly else ""
    return mark_safe(  # noqa: S308 - options and attributes are escaped
        f'<label class="visually-hidden" for="{escape(select_id)}">{escape(label)}</label>'
        f'<select id="{escape(select_id)}" data-path="{escape(path)}" class="cls"{disabled}>{options}</select>'
    )


def categories_html(*, summary: str, categories: list[dict]) -> SafeString:
    """The category descriptions (Steps 1 and 3), shown on demand."""
    rows = "".join(
        f"<dt>{escape(c['label'])}</dt><dd>{escape(c['description'])}</dd>"
        for c in categories
        if c["description"]
    )
    return mark_safe(  # noqa: S308 - every value is escaped
        f'<details class="levels"><summary>{escape(summary)}</summary><dl>{rows}</dl></details>'
    )


def item_row_html(row: dict, *, step: int, no_item: str, comment_label: str, readonly: bool) -> SafeString:
    """One item row of Steps 1, 3 and 4: number, item text, controls, comment."""
    pos = row["pos"]
    if "select" in row:
        state = " is-yes" if row["is_yes"] else (" is-invalid" if row["classification"] else "")
        cells = [row["select"], *row["controls"]]
    else:
        state, cells = "", row["controls"]
    text = escape(row["text"]) if row["present"] else f'<span class="muted">{escape(no_item)}</span>'
    disabled = " disabled" if readonly else ""
    controls = "".join(f"<td>{c}</td>" for c in cells)
    return mark_safe(  # noqa: S308 - item text, comment and labels are escaped; cells are built escaped
        f'<tr class="item-row{state}" data-item="{step}.{pos}"><th scope="row">{pos}</th>'
        f'<td class="item-text">{text}</td>{controls}'
        f'<td><label class="visually-hidden" for="{row["comment_id"]}">{escape(comment_label)} {pos}</label>'
        f'<input type="text" id="{row["comment_id"]}" data-path="{row["comment_path"]}" '
        f'value="{escape(row["comment"])}" maxlength="4000"{disabled}></td></tr>'
    )
