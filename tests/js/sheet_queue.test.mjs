// node --test tests/js/: the scoring page's durable queue (static/js/sheet_queue.js): a change joins
// the queue, a batch is cut and re-sent whole, the wait grows while refused, and the drafts left in
// the browser come back (or conflict) after a reload. Run from pytest by
// tests/scoring/test_sheet_rules_js.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const source = readFileSync(new URL("../../static/js/sheet_queue.js", import.meta.url), "utf8");
const { MAX_BATCH, MAX_DELAY_MS, ORPHAN_MS, batchNext, draftsRestored, queueRecord, retryDelay } =
  await import("data:text/javascript," + encodeURIComponent(source));

test("a change of the field queued last replaces it; others queue in order", () => {
  const pending = [];
  queueRecord(pending, "items.1.1.text", "d");
  queueRecord(pending, "items.1.1.text", "dikes");
  queueRecord(pending, "dims.s1.fluency", 3);
  queueRecord(pending, "items.1.1.text", "dikes!");
  assert.deepEqual(pending, [["items.1.1.text", "dikes"], ["dims.s1.fluency", 3], ["items.1.1.text", "dikes!"]]);
});

test("a batch takes at most MAX_BATCH changes and is sent again whole until answered", () => {
  const state = { version: 7, inflight: null, pending: [] };
  for (let i = 0; i < MAX_BATCH + 5; i++) queueRecord(state.pending, `p${i}`, i);
  let ids = 0;
  const first = batchNext(state, 41, () => `b${++ids}`);
  assert.equal(first.changes.length, MAX_BATCH);
  assert.equal(first.batch_id, "b1");
  assert.equal(first.expected_version, 7);
  assert.equal(state.pending.length, 5);
  const again = batchNext(state, 41, () => `b${++ids}`); // no answer yet: the same batch, same id
  assert.equal(again, first);
  assert.equal(again.batch_id, "b1");
  state.inflight = null; // answered
  state.version = 8;
  const second = batchNext(state, 41, () => `b${++ids}`);
  assert.equal(second.batch_id, "b2");
  assert.equal(second.expected_version, 8);
  assert.equal(second.changes.length, 5);
  state.inflight = null;
  assert.equal(batchNext(state, 41, () => "never"), null); // nothing left
});

test("the wait doubles from a second to the ceiling, and honours Retry-After", () => {
  let delay = 0;
  const waits = [];
  for (let i = 0; i < 6; i++) waits.push((delay = retryDelay(delay)));
  assert.deepEqual(waits, [1000, 2000, 4000, 8000, MAX_DELAY_MS, MAX_DELAY_MS]);
  assert.equal(retryDelay(0, 3), 3000); // the server's Retry-After
  assert.equal(retryDelay(2000, 1), 4000); // still doubling while refused
  assert.equal(retryDelay(0, NaN), 1000); // an unreadable header counts as one second
  assert.equal(retryDelay(0, 60), MAX_DELAY_MS);
});

const draft = (fields) => ({ version: 3, inflight: null, pending: [], held: {}, updated: 0, ...fields });

test("this tab's draft and a closed tab's come back; a live other tab's stays", () => {
  const now = 100_000;
  const found = draftsRestored(
    [
      { key: "mine", q: draft({ pending: [["a", 1]], updated: now }) },
      { key: "closed", q: draft({ pending: [["b", 2]], updated: now - ORPHAN_MS - 1 }) },
      { key: "live", q: draft({ pending: [["c", 3]], updated: now - 10 }) },
    ],
    { storeKey: "mine", version: 3, lastBatchId: "", now },
  );
  assert.equal(found.conflict, false);
  assert.equal(found.taken, 2);
  assert.deepEqual(found.changes, [["b", 2], ["a", 1]]); // the closed tab's first, this tab's last
  assert.deepEqual(found.remove, ["closed"]); // taken over; this tab's own key stays
});

test("a batch the server applied is not sent again; one it did not is", () => {
  const inflight = { batch_id: "b9", expected_version: 3, changes: [["a", 1]] };
  const applied = draftsRestored([{ key: "mine", q: draft({ inflight, pending: [["b", 2]] }) }], {
    storeKey: "mine", version: 4, lastBatchId: "b9", now: 0,
  });
  assert.deepEqual(applied.changes, [["b", 2]]);
  const lost = draftsRestored([{ key: "mine", q: draft({ inflight, pending: [["b", 2]] }) }], {
    storeKey: "mine", version: 3, lastBatchId: "b8", now: 0,
  });
  assert.deepEqual(lost.changes, [["a", 1], ["b", 2]]);
});

test("a draft made against another version is never applied: a conflict names every draft", () => {
  const found = draftsRestored(
    [
      { key: "closed", q: draft({ pending: [["b", 2]], version: 2, updated: 0 }) },
      { key: "mine", q: draft({ pending: [["a", 1]] }) },
    ],
    { storeKey: "mine", version: 3, lastBatchId: "", now: ORPHAN_MS + 1 },
  );
  assert.equal(found.conflict, true);
  assert.deepEqual(found.changes, []);
  assert.deepEqual(found.discard.sort(), ["closed", "mine"]);
});

test("texts held back for being too long come back with the drafts", () => {
  const found = draftsRestored([{ key: "mine", q: draft({ held: { "texts.condition": "x".repeat(5000) } }) }], {
    storeKey: "mine", version: 3, lastBatchId: "", now: 0,
  });
  assert.equal(found.taken, 1);
  assert.equal(found.held["texts.condition"].length, 5000);
  assert.deepEqual(found.changes, []);
});
