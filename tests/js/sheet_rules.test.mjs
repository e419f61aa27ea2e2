// node --test tests/js/: the scoring page's rules (static/js/sheet_rules.js) on a small rubric of
// the three kinds of step. Run from pytest by tests/scoring/test_sheet_rules_js.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const source = readFileSync(new URL("../../static/js/sheet_rules.js", import.meta.url), "utf8");
const { isYes, sheetMissing, sheetTotals } = await import("data:text/javascript," + encodeURIComponent(source));

const RUBRIC = {
  steps: [
    { number: 1, kind: "ideas", item_count: 3, item_scores: ["elaboration", "originality"], texts: [],
      dimensions: [{ key: "s1.fluency", computed: "fluency" }, { key: "s1.flexibility", computed: "flexibility" },
        { key: "s1.elaboration", computed: "elaboration" }, { key: "s1.originality", computed: "originality" }] },
    { number: 2, kind: "dimensions", item_count: 0, item_scores: [], texts: ["stem"],
      dimensions: [{ key: "s2.focus", computed: "" }] },
    { number: 4, kind: "criteria", item_count: 2, item_scores: ["relevance"], texts: [],
      dimensions: [{ key: "s4.relevance", computed: "sum:relevance" }] },
  ],
};
const of = (entries) => (path) => (path in entries ? entries[path] : null);

test("an invalid type is not a Yes item and needs no scores", () => {
  assert.equal(isYes("invalid:duplicate"), false);
  assert.equal(isYes(""), false);
  assert.equal(isYes("economics"), true);
  const entries = { "items.1.1.classification": "invalid:duplicate" };
  assert.deepEqual(sheetMissing(RUBRIC, of(entries)).missing.slice(0, 2), [
    "items.1.2.classification", "items.1.3.classification",
  ]);
});

test("flexibility counts distinct categories of Yes items; scores not made count 0", () => {
  const entries = {
    "items.1.1.classification": "economics", "items.1.1.elaboration": 2, "items.1.1.originality": 1,
    "items.1.2.classification": "economics", "items.1.2.elaboration": 1,
    "items.1.3.classification": "invalid:blank", "items.1.3.elaboration": 3,
    "dims.s2.focus": 4, "items.4.1.relevance": 2, "items.4.2.relevance": 1,
  };
  const totals = sheetTotals(RUBRIC, of(entries));
  assert.deepEqual(totals.dimensions, {
    "s1.fluency": 2, "s1.flexibility": 1, "s1.elaboration": 3, "s1.originality": 1, "s2.focus": 4, "s4.relevance": 3,
  });
  assert.deepEqual(totals.steps, { 1: 7, 2: 4, 4: 3 });
  assert.equal(totals.overall, 14);
});

test("a copied text of blanks is missing; a computed dimension is never asked for", () => {
  const check = sheetMissing(RUBRIC, of({ "texts.stem": "  \n", "dims.s2.focus": 0 }));
  assert.ok(check.missing.includes("texts.stem"));
  assert.ok(!check.missing.includes("dims.s2.focus"));  // 0 is a score
  assert.ok(!check.missing.some((path) => path.startsWith("dims.s1")));
  assert.equal(check.required, 3 + 1 + 1 + 2);
});
