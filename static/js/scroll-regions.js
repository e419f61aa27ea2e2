/* A part of a page that scrolls sideways (a wide table in its card on a phone) must be
 * reachable by keyboard (WCAG 2.1.1, axe's scrollable-region-focusable). While it
 * overflows it is a focusable region named after its heading; when it fits again it is
 * plain markup again, so wide screens get no extra tab stops. */
(function () {
  "use strict";
  var SELECTOR = ".scroll, .table-scroll, .card";

  function nameOf(el) {
    var holder = el.matches(".card") ? el : el.closest(".card, section") || el;
    var heading = holder.querySelector("h2, h3, caption");
    return heading ? heading.textContent.trim() : document.title;
  }

  function mark() {
    document.querySelectorAll(SELECTOR).forEach(function (el) {
      var overflowing =
        el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible";
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
