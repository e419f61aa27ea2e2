/* The scoring page's durable queue, its rules without the page (sheet.js keeps the page's side:
 * storage, sealing, requests, banners): how a change joins the queue, what a batch carries, how
 * long to wait before sending again, and which drafts left in this browser come back after a
 * reload. Pure; node's test runner checks it (tests/js/sheet_queue.test.mjs).
 */

export const MAX_BATCH = 400; // changes in one request
export const ORPHAN_MS = 30000; // a draft of another tab untouched this long: its tab was closed
export const MIN_DELAY_MS = 1000;
export const MAX_DELAY_MS = 8000;

/* Queue a change: one of the same field as the last queued one replaces it (typing sends the
 * word, not every letter). */
export function queueRecord(pending, path, value) {
  const last = pending[pending.length - 1];
  if (last && last[0] === path) last[1] = value;
  else pending.push([path, value]);
}

/* The batch to send: the one in flight (a re-send after a lost reply carries the same batch id,
 * so the server applies it once), else the next MAX_BATCH queued changes, made against the
 * version the page holds; null when nothing is queued. */
export function batchNext(state, sheet, newId) {
  if (!state.inflight) {
    if (!state.pending.length) return null;
    state.inflight = {
      sheet: sheet, batch_id: newId(), expected_version: state.version,
      changes: state.pending.splice(0, MAX_BATCH),
    };
  }
  state.inflight.sheet = sheet;
  return state.inflight;
}

/* How long to wait before the next try: doubled while the server stays away or refuses, from a
 * second to MAX_DELAY_MS; at least its Retry-After (seconds) when it names one. */
export function retryDelay(previous, retryAfterSeconds) {
  const floor = retryAfterSeconds === undefined ? MIN_DELAY_MS : (retryAfterSeconds > 0 ? retryAfterSeconds : 1) * 1000;
  return Math.min(Math.max(floor, previous * 2), MAX_DELAY_MS);
}

/* The drafts of this sheet left in this browser (``drafts``: [{key, q}], q as stored: version,
 * inflight, pending, held, updated) that come back into the page: this tab's own and those of
 * tabs closed for ORPHAN_MS, this tab's last. A batch the server applied (its id is the sheet's
 * last) is not sent again. A draft made against another version than the page's is never
 * applied: ``conflict``, and ``discard`` names every draft "Reload" throws away. ``taken``: how
 * many drafts came back; ``remove``:
 * the drafts taken over (or empty), ``changes`` to apply and send, ``held`` texts too long to send. */
export function draftsRestored(drafts, { storeKey, version, lastBatchId, now }) {
  const taken = drafts
    .filter((d) => d.key === storeKey || now - (d.q.updated || 0) > ORPHAN_MS)
    .sort((a, b) => (a.key === storeKey) - (b.key === storeKey));
  const found = { taken: taken.length, changes: [], held: {}, remove: [], conflict: false, discard: [] };
  for (const { key, q } of taken) {
    Object.keys(q.held || {}).forEach((p) => { found.held[p] = q.held[p]; });
    const applied = Boolean(q.inflight) && q.inflight.batch_id === lastBatchId;
    const expected = applied ? q.inflight.expected_version + 1 : q.version;
    const left = (q.inflight && !applied ? q.inflight.changes : []).concat(q.pending || []);
    if (!left.length) {
      if (key !== storeKey) found.remove.push(key);
      continue;
    }
    if (expected !== version) {
      found.conflict = true;
      found.discard = taken.map((d) => d.key);
      return found;
    }
    found.changes = found.changes.concat(left);
    if (key !== storeKey) found.remove.push(key);
  }
  return found;
}
