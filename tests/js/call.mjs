// Calls a pure function of a module of static/js on JSON arguments: `node call.mjs sheet_keys.js
// typeAhead` reads a list of argument lists on stdin and writes the list of results (pytest's
// cross-checks of the scoring page's rules with the server's data, tests/scoring/test_sheet_rules_js.py).
import { readFileSync } from "node:fs";

const [file, name] = process.argv.slice(2);
const source = readFileSync(new URL("../../static/js/" + file, import.meta.url), "utf8");
const module = await import("data:text/javascript," + encodeURIComponent(source));
const calls = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(calls.map((args) => module[name](...args) ?? null)));
