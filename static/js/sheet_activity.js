/* A sheet's active time: it counts while the page has focus and the rater acts (types, clicks,
 * scrolls, moves the pointer); a pause longer than IDLE_MS is left out. It is reported about once
 * a minute, before a submit and when the page is hidden or left; a report that fails is tried
 * again with the next. ``activeClock`` is the pure counter (node's tests drive its clock). */

export const IDLE_MS = 180000;
export const REPORT_MS = 60000;
export const MAX_REPORT_SECONDS = 900; // the server takes at most this much in one report

/* act(now, focused) at each of the rater's acts; pause() when the page loses focus; take() the
 * whole seconds to report now; giveBack(seconds) when their report failed. */
export function activeClock() {
  let last = null;
  let ms = 0;
  return {
    act(now, focused) {
      if (last !== null && now - last <= IDLE_MS) ms += now - last;
      last = focused ? now : null;
    },
    pause() {
      last = null;
    },
    take() {
      const seconds = Math.min(Math.floor(ms / 1000), MAX_REPORT_SECONDS);
      ms -= seconds * 1000;
      return seconds;
    },
    giveBack(seconds) {
      ms += seconds * 1000;
    },
  };
}

/* Counts this page's active time and reports it to ``url`` for ``sheet`` (``csrfToken()`` gives
 * the token to send). Returns report(leaving), which a submit calls first. */
export function trackActiveTime({ url, sheet, csrfToken }) {
  const clock = activeClock();
  const act = () => clock.act(Date.now(), document.hasFocus());
  function report(leaving) {
    const seconds = clock.take();
    if (seconds < 1) return Promise.resolve();
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      keepalive: !!leaving,
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify({ sheet: sheet, seconds: seconds }),
    }).then(
      (res) => {
        if (!res.ok && res.status >= 500) clock.giveBack(seconds); // tried again with the next report
      },
      () => clock.giveBack(seconds),
    );
  }
  for (const kind of ["input", "change", "keydown", "click", "scroll", "pointermove", "focus"]) {
    window.addEventListener(kind, act, { capture: true, passive: true });
  }
  window.addEventListener("blur", () => {
    act();
    clock.pause();
  });
  setInterval(() => report(false), REPORT_MS);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      act();
      report(true);
    }
  });
  window.addEventListener("pagehide", () => {
    act();
    report(true);
  });
  act();
  return report;
}
