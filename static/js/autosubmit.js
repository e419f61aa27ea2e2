/* Controls marked data-autosubmit submit their form when changed (the language switch,
 * the study filters). Replaces inline onchange="this.form.submit()" handlers, which the
 * Content-Security-Policy forbids. Delegated from the document, so controls that htmx
 * swaps in later work too. */
(function () {
  "use strict";
  document.addEventListener("change", function (event) {
    var control = event.target;
    if (!(control instanceof Element) || !control.hasAttribute("data-autosubmit") || !control.form) return;
    if (typeof control.form.requestSubmit === "function") control.form.requestSubmit();
    else control.form.submit();
  });
})();
