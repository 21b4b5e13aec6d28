/* skillsite's catalog site: the search (header and home), listing filters kept in the URL,
   sortable tables (graphs are SVG drawn at build time: no graph library). Loaded as a file
   (the Content-Security-Policy forbids inline script); it only reads what skillsite wrote,
   never skill text as HTML. */
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

  // The search: a box in the header of every page (and the home page's big box) over
  // Pagefind's own API, loaded on first use. Results show a skill's id and description,
  // always as text.
  // Pagefind's own ranking: against skillsite search (bench/bench_site_search.py), other
  // settings of term frequency, saturation and page length agreed no better.
  var RANKING = {};
  var PAGE = 10;
  var engine = null;

  function pagefind() {
    if (engine) return engine;
    engine = fetch(new URL("assets/skillsite/search.json", base).href)
      .then(function (response) { return response.json(); })
      .then(function (manifest) {
        var bundles = (manifest.bundles || []).map(function (name) {
          return new URL("pagefind/" + name + "/", base);
        });
        if (!bundles.length) return null;
        return import(new URL("pagefind.js", bundles[0]).href).then(function (pf) {
          return pf.options({bundlePath: bundles[0].pathname, baseUrl: base.pathname,
                             ranking: RANKING})
            .then(function () { return pf.init(); })
            .then(function () {
              return Promise.all(bundles.slice(1).map(function (url) {
                return pf.mergeIndex(url.pathname, {baseUrl: base.pathname});
              }));
            })
            .then(function () { return pf; });
        });
      });
    return engine;
  }

  function hit(data) {
    var item = document.createElement("li");
    var link = document.createElement("a");
    link.href = data.url;
    var name = document.createElement("span");
    name.className = "skillsite-hit__name";
    name.textContent = (data.meta && data.meta.title) || data.url;
    var about = document.createElement("span");
    about.className = "skillsite-hit__description";
    about.textContent = (data.meta && data.meta.description) || "";
    link.appendChild(name); link.appendChild(about); item.appendChild(link);
    return item;
  }

  // Words a query is made of that say nothing of a skill (matched on their own, they
  // would find almost every skill).
  var STOP = {};
  ("a an and are as at be by do for from how i in into is it its me my of on or our so " +
   "that the their this to up use using want we what when with without you your")
    .split(" ").forEach(function (word) { STOP[word] = true; });

  // Pagefind finds the skills that hold every word of the query. When they are fewer
  // than a page, the skills that hold some of its words follow, as the reader ranks
  // them: those that hold more of the words first, then by their summed scores.
  function searchAll(pf, query) {
    return pf.search(query).then(function (found) {
      var results = found ? found.results : [];
      var words = query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(function (w) {
        return w && !STOP[w];
      });
      if (words.length < 2 || results.length >= PAGE) return results;
      var held = {};
      results.forEach(function (r) { held[r.id] = true; });
      return Promise.all(words.map(function (w) { return pf.search(w); })).then(function (each) {
        var byId = {}, partial = [];
        each.forEach(function (one) {
          (one ? one.results : []).forEach(function (r) {
            if (held[r.id]) return;
            var seen = byId[r.id];
            if (!seen) { seen = byId[r.id] = {result: r, words: 0, score: 0}; partial.push(seen); }
            seen.words += 1; seen.score += r.score;
          });
        });
        partial.sort(function (a, b) { return b.words - a.words || b.score - a.score; });
        return results.concat(partial.map(function (p) { return p.result; }));
      });
    });
  }

  // As the reader does: a query that is a skill's name (or its id) finds it first.
  function exactFirst(all, query) {
    var wanted = query.toLowerCase().split(/\s+/).join("-");
    function exact(data) {
      var id = ((data.meta && data.meta.title) || "").toLowerCase();
      return id === wanted || id.split(/[:\/]/).pop() === wanted;
    }
    return all.filter(exact).concat(all.filter(function (d) { return !exact(d); }));
  }

  function finder(form, panel) {
    var input = form.querySelector("input[type=search]");
    var status = document.createElement("p");
    status.className = "skillsite-hits__status";
    status.setAttribute("role", "status");
    var list = document.createElement("ol");
    list.className = "skillsite-hits__list";
    var more = document.createElement("button");
    more.type = "button"; more.className = "md-button"; more.textContent = "More results";
    more.hidden = true;
    panel.appendChild(status); panel.appendChild(list); panel.appendChild(more);
    var asked = 0, shown = PAGE, timer = null;

    function run() {
      var query = input.value.trim(), mine = ++asked;
      if (!query) { panel.hidden = true; list.textContent = ""; return; }
      panel.hidden = false;
      pagefind().then(function (pf) {
        if (!pf) { status.textContent = "No skills to search yet."; return null; }
        return searchAll(pf, query).then(function (results) {
          return Promise.all(results.slice(0, shown).map(function (r) { return r.data(); }))
            .then(function (all) {
              if (mine !== asked) return;
              list.textContent = "";
              exactFirst(all, query).forEach(function (data) { list.appendChild(hit(data)); });
              status.textContent = results.length === 1 ? "1 skill" :
                results.length + " skills";
              more.hidden = results.length <= shown;
              form.dataset.searched = query;
            });
        });
      }).catch(function (error) {
        status.textContent = "The search could not load: " + error;
      });
    }

    input.addEventListener("focus", function () { pagefind(); });
    input.addEventListener("input", function () {
      shown = PAGE; clearTimeout(timer); timer = setTimeout(run, 80);
    });
    more.addEventListener("click", function () { shown += PAGE; run(); });
    form.addEventListener("submit", function (event) { event.preventDefault(); run(); });
    form.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { panel.hidden = true; input.focus(); }
      if (event.key === "ArrowDown" && document.activeElement === input) {
        var first = list.querySelector("a");
        if (first) { event.preventDefault(); first.focus(); }
      }
    });
    return {input: input, run: run};
  }

  function headerSearch() {
    var title = document.querySelector(".md-header__title");
    if (!title || document.querySelector(".skillsite-find--header")) return;
    var form = document.createElement("form");
    form.className = "skillsite-find skillsite-find--header";
    form.setAttribute("role", "search");
    form.action = base.href;
    var label = document.createElement("label");
    label.className = "skillsite-hidden"; label.htmlFor = "skillsite-find-header";
    label.textContent = "Search skills";
    var input = document.createElement("input");
    input.type = "search"; input.name = "search"; input.id = "skillsite-find-header";
    input.placeholder = "Search skills"; input.autocomplete = "off";
    var panel = document.createElement("div");
    panel.className = "skillsite-hits skillsite-hits--header"; panel.hidden = true;
    form.appendChild(label); form.appendChild(input); form.appendChild(panel);
    title.parentNode.insertBefore(form, title.nextSibling);
    finder(form, panel);
    document.addEventListener("click", function (event) {
      if (!form.contains(event.target)) panel.hidden = true;
    });
  }

  function homeSearch() {
    var form = document.querySelector("form.skillsite-find--home");
    if (!form) return;
    var panel = document.createElement("div");
    panel.className = "skillsite-hits"; panel.hidden = true;
    form.appendChild(panel);
    var box = finder(form, panel);
    var asked = new URLSearchParams(location.search).get("search");
    if (asked) { box.input.value = asked; box.run(); }
  }

  function rowsOf(table) { return Array.prototype.slice.call(table.tBodies[0].rows); }

  // A listing's filters, kept in the URL's query: ?format=&plugin=&collection=&trust=
  // &problems=1&sort=changed&q=. The count says how many of the listing's skills show.
  var FILTERS = ["format", "plugin", "collection", "category", "trust"];

  // A long listing holds its first cards; the others are in JSON files (lists of
  // cards) named in the list's data-more, loaded as the reader scrolls near the end, or
  // all at once before a filter or a sort applies (they need every card).
  function moreCards(list, added) {
    var names = (list.dataset.more || "").split(" ").filter(Boolean), loading = null;
    var end = null;
    var template = document.createElement("template");
    function next() {
      if (!names.length) return Promise.resolve(false);
      var name = names.shift();
      return fetch(new URL(name, location.href).href)
        .then(function (response) { return response.json(); })
        .then(function (cards) {
          template.innerHTML = cards.join("");
          list.appendChild(template.content);
          if (!names.length && end) end.remove();
          added();
          return true;
        });
    }
    function one() {
      loading = (loading || Promise.resolve()).then(next);
      return loading;
    }
    function all() {
      return one().then(function (more) { return more ? all() : undefined; });
    }
    if (names.length && "IntersectionObserver" in window) {
      end = document.createElement("p");
      end.className = "skillsite-more-cards";
      end.textContent = "Loading more skills…";
      list.after(end);
      // Loads while the end of the list is within a screen of the view (the observer
      // says so only when that changes, and a short list stays near after a load).
      var near = function () {
        return end.getBoundingClientRect().top < window.innerHeight + 800;
      };
      var fill = function () {
        if (!names.length) { watch.disconnect(); end.remove(); return; }
        if (near()) one().then(fill);
      };
      var watch = new IntersectionObserver(function (seen) {
        if (seen.some(function (e) { return e.isIntersecting; })) fill();
      }, { rootMargin: "800px" });
      watch.observe(end);
    }
    return { all: all, done: function () { return !names.length; } };
  }

  function filters() {
    document.querySelectorAll("form.skillsite-filters").forEach(function (form) {
      var list = document.querySelector(".skillsite-cards");
      var count = document.querySelector(".skillsite-count");
      if (!list) return;
      var cards = [], keys = new Map();
      function collect() {
        cards = Array.prototype.slice.call(list.children);
        cards.forEach(function (card) {
          if (keys.has(card)) return;
          var link = card.querySelector("a");
          keys.set(card, (link ? link.textContent : "").toLowerCase());
        });
      }
      collect();
      var total = Number(list.dataset.total) || cards.length;
      // Loading every card for a filter applies it once, at the end (not after each file).
      var bulk = false;
      var more = moreCards(list, function () { if (!bulk) { collect(); apply(false); } });
      // A card leaves out the defaults: no plugin, collection or category, trust "none".
      function valueOf(card, name) {
        return card.dataset[name] || (name === "trust" ? "none" : "");
      }
      var params = new URLSearchParams(location.search);
      function field(name) { return form.elements.namedItem(name); }
      var names = FILTERS.filter(function (name) { return field(name); });
      var problemsBox = field("problems");
      names.forEach(function (name) { field(name).value = params.get(name) || ""; });
      field("q").value = params.get("q") || "";
      field("sort").value = params.get("sort") === "changed" ? "changed" : "name";
      if (problemsBox) problemsBox.checked = params.get("problems") === "1";

      function filtered() {
        return Boolean(field("q").value.trim() || field("sort").value !== "name" ||
          (problemsBox && problemsBox.checked) ||
          names.some(function (name) { return field(name).value; }));
      }

      function apply(record) {
        var q = field("q").value.trim().toLowerCase(), sort = field("sort").value;
        var problems = problemsBox ? problemsBox.checked : false, shown = 0;
        var wanted = {};
        names.forEach(function (name) { wanted[name] = field(name).value; });
        cards.forEach(function (card) {
          var d = card.dataset, ok = !(problems && !d.problems) &&
            (!q || card.textContent.toLowerCase().indexOf(q) >= 0);
          Object.keys(wanted).forEach(function (name) {
            if (wanted[name] && valueOf(card, name) !== wanted[name]) ok = false;
          });
          card.hidden = !ok; if (ok) shown++;
        });
        cards.sort(function (a, b) {
          if (sort === "changed") {
            var diff = Number(b.dataset.changed) - Number(a.dataset.changed);
            if (diff) return diff;
          }
          var x = keys.get(a), y = keys.get(b);
          return x < y ? -1 : x > y ? 1 : 0;
        });
        // Moved back in one fragment: one change of the list, not one a card.
        var sorted = document.createDocumentFragment();
        cards.forEach(function (card) { sorted.appendChild(card); });
        list.appendChild(sorted);
        list.dataset.shown = String(shown);
        if (count) {
          var all = more.done() ? cards.length : total;
          count.textContent = shown === cards.length ?
            all + (all === 1 ? " skill" : " skills") :
            shown + " of " + cards.length + " skills";
        }
        if (record) {
          var next = new URLSearchParams();
          Object.keys(wanted).forEach(function (name) {
            if (wanted[name]) next.set(name, wanted[name]);
          });
          if (problems) next.set("problems", "1");
          if (sort !== "name") next.set("sort", sort);
          if (q) next.set("q", field("q").value.trim());
          var query = next.toString();
          history.replaceState(null, "", location.pathname + (query ? "?" + query : ""));
        }
      }
      // A filter or a sort needs every card: the others are loaded first.
      function update(record) {
        if (!filtered() || more.done()) { apply(record); return; }
        if (count) count.textContent = "Loading all " + total + " skills…";
        // The list is out of the layout while it grows (else laid out again after each
        // file: 30 s for 100k cards).
        bulk = true;
        list.hidden = true;
        function done() {
          bulk = false;
          collect();
          apply(record);
          list.hidden = false;
        }
        more.all().then(done, done);
      }
      form.addEventListener("input", function () { update(true); });
      form.addEventListener("change", function () { update(true); });
      form.addEventListener("submit", function (event) { event.preventDefault(); });
      form.addEventListener("reset", function () { setTimeout(function () { update(true); }); });
      update(false);
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

  // A table wider than the page scrolls in its box: a keyboard must reach it too (axe).
  function focusableScrolls() {
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (box) {
      if (box.scrollWidth > box.clientWidth && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", "table (scrolls sideways)");
      }
    });
  }
  window.addEventListener("load", focusableScrolls);
  window.addEventListener("resize", focusableScrolls);

  fillBase(); headerSearch(); homeSearch(); filters(); sortable();
})();
