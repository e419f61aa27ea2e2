// node --test tests/js/: the scoring page's active-time counter (static/js/sheet_activity.js), its
// clock driven by the test. Run from pytest by tests/scoring/test_sheet_rules_js.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const source = readFileSync(new URL("../../static/js/sheet_activity.js", import.meta.url), "utf8");
const { IDLE_MS, MAX_REPORT_SECONDS, activeClock } = await import(
  "data:text/javascript," + encodeURIComponent(source)
);

test("time between acts counts; a pause longer than IDLE_MS does not", () => {
  const clock = activeClock();
  clock.act(0, true);
  clock.act(30_000, true);
  clock.act(30_000 + IDLE_MS + 1, true); // a long pause: left out
  clock.act(30_000 + IDLE_MS + 1 + 5_500, true);
  assert.equal(clock.take(), 35); // 30 s + 5.5 s, whole seconds
  assert.equal(clock.take(), 0); // the half second waits for the next report
});

test("time without focus does not count", () => {
  const clock = activeClock();
  clock.act(0, false);
  clock.act(60_000, true); // the page had no focus before: nothing counted
  clock.pause();
  clock.act(120_000, true); // after a pause: counting starts again here
  clock.act(130_000, true);
  assert.equal(clock.take(), 10);
});

test("a report takes at most MAX_REPORT_SECONDS; a failed one is given back", () => {
  const clock = activeClock();
  let now = 0;
  clock.act(now, true);
  for (let i = 0; i < 10; i++) clock.act((now += IDLE_MS), true); // 30 minutes of acts
  assert.equal(clock.take(), MAX_REPORT_SECONDS);
  const second = clock.take();
  assert.equal(second, 10 * (IDLE_MS / 1000) - MAX_REPORT_SECONDS);
  clock.giveBack(second);
  assert.equal(clock.take(), second);
});
