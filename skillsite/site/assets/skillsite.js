/* skillsite's catalog site: search box, listing filters kept in the URL, sortable tables,
   and the neighbourhood graphs. Loaded as a file (the Content-Security-Policy forbids
   inline script); it only reads what skillsite wrote, never skill text as HTML. */
(function () {
  "use strict";
  var self = document.currentScript && document.currentScript.src;
  var base = self ? new URL("../../", self) : new URL(".", location.href);

  function load(tag, attrs) {
    return new Promise(function (resolve, reject) {
      var node = document.createElement(tag);
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
      node.onload = resolve; node.onerror = reject;
      document.head.appendChild(node);
    });
  }

  function fillBase() {
    document.querySelectorAll(".skillsite-base").forEach(function (node) {
      node.textContent = base.href;
    });
  }

  function search() {
    var box = document.getElementById("skillsite-search");
    if (!box) return;
    // The index is in bundles (pagefind/0/, pagefind/1/...): the first holds the UI and
    // the WebAssembly, the others are merged into it.
    var bundles = (box.dataset.bundles || "").split(" ").filter(Boolean).map(function (name) {
      return new URL("pagefind/" + name + "/", base);
    });
    if (!bundles.length) { box.textContent = "No skills to search yet."; return; }
    load("link", {rel: "stylesheet", href: new URL("pagefind-ui.css", bundles[0]).href});
    load("script", {src: new URL("pagefind-ui.js", bundles[0]).href}).then(function () {
      new window.PagefindUI({element: "#skillsite-search", showImages: false,
                             bundlePath: bundles[0].pathname, baseUrl: base.pathname,
                             mergeIndex: bundles.slice(1).map(function (url) {
                               return {bundlePath: url.pathname, baseUrl: base.pathname};
                             }),
                             pageSize: 10, resetStyles: false});
      var params = new URLSearchParams(location.search);
      var input = box.querySelector("input");
      if (input && params.get("search")) {
        input.value = params.get("search");
        input.dispatchEvent(new Event("input", {bubbles: true}));
      }
    });
  }

  function rowsOf(table) { return Array.prototype.slice.call(table.tBodies[0].rows); }

  function filters() {
    document.querySelectorAll("form.skillsite-filters").forEach(function (form) {
      var table = document.querySelector(".skillsite-listing table");
      if (!table) return;
      var params = new URLSearchParams(location.search);
      form.q.value = params.get("q") || "";
      form.format.value = params.get("format") || "";
      form.sort.value = params.get("sort") || "name";
      form.hide.checked = params.get("hide") === "flagged";
      function apply(record) {
        var q = form.q.value.trim().toLowerCase(), format = form.format.value;
        var hide = form.hide.checked, sort = form.sort.value;
        var rows = rowsOf(table), shown = 0;
        rows.forEach(function (row) {
          var d = row.dataset, ok = (!format || d.format === format) &&
            !(hide && d.flagged === "1") &&
            (!q || (d.name + " " + d.tags + " " + row.textContent).toLowerCase().indexOf(q) >= 0);
          row.hidden = !ok; if (ok) shown++;
        });
        rows.sort(function (a, b) {
          if (sort === "changed") return Number(b.dataset.changed) - Number(a.dataset.changed);
          return a.dataset.name < b.dataset.name ? -1 : a.dataset.name > b.dataset.name ? 1 : 0;
        }).forEach(function (row) { table.tBodies[0].appendChild(row); });
        table.dataset.shown = String(shown);
        if (record) {
          var next = new URLSearchParams();
          if (q) next.set("q", form.q.value.trim());
          if (format) next.set("format", format);
          if (sort !== "name") next.set("sort", sort);
          if (hide) next.set("hide", "flagged");
          var query = next.toString();
          history.replaceState(null, "", location.pathname + (query ? "?" + query : ""));
        }
      }
      form.addEventListener("input", function () { apply(true); });
      form.addEventListener("change", function () { apply(true); });
      form.addEventListener("submit", function (event) { event.preventDefault(); });
      apply(false);
    });
  }

  function sortable() {
    document.querySelectorAll(".skillsite-sortable table").forEach(function (table) {
      table.querySelectorAll("thead th").forEach(function (th, column) {
        th.style.cursor = "pointer";
        th.addEventListener("click", function () {
          var down = th.dataset.order !== "asc";
          th.dataset.order = down ? "asc" : "desc";
          rowsOf(table).sort(function (a, b) {
            var x = a.cells[column].textContent, y = b.cells[column].textContent;
            var n = Number(x) - Number(y);
            var order = isNaN(n) ? x.localeCompare(y) : n;
            return down ? order : -order;
          }).forEach(function (row) { table.tBodies[0].appendChild(row); });
        });
      });
    });
  }

  function graphs() {
    var nodes = document.querySelectorAll("pre.skillsite-graph");
    if (!nodes.length) return;
    load("script", {src: new URL("assets/skillsite/mermaid.min.js", base).href})
      .then(function () {
        window.mermaid.initialize({startOnLoad: false, securityLevel: "strict"});
        return window.mermaid.run({nodes: nodes});
      })
      .then(function () { document.body.dataset.graphs = "rendered"; });
  }

  fillBase(); search(); filters(); sortable(); graphs();
})();
