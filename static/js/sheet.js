/* The scoring page: keyboard scoring, instant totals, durable autosave, submit.
 *
 * Every change is queued in order, kept in localStorage (so a reload or a dead
 * server loses nothing) and sent in batches about a second after the last
 * change. A batch carries a batch_id (a re-send after a lost reply is not
 * applied twice) and the sheet version it was made against (a stale tab gets a
 * conflict instead of overwriting newer scores). Drafts are kept per user and
 * sheet, and every batch names its sheet: in a browser shared by several raters
 * nobody's changes reach another's sheet, and each rater's unsent changes wait
 * for that rater. The server validates every
 * value and returns the authoritative totals; the totals computed here are only
 * for instant feedback and are replaced by the server's once all is saved.
 * The queue's rules (batches, waits, which drafts come back) are in sheet_queue.js, the
 * rubric's totals in sheet_rules.js, the keys in sheet_keys.js, the clock in sheet_activity.js.
 */
import { trackActiveTime } from "./sheet_activity.js";
import { installKeys } from "./sheet_keys.js";
import { batchNext, draftsRestored, queueRecord, retryDelay } from "./sheet_queue.js";
import { isYes, sheetMissing, sheetTotals } from "./sheet_rules.js";

(function () {
  "use strict";
  var dataEl = document.getElementById("sheet-data");
  if (!dataEl) return;
  var data = JSON.parse(dataEl.textContent);
  var M = data.messages;
  var form = document.getElementById("sheet-form");
  var statusEl = document.getElementById("save-status");
  var banner = document.getElementById("banner");
  var bannerText = document.getElementById("banner-text");
  var bannerList = document.getElementById("banner-list");
  var reloadBtn = document.getElementById("banner-reload");
  var retryBtn = document.getElementById("banner-retry");
  var closeBtn = document.getElementById("banner-close");
  var submitBtn = document.getElementById("submit-sheet");
  var DEBOUNCE_MS = 800;

  function fmt(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_, k) { return values[k]; });
  }
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function clock() {
    var d = new Date();
    return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  }
  function newId() {
    var a = new Uint8Array(16);
    window.crypto.getRandomValues(a);
    return Array.prototype.map.call(a, function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
  }
  var csrf = (function () {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { }
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  })();
  function csrfToken() { return csrf; }
  /* After the session expired and the rater logged in again (in another tab), the
   * token this page was rendered with is void: fetch the new session's token. */
  function refreshToken() {
    return fetch(data.token_url, {
      credentials: "same-origin", redirect: "manual", headers: { "Accept": "application/json" }
    }).then(function (res) {
      return res.ok ? res.json() : null;
    }).then(function (body) {
      if (!body || !body.token) return false;
      csrf = body.token;
      document.body.setAttribute("hx-headers", JSON.stringify({ "X-CSRFToken": csrf }));
      return true;
    }, function () { return false; });
  }
  function cssPath(path) { return window.CSS && CSS.escape ? CSS.escape(path) : path.replace(/"/g, '\\"'); }

  // ---- reading and writing controls --------------------------------------
  /* The score control itself, never a button or label that names the same path. */
  function control(path) {
    var q = '[data-path="' + cssPath(path) + '"]';
    return form.querySelector("fieldset" + q + ", select" + q + ", input" + q + ", textarea" + q);
  }
  function radios(path) { return form.querySelectorAll('input[type=radio][name="' + cssPath(path) + '"]'); }

  function valueOf(path) {
    var el = control(path);
    if (!el) return null;
    if (el.tagName === "FIELDSET") {
      var checked = el.querySelector("input[type=radio]:checked");
      return checked ? parseInt(checked.value, 10) : null;
    }
    return el.value;
  }

  function setControl(path, value) {
    var el = control(path);
    if (!el) return;
    if (el.tagName === "FIELDSET") {
      radios(path).forEach(function (r) { r.checked = value !== null && String(value) === r.value; });
      showLevel(path);
    } else {
      el.value = value === null ? "" : value;
      if (el.classList.contains("cls")) syncRow(el);
      mirror(path, el.value);
    }
  }

  function showLevel(path) {
    var target = form.querySelector('[data-level-for="' + cssPath(path) + '"]');
    if (!target) return;
    var checked = form.querySelector('input[type=radio][name="' + cssPath(path) + '"]:checked');
    target.textContent = checked ? (checked.parentNode.getAttribute("title") || "") : "";
  }

  function mirror(path, value) {
    document.querySelectorAll('[data-mirror="' + cssPath(path) + '"]').forEach(function (el) {
      el.textContent = value || "—";
    });
  }

  /* An item's scores (CGPST's Elaboration and Originality) are only for Yes items. Returns the
   * scale paths, by the step's item scores in the rubric the page carries. */
  function syncRow(select) {
    var base = select.getAttribute("data-path").replace(/\.classification$/, "");
    var yes = isYes(select.value);
    var row = select.closest("tr");
    if (row) {
      row.classList.toggle("is-yes", yes);
      row.classList.toggle("is-invalid", !!select.value && !yes);
    }
    var number = Number(base.split(".")[1]);
    var step = data.rubric.steps.filter(function (s) { return s.number === number; })[0];
    var paths = (step ? step.item_scores : []).map(function (key) { return base + "." + key; });
    paths.forEach(function (p) {
      var fs = control(p);
      if (fs) fs.disabled = !yes || data.readonly;
    });
    return paths;
  }

  // ---- totals and what is missing: the rubric's rules, in sheet_rules.js -----
  function computeTotals() { return sheetTotals(data.rubric, valueOf); }
  /* Submit says what is missing before asking to confirm; the bar counts the entries done. */
  function computeMissing() { return sheetMissing(data.rubric, valueOf); }
  function missingItems(paths) {
    return paths.map(function (p) {
      var el = control(p);
      return { id: el ? el.id : "", label: data.labels[p] || p };
    });
  }
  function showProgress(check) {
    var el = document.getElementById("progress");
    if (!el) return;
    var done = check.required - check.missing.length;
    el.textContent = fmt(M.progress, { done: done, total: check.required });
    el.setAttribute("data-done", done);
    el.setAttribute("data-needed", check.required);
    el.classList.toggle("progress-complete", !check.missing.length);
  }
  /* After every change: the count in the bar, and a list of what is missing (shown after
   * a Submit) shrinks as the rater fills it in. */
  function refreshCheck() {
    var check = computeMissing();
    showProgress(check);
    if (banner.getAttribute("data-kind") === "incomplete" && !banner.hidden) {
      if (check.missing.length) showBanner(M.incomplete, { kind: "incomplete", items: missingItems(check.missing) });
      else hideBanner();
    }
    return check;
  }

  function showTotals(t, source) {
    document.querySelectorAll("[data-total]").forEach(function (el) {
      var key = el.getAttribute("data-total"), v;
      if (key === "overall") v = t.overall;
      else if (key.indexOf("step.") === 0) v = t.steps[key.slice(5)];
      else if (key.indexOf("dim.") === 0) v = t.dimensions[key.slice(4)];
      if (v !== undefined) el.textContent = v;
    });
    document.getElementById("summary").setAttribute("data-source", source);
  }

  // ---- the durable queue ---------------------------------------------------
  var tabId = sessionStorage.getItem("teamllm.tab");
  if (!tabId) { tabId = newId(); sessionStorage.setItem("teamllm.tab", tabId); }
  // drafts belong to one user's one sheet: never read for another rater in this browser
  // (under a name that says neither: the keys are what the next user of the browser can read)
  var prefix = data.store;
  var storeKey = prefix + tabId;
  var state = {
    version: data.version, inflight: null, pending: [], stopped: false, delay: 0, timer: null,
    current: null, staleToken: false,
    held: {}  // texts the server would refuse (too long): kept in this browser only, never sent
  };
  // earlier releases keyed drafts by blind code only, which both raters of a pair share; then by
  // account and sheet in clear (this user's move to their opaque name, still sealed); and the
  // scenario panels read, by account and scenario (dropped: the panel opens once more)
  for (var k = localStorage.length - 1; k >= 0; k--) {
    var oldKey = localStorage.key(k);
    if (!oldKey) continue;
    if (oldKey.indexOf("teamllm.sheet.") === 0 || /^teamllm\.scenario-read\.\d+\.\d+$/.test(oldKey)) {
      localStorage.removeItem(oldKey);
    } else if (data.legacy_store && oldKey.indexOf(data.legacy_store) === 0) {
      try { localStorage.setItem(prefix + oldKey.slice(data.legacy_store.length), localStorage.getItem(oldKey)); } catch (e) { continue; }
      localStorage.removeItem(oldKey);
    }
  }

  /* Drafts are sealed (tweetnacl's secretbox) with a key only this user's own pages carry: after
   * a logout, whoever uses the browser next finds them in localStorage and cannot read them. The
   * same user gets the same key on every login, so a draft is restored when they come back. */
  var draftKey = null;
  try { if (window.nacl && data.draft_key) draftKey = base64Bytes(data.draft_key); } catch (e) { draftKey = null; }
  function base64Bytes(text) {
    var binary = atob(text), bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  function bytesBase64(bytes) {
    var binary = "";
    for (var i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  }
  function seal(value) {
    var nonce = nacl.randomBytes(nacl.secretbox.nonceLength);
    var box = nacl.secretbox(new TextEncoder().encode(JSON.stringify(value)), nonce, draftKey);
    return "sealed.1." + bytesBase64(nonce) + "." + bytesBase64(box);
  }
  /* Only a draft sealed with this user's key is opened: one in clear (an earlier release's, or
   * planted by whoever used the browser before) is dropped unread, never applied. */
  function unseal(stored) {
    var parts = stored.split(".");
    if (parts.length !== 4 || parts[0] !== "sealed" || !draftKey) throw new Error("not a draft");
    var opened = nacl.secretbox.open(base64Bytes(parts[3]), base64Bytes(parts[2]), draftKey);
    if (!opened) throw new Error("sealed with another key");
    return JSON.parse(new TextDecoder().decode(opened));
  }

  function persist() {
    try {
      var held = Object.keys(state.held).length;
      if (!state.inflight && !state.pending.length && !held) { localStorage.removeItem(storeKey); return; }
      if (!draftKey) return;  // no key (the library did not load): kept in the page only, never in clear
      localStorage.setItem(storeKey, seal({
        version: state.version, inflight: state.inflight, pending: state.pending, held: state.held,
        updated: Date.now()
      }));
    } catch (e) { /* storage full or disabled: the page still holds the changes */ }
  }

  function unsaved() { return state.pending.length + (state.inflight ? state.inflight.changes.length : 0); }

  /* The bar's state once nothing is being sent: green "Saved" only when nothing at all
   * is left unsaved (no queued change, no text held back for being too long). */
  function idleStatus() {
    if (state.stopped) setStatus(M.unsaved, "error");
    else if (Object.keys(tooLong).length) setStatus(M.too_long_status, "error");
    else if (unsaved()) setStatus(M.unsaved, "pending");
    else setStatus(fmt(M.saved_at, { time: clock() }), "saved");
  }

  function setStatus(text, kind) {
    statusEl.textContent = text;
    statusEl.className = "save-status" + (kind ? " save-" + kind : "");
  }

  function linkTo(item) {
    var li = document.createElement("li");
    if (item.id) {
      var a = document.createElement("a");
      a.href = "#" + item.id;
      a.textContent = item.label;
      a.addEventListener("click", function (e) { e.preventDefault(); focusControl(item.id); });
      li.appendChild(a);
    } else {
      li.textContent = item.label;
    }
    return li;
  }
  /* What is missing, one line of counts per step that each open to their links: the whole
   * list of a fresh sheet (43 links) took half the screen. A step opened stays open while
   * the list shrinks. */
  var openSteps = {};
  var SHORT_LIST = 6;
  function stepOf(item) {
    var el = item.id ? document.getElementById(item.id) : null;
    var section = el ? el.closest("section.step") : null;
    return section ? section.id.replace("step-", "") : "";
  }
  function missingByStep(items) {
    var order = [], groups = {};
    items.forEach(function (item) {
      var n = stepOf(item);
      if (!groups[n]) { groups[n] = []; order.push(n); }
      groups[n].push(item);
    });
    order.forEach(function (n) {
      var li = document.createElement("li");
      var details = document.createElement("details");
      var summary = document.createElement("summary");
      summary.textContent = n ? fmt(M.missing_step, { n: n, count: groups[n].length }) : fmt(M.missing_other, { count: groups[n].length });
      details.appendChild(summary);
      var list = document.createElement("ul");
      groups[n].forEach(function (item) { list.appendChild(linkTo(item)); });
      details.appendChild(list);
      // a short list (the last few entries) is open at once
      details.open = openSteps[n] !== undefined ? openSteps[n] : items.length <= SHORT_LIST;
      details.addEventListener("toggle", function () { openSteps[n] = details.open; });
      li.appendChild(details);
      bannerList.appendChild(li);
    });
  }
  function showBanner(text, opts) {
    opts = opts || {};
    var incomplete = opts.kind === "incomplete";
    bannerText.textContent = text;
    bannerList.innerHTML = "";
    bannerList.classList.toggle("missing-steps", incomplete);
    if (incomplete) missingByStep(opts.items || []);
    else (opts.items || []).forEach(function (item) { bannerList.appendChild(linkTo(item)); });
    banner.className = "banner banner-" + (opts.kind || "warn");
    banner.setAttribute("data-kind", opts.kind || "warn");
    reloadBtn.hidden = !opts.reload;
    retryBtn.hidden = !opts.retry;
    if (closeBtn) closeBtn.hidden = !incomplete;
    banner.hidden = false;
  }
  function hideBanner() { banner.hidden = true; banner.removeAttribute("data-kind"); }

  function focusControl(id) {
    var el = document.getElementById(id);
    if (!el) return;
    if (el.tagName === "FIELDSET") {
      el = el.querySelector("input:checked") || el.querySelector("input");
    }
    if (el) { el.scrollIntoView({ block: "center" }); el.focus(); }
  }

  function record(path, value) {
    if (state.stopped || data.readonly) return;
    queueRecord(state.pending, path, value);
    persist();
    showTotals(computeTotals(), "client");
    if (!state.current) setStatus(M.unsaved, "pending");
    refreshCheck();
    schedule(DEBOUNCE_MS);
  }

  function schedule(ms) {
    clearTimeout(state.timer);
    state.timer = setTimeout(flush, ms);
  }

  function stop(kind, text, items) {
    state.stopped = true;
    clearTimeout(state.timer);
    showBanner(text, { kind: kind, reload: true, items: items });
    setStatus(M.unsaved, "error");
    if (submitBtn) submitBtn.disabled = true;
  }

  function retryLater(message) {
    state.delay = retryDelay(state.delay);
    showBanner(message + " (" + fmt(M.retry_in, { s: Math.round(state.delay / 1000) }) + ")", { kind: "warn", retry: true });
    setStatus(M.unsaved, "error");
    persist();
    schedule(state.delay);
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      redirect: "manual",
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(body)
    });
  }

  /* Send the next batch; resolves true when everything queued so far is saved. */
  function flush() {
    if (state.current) return state.current;
    state.current = sendNext().then(function (ok) { state.current = null; return ok; });
    return state.current;
  }

  function sendNext() {
    clearTimeout(state.timer);
    if (state.stopped) return Promise.resolve(false);
    if (state.staleToken) {
      return refreshToken().then(function (ok) {
        if (!ok) { retryLater(M.auth); return false; }
        state.staleToken = false;
        return sendNext();
      });
    }
    var fresh = !state.inflight;
    if (!batchNext(state, data.sheet, newId)) return Promise.resolve(true);
    if (fresh) persist();
    setStatus(M.saving, "saving");
    return post(data.save_url, state.inflight).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (body) { return { res: res, body: body }; });
    }).then(function (r) {
      var res = r.res, body = r.body;
      if (res.ok && body && body.ok) {
        state.version = body.version;
        state.inflight = null;
        state.delay = 0;
        persist();
        if (banner.getAttribute("data-kind") === "warn") hideBanner();
        if (state.pending.length) {
          showTotals(computeTotals(), "client");
          return sendNext();
        }
        showTotals(body.totals, "server");
        idleStatus();
        return true;
      }
      if (res.status === 429) {
        // too many saves in a short time: nothing was written; the same batch goes again
        // after Retry-After (doubling while refused), the draft kept in this browser
        state.delay = retryDelay(state.delay, parseInt(res.headers.get("Retry-After") || "1", 10));
        persist();
        return new Promise(function (resolve) { setTimeout(resolve, state.delay); }).then(sendNext);
      }
      if (res.status === 409 && body && body.error === "other_sheet") { otherUser(body.message); return false; }
      // each rater has their own blind code: after another rater logged in in this browser
      // (or the assignment was taken back) the code is no longer the session's own
      if (res.status === 404) { otherUser(M.gone); return false; }
      if (res.status === 409) { stop("conflict", M.conflict); return false; }
      if (res.status === 423) { stop("locked", M.locked); return false; }
      if (res.status === 422 && body) {
        state.inflight = null;
        persist();
        stop("error", M.invalid, (body.errors && body.errors.length ? body.errors : [{ message: body.message }]).map(function (e) {
          var el = e.path ? control(e.path) : null;
          return { id: el ? el.id : "", label: (e.path ? (data.labels[e.path] || e.path) + ": " : "") + e.message };
        }));
        return false;
      }
      if (res.type === "opaqueredirect" || res.status === 401 || res.status === 403) {
        state.staleToken = true;
        retryLater(M.auth);
        return false;
      }
      retryLater(M.offline);
      return false;
    }, function () {
      retryLater(M.offline);
      return false;
    });
  }

  /* Another rater logged in in this browser while this page was open: stop sending. The
   * changes stay stored under their author and go out when that rater opens the sheet again. */
  function otherUser(message) {
    state.stopped = true;
    clearTimeout(state.timer);
    showBanner(message, { kind: "conflict", reload: false });
    setStatus(M.unsaved, "error");
    if (submitBtn) submitBtn.disabled = true;
  }

  /* Changes left in this browser by this tab before a reload, or by a tab that was closed. */
  function restore() {
    if (!draftKey) return;  // drafts cannot be opened without the key: left for a page that has it
    var drafts = [];
    for (var i = 0; i < localStorage.length; i++) {
      var key = localStorage.key(i);
      if (key && key.indexOf(prefix) === 0) {
        try { drafts.push({ key: key, q: unseal(localStorage.getItem(key)) }); } catch (e) { localStorage.removeItem(key); }
      }
    }
    var found = draftsRestored(drafts, {
      storeKey: storeKey, version: data.version, lastBatchId: data.last_batch_id, now: Date.now()
    });
    if (!found.taken) return;
    found.remove.forEach(function (k) { localStorage.removeItem(k); });
    if (found.conflict) {
      // made against an older version: never applied silently; "Reload" discards them
      state.discard = found.discard;
      stop("conflict", M.conflict);
      return;
    }
    var changes = found.changes, held = found.held;
    changes.forEach(function (c) { setControl(c[0], c[1]); });
    state.pending = changes;
    // texts held back for being too long come back into their fields, still held back
    Object.keys(held).forEach(function (p) {
      var el = control(p);
      if (!el || el.tagName === "FIELDSET") return;
      el.value = held[p];
      if (lengthOk(el, p)) { changes.push([p, held[p]]); mirror(p, held[p]); }
    });
    persist();
    if (changes.length) {
      showTotals(computeTotals(), "client");
      setStatus(M.unsaved, "pending");
      schedule(0);
    }
  }

  // ---- events ----------------------------------------------------------------
  function onChange(e) {
    var t = e.target;
    if (t.type === "radio") {
      record(t.name, parseInt(t.value, 10));
      showLevel(t.name);
      return;
    }
    var path = t.getAttribute("data-path");
    if (!path) return;
    if (t.classList.contains("cls")) {
      var wasYes = t.closest("tr") && t.closest("tr").classList.contains("is-yes");
      record(path, t.value);
      var scales = syncRow(t);
      if (wasYes && !isYes(t.value)) {
        scales.forEach(function (p) {
          if (valueOf(p) !== null) { setControl(p, null); record(p, null); }
        });
      }
    }
  }

  function onInput(e) {
    var t = e.target;
    var path = t.getAttribute("data-path");
    if (!path || t.classList.contains("cls")) return;
    if (!lengthOk(t, path)) return;
    record(path, t.value);
    mirror(path, t.value);
  }

  /* A text over the limit is never cut silently: the field says so and keeps it
   * unsaved (the server would refuse it) until it is short enough. */
  var tooLong = {};
  function lengthOk(t, path) {
    var max = parseInt(t.getAttribute("data-maxlength") || "0", 10);
    var note = document.getElementById(t.id + "-length");
    if (!max || t.value.length <= max) {
      if (note) note.remove();
      t.removeAttribute("aria-invalid");
      if (tooLong[path]) {
        delete tooLong[path];
        delete state.held[path];
        persist();
        showHeld();
      }
      return true;
    }
    if (!note) {
      note = document.createElement("p");
      note.id = t.id + "-length";
      note.className = "field-error";
      note.setAttribute("role", "alert");
      t.insertAdjacentElement("afterend", note);
      t.setAttribute("aria-describedby", note.id);
    }
    note.textContent = fmt(M.too_long, { n: t.value.length, max: max });
    t.setAttribute("aria-invalid", "true");
    tooLong[path] = t.id;
    state.held[path] = t.value;
    persist();
    showHeld();
    if (!state.current) idleStatus();
    return false;
  }
  /* The bar lists the texts held back for being too long (unless a graver message is up). */
  function showHeld() {
    var kind = banner.hidden ? "" : banner.getAttribute("data-kind");
    var long = Object.keys(tooLong);
    if (long.length && (!kind || kind === "held" || kind === "incomplete")) {
      showBanner(M.too_long_submit, { kind: "held", items: heldItems() });
    } else if (!long.length && kind === "held") {
      hideBanner();
    }
    if (!state.current) idleStatus();
  }
  function heldItems() {
    return Object.keys(tooLong).map(function (p) {
      return { id: tooLong[p], label: data.labels[p] || labelOf(tooLong[p]) || p };
    });
  }
  function labelOf(id) {
    var label = document.querySelector('label[for="' + id + '"]');
    return label ? label.textContent : "";
  }

  function submit() {
    if (state.stopped) return;
    if (Object.keys(tooLong).length) {
      showBanner(M.too_long_submit, { kind: "held", items: heldItems() });
      return;
    }
    // the page knows what is missing: say it before asking to confirm
    var check = refreshCheck();
    if (check.missing.length) {
      showBanner(M.incomplete, { kind: "incomplete", items: missingItems(check.missing) });
      return;
    }
    if (!window.confirm(M.confirm_submit)) return;
    submitNow();
  }

  /* Drain the queue, then submit; a submit that did not get through is sent again. */
  function submitNow() {
    clearTimeout(state.submitTimer);
    if (state.stopped) return;
    submitBtn.disabled = true;
    setStatus(M.submit_wait, "saving");
    var drain = function () {
      return flush().then(function (ok) {
        if (!ok) return false;
        return unsaved() ? drain() : true;
      });
    };
    drain().then(function (ok) {
      if (!ok) {
        // the queue could not be saved yet: the submit follows once it is
        if (!state.stopped) { clearTimeout(state.timer); submitLater(M.offline); }
        return;
      }
      setStatus(M.submitting, "saving");
      return reportTime(false).then(function () { return post(data.submit_url, { sheet: data.sheet, expected_version: state.version }).then(function (res) {
        return res.json().catch(function () { return null; }).then(function (body) {
          submitBtn.disabled = false;
          if (res.ok && body && body.ok) {
            localStorage.removeItem(storeKey);
            window.location.assign(body.redirect);
            return;
          }
          if (res.status === 400 && body && body.missing) {
            idleStatus();
            showBanner(M.incomplete, { kind: "incomplete", items: body.missing });
            return;
          }
          if (res.status === 409 && body && body.error === "other_sheet") { otherUser(body.message); return; }
          if (res.status === 404) { otherUser(M.gone); return; }
          if (res.status === 409) { stop("conflict", M.conflict); return; }
          if (res.type === "opaqueredirect" || res.status === 401 || res.status === 403) state.staleToken = true;
          submitLater(res.status === 403 || res.type === "opaqueredirect" ? M.auth : M.offline);
        });
      }, function () { submitLater(M.offline); }); });
    });
  }

  function submitLater(message) {
    submitBtn.disabled = true;
    state.delay = retryDelay(state.delay);
    showBanner(message + " (" + fmt(M.retry_in, { s: Math.round(state.delay / 1000) }) + ")", { kind: "warn", retry: true });
    setStatus(M.unsaved, "error");
    state.submitTimer = setTimeout(function () {
      if (!state.staleToken) { submitNow(); return; }
      refreshToken().then(function (ok) {
        if (ok) state.staleToken = false;
        if (ok) submitNow(); else submitLater(M.auth);
      });
    }, state.delay);
  }

  // ---- layout --------------------------------------------------------------------
  /* The scenario is open on this rater's first visit to it and collapsed after: read once,
   * it is one click away. The key names only the rater and the scenario (both known to them). */
  function scenarioPanel() {
    var panel = document.getElementById("scenario");
    if (!panel) return;
    var key = panel.getAttribute("data-seen-key");
    var seen = null;
    try { seen = localStorage.getItem(key); } catch (e) { /* storage disabled: open it */ }
    if (!seen) {
      panel.open = true;
      try { localStorage.setItem(key, String(Date.now())); } catch (e) { }
    }
    panel.setAttribute("data-first-read", seen ? "0" : "1");
  }
  /* Headings and controls scrolled to stop below the sticky summary, whatever its height. */
  function stickyHeight() {
    var summary = document.getElementById("summary");
    if (summary) document.documentElement.style.setProperty("--sticky-h", summary.offsetHeight + "px");
  }

  // ---- start -------------------------------------------------------------------
  scenarioPanel();
  stickyHeight();
  window.addEventListener("resize", stickyHeight);
  // the bar grows and shrinks with its messages: controls scrolled to stay below it
  if (window.ResizeObserver) new ResizeObserver(stickyHeight).observe(document.getElementById("summary"));
  reloadBtn.addEventListener("click", function () {
    localStorage.removeItem(storeKey);
    (state.discard || []).forEach(function (key) { localStorage.removeItem(key); });
    window.location.reload();
  });
  // closed by its button: the focus goes back to the control the rater was on
  var lastControl = null;
  form.addEventListener("focusin", function (e) { lastControl = e.target; });
  if (closeBtn) closeBtn.addEventListener("click", function () {
    hideBanner();
    if (lastControl && document.contains(lastControl)) lastControl.focus({ preventScroll: true });
  });
  retryBtn.addEventListener("click", function () {
    state.delay = 0;
    if (state.submitTimer) { clearTimeout(state.submitTimer); state.submitTimer = null; submitNow(); } else flush();
  });
  // Enter in a field never submits the sheet: saving is automatic, submitting is the button
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  if (data.readonly) return;
  form.addEventListener("change", onChange);
  form.addEventListener("input", onInput);
  installKeys({
    form: form,
    control: control,
    missingPaths: function () { return computeMissing().missing; },
    onComplete: function () { setStatus(M.complete, "saved"); },
    clearScore: function (path) { if (valueOf(path) !== null) { setControl(path, null); record(path, null); } },
    submit: submitBtn ? submit : null,
    closeMissingList: function () {
      if (banner.hidden || banner.getAttribute("data-kind") !== "incomplete") return false;
      hideBanner();
      return true;
    }
  });
  document.querySelectorAll(".use-implied").forEach(function (b) {
    b.addEventListener("click", function () {
      var path = b.getAttribute("data-use-path"), v = parseInt(b.getAttribute("data-value"), 10);
      setControl(path, v);
      record(path, v);
    });
  });
  if (submitBtn) submitBtn.addEventListener("click", submit);
  var reportTime = trackActiveTime({ url: data.time_url, sheet: data.sheet, csrfToken: csrfToken });
  window.addEventListener("online", function () { if (unsaved()) { state.delay = 0; flush(); } });
  document.querySelectorAll('form[action$="/accounts/logout/"]').forEach(function (logout) {
    logout.addEventListener("submit", function (e) {
      if (!unsaved() || logout.getAttribute("data-flushed")) return;
      e.preventDefault();
      logout.setAttribute("data-flushed", "1");
      var done = function () { logout.submit(); };
      Promise.race([flush(), new Promise(function (r) { setTimeout(r, 3000); })]).then(done, done);
    });
  });
  restore();
  refreshCheck();
  document.documentElement.setAttribute("data-sheet-ready", "1");
})();
