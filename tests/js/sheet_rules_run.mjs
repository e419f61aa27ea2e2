// Runs static/js/sheet_rules.js on sheets given as JSON on stdin ({rubric, sheets: [{path: value}]})
// and writes [{totals, missing, required}] as JSON: tests/scoring/test_sheet_rules_js.py compares
// them with studies.rubric.sheet_totals. The module is loaded from its text, as the browser does.
import { readFileSync } from "node:fs";

const source = readFileSync(new URL("../../static/js/sheet_rules.js", import.meta.url), "utf8");
const rules = await import("data:text/javascript," + encodeURIComponent(source));
const input = JSON.parse(readFileSync(0, "utf8"));
const results = input.sheets.map((entries) => {
  const valueOf = (path) => (path in entries ? entries[path] : null);
  const check = rules.sheetMissing(input.rubric, valueOf);
  return { totals: rules.sheetTotals(input.rubric, valueOf), missing: check.missing, required: check.required };
});
process.stdout.write(JSON.stringify(results));
