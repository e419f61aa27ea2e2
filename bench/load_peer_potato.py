"""Load test against Potato (the fastest peer), the same client and figures as load_test.py.

    .venv/bin/python bench/load_peer_potato.py --url http://127.0.0.1:9100 --mode whole --raters 8 \\
        --duration 20 --server-pid "$(cat /tmp/potato-task/gunicorn.pid)"

Speaks Potato's own HTTP interface as its annotation page does: a password-less login
(``POST /auth``), the assigned instance read from ``/annotate``, then ``POST
/updateinstance`` with every field of the sheet in one request (the page's format:
``{"<schema>:<label>": value}``), again and again, each time every field changed (the two
value sets of ``load_test.whole_sheet`` take turns). Only ``--mode whole``.

The Potato task it expects has one annotation scheme per field of ``whole_sheet`` (102),
named by the field's key with ``.`` as ``_``: a radio scheme for each classification (the
rubric's category keys as labels) and each score (labels ``0``-``10``), a text scheme with
the label ``text_box`` for each comment and text. How to set Potato up is in
bench/README.md; none of Potato's code or set-up is in this repository.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from urllib.parse import urlencode

from load_test import Session, Stats, main, timed, whole_sheet

INSTANCE_ID = re.compile(rb'id="instance_id" name="instance_id" type="hidden" value="([^"]+)"')


def potato_annotations(variant: int) -> dict[str, object]:
    """The whole sheet in the format of Potato's annotation page."""
    out: dict[str, object] = {}
    for key, value in whole_sheet(variant):
        scheme = key.replace(".", "_")
        if isinstance(value, int) or key.endswith(".classification"):
            out[f"{scheme}:{value}"] = str(value)  # a radio: the chosen label and its value
        else:
            out[f"{scheme}:text_box"] = value
    return out


async def potato_loop(
    n: int, args, stats: Stats, clock: dict, ready: asyncio.Barrier, clock_set: asyncio.Event
) -> None:
    base = args.url.rstrip("/")
    session = Session(base)
    login = await timed(
        stats,
        "login",
        session.request(
            "POST",
            "/auth",
            urlencode({"email": f"load-p{n:02d}"}).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        ),
        ok_status=(302,),
    )
    page = await timed(stats, "open sheet", session.request("GET", "/annotate")) if login else None
    match = INSTANCE_ID.search(page.body) if page is not None else None
    if page is not None and match is None:
        stats.error("login", "no instance_id on /annotate")
    await ready.wait()  # every rater logged in before the clock starts
    await clock_set.wait()
    if match is None:
        return
    instance = match.group(1).decode()
    bodies = [
        {"instance_id": instance, "annotations": potato_annotations(v), "span_annotations": []}
        for v in (0, 1)
    ]
    i = 0
    while time.monotonic() < clock["deadline"]:
        i += 1
        reply = await timed(
            stats, "whole-sheet save", session.post_json("/updateinstance", bodies[i % 2], base + "/annotate")
        )
        if reply is not None and reply.status == 200 and b'"success"' not in reply.body:
            # Potato refuses with a 200 and {"status": "error"}: a refusal, not a save
            stats.error("whole-sheet save", reply.body.decode(errors="replace"))
            return
        if reply is None or reply.status != 200:
            return


if __name__ == "__main__":
    if "--mode" not in sys.argv:  # load_test.py's default is the rater's day, which Potato has no form of
        sys.argv += ["--mode", "whole"]
    elif "whole" not in sys.argv:
        raise SystemExit("only --mode whole is measured against Potato")
    main(potato_loop, __doc__)
