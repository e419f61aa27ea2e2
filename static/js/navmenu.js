/* On narrow screens the admins' and researchers' main navigation folds into a "Menu"
 * button (their many links do not fit 390 px). Without JavaScript the links simply wrap. */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.querySelector(".navtoggle");
    var nav = document.querySelector(".mainnav.collapsible");
    if (!button || !nav) return;
    nav.id = nav.id || "mainnav";
    button.setAttribute("aria-controls", nav.id);
    button.hidden = false;
    document.documentElement.classList.add("navmenu-ready");
    button.addEventListener("click", function () {
      var open = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", open ? "true" : "false");
      nav.classList.toggle("open", open);
    });
  });
})();
