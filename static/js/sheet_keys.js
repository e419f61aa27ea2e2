/* The scoring page's keyboard. Tab goes through the scoring controls only; number keys pick a
 * score and Delete clears it; type-ahead picks a category; Alt+N the next missing entry, Alt+J/K
 * the next or previous item, Alt+C the comment, Alt+V pastes the text selected in the response,
 * Alt+L and Alt+G the level texts and guidelines, Ctrl+Enter submits, "?" the key map, Escape
 * closes it and the list of what is missing. ``typeAhead`` and ``scoreKey`` are pure (node's
 * tests run them). */

/* The option a rater's typed letters name: one whose keys (its English name, initials, pinyin
 * initials) include them, else the first whose key starts with them; null when none does. */
export function typeAhead(options, typed) {
  const exact = options.find((option) => option.keys.includes(typed));
  return exact || options.find((option) => option.keys.some((key) => key.indexOf(typed) === 0)) || null;
}

/* The score a digit key picks among a scale's values: the digit itself, 0 for 10 where the scale
 * has no 0 (a 1-10 scale); null when the scale has neither. */
export function scoreKey(values, key) {
  if (!/^[0-9]$/.test(key)) return null;
  if (values.includes(key)) return key;
  return key === "0" && values.includes("10") ? "10" : null;
}

function isText(el) {
  return el && (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && el.type === "text"));
}
function enabled(el) {
  return el && !el.disabled && !(el.closest("fieldset") || {}).disabled;
}
function before(a, b) {
  return !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
}
function focusEl(el) {
  if (!el) return;
  el.focus();
  el.scrollIntoView({ block: "nearest" });
}
function toggleDetails(details) {
  if (!details) return;
  details.open = !details.open;
  if (details.open) details.scrollIntoView({ block: "nearest" });
}

/* The keys of the page whose scoring form is ``form``. ``control(path)`` is an entry's control,
 * ``missingPaths()`` what the sheet still needs, ``onComplete()`` says nothing is; ``clearScore``
 * clears a score; ``submit`` (or null on a read-only page) submits; ``closeMissingList()`` closes
 * the list of what is missing and says whether it was open. */
export function installKeys({ form, control, missingPaths, onComplete, clearScore, submit, closeMissingList }) {
  const keymap = document.getElementById("keymap");
  const keymapButton = document.getElementById("keymap-toggle");

  /* Comments, level texts, guidelines and the whole-response panels leave the Tab order and have
   * keys of their own (the map opened by "?" lists them); clicking them works as before. */
  form
    .querySelectorAll(
      "details.levels > summary, details.guidelines > summary, details.answer-all > summary, " +
        "[data-path^='comments.'], [data-path$='.comment']",
    )
    .forEach((el) => {
      el.tabIndex = -1;
    });

  /* The element to focus for an entry path: the checked radio or the first. */
  function focusTarget(path) {
    let el = control(path);
    if (el && el.tagName === "FIELDSET") el = el.querySelector("input:checked") || el.querySelector("input");
    return el;
  }
  /* The next field still missing after the focus (from the top again at the end). */
  function nextEmpty() {
    const missing = missingPaths().map(focusTarget).filter(enabled);
    if (!missing.length) {
      onComplete();
      return;
    }
    const here = document.activeElement;
    const next = missing.find((el) => here && here !== document.body && before(here, el));
    focusEl(next || missing[0]);
  }
  /* Items: a row of Step 1, 3 or 4, a dimension, a text field. */
  function itemStops() {
    const stops = [];
    form.querySelectorAll("tr.item-row, .dim, .field > textarea[data-path^='texts.']").forEach((box) => {
      const first =
        box.tagName === "TEXTAREA"
          ? box
          : box.querySelector("select, fieldset:not([disabled]) input:checked, fieldset:not([disabled]) input");
      if (first && enabled(first)) stops.push({ box: box, el: first });
    });
    return stops;
  }
  function moveItem(step) {
    const stops = itemStops();
    const here = document.activeElement;
    let at = stops.findIndex((stop) => stop.box === here || stop.box.contains(here));
    if (at < 0) {
      // not inside an item: the first one after (or before) the focus
      let i = 0;
      while (i < stops.length && before(stops[i].box, here)) i++;
      at = step > 0 ? i - 1 : i;
    }
    const target = stops[Math.min(Math.max(at + step, 0), stops.length - 1)];
    if (target) focusEl(target.el);
  }
  /* An item's comment from its row; the step's comment from anywhere else in the step (so from
   * an item's comment, Alt+C again goes on to the step's). */
  function commentOf(el) {
    const row = el.closest("tr.item-row");
    if (row && !el.matches("[data-path$='.comment']")) return row.querySelector("[data-path$='.comment']");
    const section = el.closest("section.step");
    return section ? section.querySelector("[data-path^='comments.']") : null;
  }
  function showKeymap(show) {
    if (!keymap) return;
    keymap.hidden = !show;
    if (keymapButton) keymapButton.setAttribute("aria-expanded", show ? "true" : "false");
  }

  /* Alt+V in a copied-text field (Step 2) puts there the text last selected in the response or
   * the scenario: select the phrase, press Alt+V, nothing retyped. */
  let responseSelection = "";
  document.addEventListener("selectionchange", () => {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) return;
    const node = selection.anchorNode;
    const el = node && (node.nodeType === 1 ? node : node.parentElement);
    if (el && el.closest(".answer-text")) responseSelection = selection.toString().trim();
  });
  function pasteSelection(field) {
    if (!responseSelection || field.disabled) return;
    field.setRangeText(responseSelection, field.selectionStart, field.selectionEnd, "end");
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function onPageKey(e) {
    const t = e.target;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      if (submit) submit();
      return;
    }
    if (e.key === "Escape" && keymap && !keymap.hidden) {
      showKeymap(false);
      return;
    }
    // the list of what is missing closes with Escape; the focus stays where the rater was
    if (e.key === "Escape" && closeMissingList()) return;
    if (e.key === "?" && !isText(t) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      showKeymap(keymap.hidden);
      return;
    }
    if (!e.altKey || e.ctrlKey || e.metaKey) return;
    const key = (e.code || "").replace(/^Key/, "").toLowerCase();
    const here = form.contains(t) ? t : null;
    const handlers = {
      n: () => nextEmpty(),
      j: () => moveItem(1),
      k: () => moveItem(-1),
      c: here && (() => focusEl(commentOf(here))),
      v: here && /^texts\./.test(here.getAttribute("data-path") || "") && (() => pasteSelection(here)),
      l: here && (() => toggleDetails(here.closest(".dim")?.querySelector("details.levels") || null)),
      g: here && (() => toggleDetails(here.closest("section.step")?.querySelector("details.guidelines") || null)),
    };
    if (handlers[key]) {
      e.preventDefault();
      handlers[key]();
    }
  }

  /* Number keys pick a score, Delete/Backspace clears it; arrows work natively. */
  function onScoreKey(e) {
    const t = e.target;
    if (t.type !== "radio" || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "Delete" || e.key === "Backspace") {
      e.preventDefault();
      clearScore(t.name);
      return;
    }
    const group = Array.from(form.querySelectorAll('input[type=radio][name="' + CSS.escape(t.name) + '"]'));
    const wanted = scoreKey(
      group.map((r) => r.value),
      e.key,
    );
    const match = group.find((r) => r.value === wanted);
    if (!match) return;
    e.preventDefault();
    match.focus();
    if (!match.checked) {
      match.checked = true;
      match.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }

  /* Type-ahead on a category select: the English name, its initials or the pinyin initials of the
   * label (the options' data-keys); several letters in a row narrow it. */
  const typed = { text: "", at: 0, el: null };
  function onSelectType(e) {
    const t = e.target;
    if (!t.classList || !t.classList.contains("cls") || e.altKey || e.ctrlKey || e.metaKey) return;
    const now = Date.now();
    if (!/^[a-z0-9]$/i.test(e.key)) {
      // a space or "&" inside a name being typed ("Law & Justice") is part of it, not a key
      if (e.key.length === 1 && typed.el === t && now - typed.at <= 1000) {
        e.preventDefault();
        typed.at = now;
      }
      return;
    }
    typed.text = (now - typed.at > 1000 || typed.el !== t ? "" : typed.text) + e.key.toLowerCase();
    typed.at = now;
    typed.el = t;
    const options = Array.from(t.options)
      .filter((o) => o.getAttribute("data-keys"))
      .map((o) => ({ value: o.value, keys: o.getAttribute("data-keys").split(" ") }));
    const match = typeAhead(options, typed.text);
    e.preventDefault();
    if (!match || match.value === t.value) return;
    t.value = match.value;
    t.dispatchEvent(new Event("change", { bubbles: true }));
  }

  form.addEventListener("keydown", onScoreKey);
  form.addEventListener("keydown", onSelectType);
  document.addEventListener("keydown", onPageKey);
  if (keymapButton) keymapButton.addEventListener("click", () => showKeymap(keymap.hidden));
}
