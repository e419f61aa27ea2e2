"""axe-core (shipped by axe-playwright-python) on a page in the browser tests: the
accessibility gate fails on any serious or critical violation."""

from __future__ import annotations

from axe_playwright_python.sync_playwright import Axe

AXE = Axe()
GATE = ("serious", "critical")
# The looks a page is checked in: every pair of (language, scheme, width) values appears once,
# an orthogonal array of four instead of all eight (a rule that fails only for one pair of values
# is still caught; one that needs all three at once is not, and none of axe's rules is such).
LOOKS = [("en", "light", 1366), ("en", "dark", 390), ("zh-hans", "dark", 1366), ("zh-hans", "light", 390)]


def axe_violations(page, *, exclude: tuple[str, ...] = ()) -> list[str]:
    """The serious and critical violations on ``page``, one readable line each."""
    context = {"exclude": [[selector] for selector in exclude]} if exclude else None
    results = AXE.run(page, context=context)
    found = []
    for v in results.response["violations"]:
        if v.get("impact") in GATE:
            targets = [" ".join(n["target"]) for n in v["nodes"][:4]]
            found.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])}x): {v['help']} at {targets}")
    return found
