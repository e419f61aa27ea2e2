/* A part of a page that scrolls (a wide table in its card on a phone, a long response's step
 * on the held responses page) must be reachable by keyboard (WCAG 2.1.1, axe's
 * scrollable-region-focusable). While it overflows it is a focusable region named after its
 * heading; when it fits again it is plain markup again, so no extra tab stops otherwise. */
(function () {
  "use strict";
  var SELECTOR = ".scroll, .table-scroll, .card, .answer-all .answer-text";

  function overflows(el) {
    var style = getComputedStyle(el);
    return (el.scrollWidth > el.clientWidth + 1 && style.overflowX !== "visible") ||
      (el.scrollHeight > el.clientHeight + 1 && style.overflowY !== "visible");
  }

  function nameOf(el) {
    var before = el.previousElementSibling;  // a step's text: its "Step N" heading
    if (before && /^H[2-4]$/.test(before.tagName)) return before.textContent.trim();
    var holder = el.matches(".card") ? el : el.closest(".card, section") || el;
    var heading = holder.querySelector("h2, h3, caption");
    return heading ? heading.textContent.trim() : document.title;
  }

  function mark() {
    document.querySelectorAll(SELECTOR).forEach(function (el) {
      var overflowing = overflows(el);
      var ours = el.hasAttribute("data-scroll-region");
      if (overflowing && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "region");
        el.setAttribute("aria-label", nameOf(el));
        el.setAttribute("data-scroll-region", "");
      } else if (!overflowing && ours) {
        ["tabindex", "role", "aria-label", "data-scroll-region"].forEach(function (name) {
          el.removeAttribute(name);
        });
      }
    });
  }

  document.addEventListener("DOMContentLoaded", mark);
  window.addEventListener("resize", mark);
  document.addEventListener("htmx:afterSettle", mark);
})();
