/* The rubric's arithmetic on the scoring page: the totals and what a sheet still needs, read from
 * the rubric as the page carries it (scoring.views.sheet_texts.client_spec: each step's kind, item
 * count, dimensions and how each is computed), by the rules of studies.rubric.sheet_totals. The
 * server's totals stay authoritative; these give instant feedback. Pure: valueOf(path) is an
 * entry's value (null where there is none). tests/scoring/test_sheet_rules_js.py runs this file in
 * node against sheet_totals on generated sheets. */

export const INVALID = "invalid:";

/* A classification that counts: a category, not an invalid type and not empty. */
export function isYes(classification) {
  return !!classification && classification.indexOf(INVALID) !== 0;
}

function itemPath(step, position, key) {
  return "items." + step.number + "." + position + "." + key;
}

/* A computed dimension of an ideas step from its Yes items (studies.rubric.totals.idea_value):
 * fluency (how many), flexibility (their distinct categories), sum:<item score> (CGPST names the
 * sums of elaboration and originality bare). */
function ideaValue(step, computed, valueOf) {
  const yes = [];
  for (let pos = 1; pos <= step.item_count; pos++) {
    const category = valueOf(itemPath(step, pos, "classification"));
    if (isYes(category)) yes.push({ category: category, pos: pos });
  }
  if (computed === "fluency") return yes.length;
  if (computed === "flexibility") return new Set(yes.map((y) => y.category)).size;
  const key = computed.replace(/^sum:/, "");
  return yes.reduce((sum, y) => sum + (valueOf(itemPath(step, y.pos, key)) || 0), 0);
}

/* Whether a sheet needs dimension ``d``: always, unless the rubric needs it only when another
 * dimension has one of some scores (ScoreSpec.applies). */
function applies(d, valueOf) {
  return !d.required_when || d.required_when.values.indexOf(valueOf("dims." + d.required_when.dimension)) >= 0;
}

/* Every dimension, each step's total and the overall score; an entry not made counts 0. */
export function sheetTotals(rubric, valueOf) {
  const dimensions = {};
  for (const step of rubric.steps) {
    if (step.kind === "ideas") {
      for (const d of step.dimensions) dimensions[d.key] = ideaValue(step, d.computed, valueOf);
    } else if (step.kind === "criteria") {
      for (const d of step.dimensions) {
        const key = d.computed.replace(/^sum:/, "");
        let sum = 0;
        for (let pos = 1; pos <= step.item_count; pos++) sum += valueOf(itemPath(step, pos, key)) || 0;
        dimensions[d.key] = sum;
      }
    } else {  // a dimension needed only for some scores of another counts 0 otherwise
      for (const d of step.dimensions) dimensions[d.key] = applies(d, valueOf) ? valueOf("dims." + d.key) || 0 : 0;
    }
  }
  const steps = {};
  let overall = 0;
  for (const step of rubric.steps) {
    const total = step.dimensions.reduce((sum, d) => sum + dimensions[d.key], 0);
    steps[String(step.number)] = total;
    overall += total;
  }
  return { dimensions: dimensions, steps: steps, overall: overall };
}

/* The entries a sheet needs before it can be submitted (``required``) and the paths of those not
 * made yet (``missing``, in the sheet's order): an item's classification, a Yes item's
 * scores, a criterion's scores, a step's copied texts and its scored dimensions; then each comment
 * the rubric asks for (always, or when a dimension of its step has one of the listed scores). */
export function sheetMissing(rubric, valueOf) {
  const missing = [];
  let required = 0;
  const need = (path, made) => {
    required += 1;
    if (!made) missing.push(path);
  };
  for (const step of rubric.steps) {
    if (step.kind === "ideas") {
      for (let pos = 1; pos <= step.item_count; pos++) {
        const category = valueOf(itemPath(step, pos, "classification"));
        need(itemPath(step, pos, "classification"), !!category);
        if (!isYes(category)) continue;
        for (const key of step.item_scores) need(itemPath(step, pos, key), valueOf(itemPath(step, pos, key)) !== null);
      }
    } else if (step.kind === "criteria") {
      for (let pos = 1; pos <= step.item_count; pos++) {
        for (const key of step.item_scores) need(itemPath(step, pos, key), valueOf(itemPath(step, pos, key)) !== null);
      }
    } else {
      for (const key of step.texts) need("texts." + key, !!String(valueOf("texts." + key) || "").trim());
      for (const d of step.dimensions) {
        if (!d.computed && applies(d, valueOf)) need("dims." + d.key, valueOf("dims." + d.key) !== null);
      }
    }
  }
  for (const step of rubric.steps) {  // a comment the rubric asks for: always, or for some scores
    const rule = step.comment || {};
    const needed = rule.required || (!!rule.dimension && rule.values.indexOf(valueOf("dims." + rule.dimension)) >= 0);
    if (needed) need("comments." + step.number, !!String(valueOf("comments." + step.number) || "").trim());
  }
  return { required: required, missing: missing };
}
