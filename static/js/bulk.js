/* Bulk actions on a list (the held responses, a study's invitations): a box that ticks every row of the page, a
 * count of the ticked rows, a question before acting on every matching row (a scope marked
 * data-confirm), and a busy note while
 * the server works (the buttons disabled, so that a second press sends nothing). The rows' boxes
 * belong to the form by their form="..." attribute. */
(function () {
  "use strict";
  function boxes(form, name) {
    return Array.prototype.filter.call(document.querySelectorAll('input[type="checkbox"][name="' + name + '"]'), function (box) {
      return box.form === form;
    });
  }
  function showCount(form) {
    var count = form.querySelector("[data-ticked-count]");
    if (!count) return;
    var n = boxes(form, "ids").filter(function (box) { return box.checked; }).length;
    count.textContent = n ? count.getAttribute("data-template").replace("__N__", n) : count.getAttribute("data-zero");
  }
  document.querySelectorAll("form[data-bulk]").forEach(function (form) {
    var all = form.querySelector("[data-tick-all]");
    if (all) {
      all.addEventListener("change", function () {
        boxes(form, all.getAttribute("data-tick-all")).forEach(function (box) { box.checked = all.checked; });
        showCount(form);
      });
    }
    document.addEventListener("change", function (event) {
      var box = event.target;
      if (box instanceof HTMLInputElement && box.name === "ids" && box.form === form) {
        if (!box.checked && all) all.checked = false;
        showCount(form);
      }
    });
    form.addEventListener("submit", function (event) {
      var scope = form.querySelector('input[name="scope"]:checked');
      if (scope && scope.hasAttribute("data-confirm") && !window.confirm(form.getAttribute("data-confirm-matching"))) {
        event.preventDefault();
        return;
      }
      var busy = form.querySelector("[data-busy]");
      if (busy) { busy.textContent = form.getAttribute("data-busy-text"); busy.hidden = false; }
      form.setAttribute("aria-busy", "true");
      // disabled after the submit has taken the pressed button's value
      window.setTimeout(function () {
        form.querySelectorAll("button").forEach(function (button) { button.disabled = true; });
      }, 0);
    });
    showCount(form);
  });
})();
