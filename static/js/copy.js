/* Buttons marked data-copy="ID" copy the text of the element with that id to the
 * clipboard (invitation links). No inline handlers: the Content-Security-Policy forbids them. */
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var text = source.value !== undefined ? source.value : source.textContent;
    var done = function () {
      button.setAttribute("data-copied", "1");
      button.textContent = button.getAttribute("data-copied-label") || button.textContent;
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { source.select && source.select(); });
    } else if (source.select) {
      source.select();
      document.execCommand("copy");
      done();
    }
  });
})();
