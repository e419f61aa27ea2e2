/* Many at once (the held responses, a study's invitations, the assignment forms' scenarios and
 * raters): a box that ticks every box of a name in its form (data-tick-all="name"), a count of the
 * ticked rows, a question before acting on every matching row (a scope marked data-confirm), and a
 * busy note while the server works (the buttons disabled, so that a second press sends nothing).
 * Rows' boxes may belong to their form by a form="..." attribute. Delegated from the document, so
 * that boxes htmx swaps in (a study's choices) work too. */
(function () {
  "use strict";
  function boxes(form, name) {
    return Array.prototype.filter.call(document.querySelectorAll('input[type="checkbox"][name="' + name + '"]'), function (box) {
      return box.form === form;
    });
  }
  function showCount(form) {
    var count = form && form.querySelector("[data-ticked-count]");
    if (!count) return;
    var n = boxes(form, "ids").filter(function (box) { return box.checked; }).length;
    count.textContent = n ? count.getAttribute("data-template").replace("__N__", n) : count.getAttribute("data-zero");
  }
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!(box instanceof HTMLInputElement) || box.type !== "checkbox" || !box.form) return;
    var name = box.getAttribute("data-tick-all");
    if (name) {
      boxes(box.form, name).forEach(function (each) { each.checked = box.checked; });
    } else if (!box.checked) {
      box.form.querySelectorAll('[data-tick-all="' + box.name + '"]').forEach(function (all) { all.checked = false; });
    }
    showCount(box.form);
  });
  document.querySelectorAll("form[data-bulk]").forEach(function (form) {
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
  // back to a page the browser kept (bfcache): its forms are ready again
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    document.querySelectorAll("form[data-bulk]").forEach(function (form) {
      form.removeAttribute("aria-busy");
      form.querySelectorAll("button").forEach(function (button) { button.disabled = false; });
      form.querySelectorAll("[data-busy]").forEach(function (busy) { busy.hidden = true; });
    });
  });
})();
