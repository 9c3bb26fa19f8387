"use strict";
(function () {
  var form = document.getElementById("filters");
  var reason = document.getElementById("f-reason");
  var action = document.getElementById("f-action");
  var search = document.getElementById("f-search");
  var count = document.getElementById("f-count");
  var items = Array.prototype.slice.call(document.querySelectorAll("article.decision"));
  var texts = null;
  function apply() {
    var r = reason.value, a = action.value, q = search.value.trim().toLowerCase();
    if (q && texts === null) {
      texts = items.map(function (item) { return item.textContent.toLowerCase(); });
    }
    var shown = 0;
    items.forEach(function (item, i) {
      var ok = (!r || item.dataset.reason === r) && (!a || item.dataset.action === a) &&
        (!q || texts[i].indexOf(q) !== -1);
      item.hidden = !ok;
      if (ok) { shown += 1; }
    });
    count.textContent = shown + " of " + items.length + " decisions shown";
  }
  reason.addEventListener("change", apply);
  action.addEventListener("change", apply);
  search.addEventListener("input", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  form.hidden = false;
  apply();
})();
