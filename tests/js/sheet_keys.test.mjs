// node --test tests/js/: the scoring page's pure key rules (static/js/sheet_keys.js). Run from
// pytest by tests/scoring/test_sheet_rules_js.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const source = readFileSync(new URL("../../static/js/sheet_keys.js", import.meta.url), "utf8");
const { scoreKey, typeAhead } = await import("data:text/javascript," + encodeURIComponent(source));

const OPTIONS = [
  { value: "defense", keys: ["defense", "d", "fy"] },
  { value: "economics", keys: ["economics", "e", "jj"] },
  { value: "education", keys: ["education", "ed"] },
  { value: "invalid:duplicate", keys: ["duplicate", "id", "icf"] },
];

test("an exact key wins over a longer key that starts with it", () => {
  assert.equal(typeAhead(OPTIONS, "e").value, "economics");
  assert.equal(typeAhead(OPTIONS, "ed").value, "education");
  assert.equal(typeAhead(OPTIONS, "d").value, "defense");
});

test("letters that begin a key pick its option; none: null", () => {
  assert.equal(typeAhead(OPTIONS, "dup").value, "invalid:duplicate");
  assert.equal(typeAhead(OPTIONS, "id").value, "invalid:duplicate");
  assert.equal(typeAhead(OPTIONS, "econ").value, "economics");
  assert.equal(typeAhead(OPTIONS, "zz"), null);
});

test("a digit picks its score; 0 picks 10 on a scale without 0", () => {
  assert.equal(scoreKey(["0", "1", "2"], "2"), "2");
  assert.equal(scoreKey(["0", "1", "2"], "0"), "0");
  assert.equal(scoreKey(["1", "2", "10"], "0"), "10");
  assert.equal(scoreKey(["1", "2", "3"], "7"), null);
  assert.equal(scoreKey(["1", "2", "3"], "a"), null);
});
