/* The Fair Code Project: search over window.FC_SEARCH_INDEX (entries {title, url,
   summary, tags, headings, text}: the rendered words of each page, url relative to the
   site root; static/search-index.js), ranked by MiniSearch (static/vendor/minisearch.js);
   both are loaded from here when the reader first turns to the search box.
   Fields are boosted title > tags > summary > headings > text; the tokenizer keeps
   "p-value", "0.05" and "four-fifths" whole (and indexes a hyphenated word's parts
   too, so "fifths" finds "four-fifths"). The results form a listbox driven from the
   search input (a combobox); each shows a snippet of the page's rendered text. */
(function () {
  "use strict";

  var script = document.currentScript;
  var siteRoot = (script && script.getAttribute("data-root")) || "";
  var MAX_RESULTS = 8;

  function announce(message) {
    var region = document.getElementById("fc-announcer");
    if (!region) return;
    region.textContent = "";
    window.setTimeout(function () { region.textContent = message; }, 60);
  }

  /* ---- the index (MiniSearch) and its tokens ---- */

  var FIELDS = ["title", "tags", "summary", "headings", "text"];
  var BOOST = { title: 8, tags: 4, summary: 3, headings: 2, text: 1 };
  /* A word: letters and digits, joined by inner hyphens, dots, apostrophes or commas
     between digits ("p-value", "0.05", "four-fifths", "6,513", "group's"). */
  var WORD = /[\p{L}\p{N}]+(?:(?:[-.\u2010\u2011'\u2019]|,(?=\p{N}{3}))[\p{L}\p{N}]+)*/gu;

  function normalise(term) {
    return term.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
      .replace(/[\u2010\u2011]/g, "-").replace(/\u2019/g, "'").replace(/,/g, "");
  }

  function queryTerms(text) {
    return (String(text || "").match(WORD) || []).map(normalise);
  }

  function indexTerms(text) {
    var terms = [];
    queryTerms(text).forEach(function (term) {
      terms.push(term);
      if (term.indexOf("-") > 0 && /\p{L}/u.test(term)) {
        term.split("-").forEach(function (part) { if (part) terms.push(part); });
      }
    });
    return terms;
  }

  function makeIndex(entries) {
    var engine = new window.MiniSearch({
      fields: FIELDS,
      storeFields: ["title", "url", "summary", "text"],
      tokenize: indexTerms,
      processTerm: function (term) { return term; },
      searchOptions: {
        boost: BOOST,
        tokenize: queryTerms,
        processTerm: function (term) { return term; },
        prefix: function (term) { return term.length > 2 && !/\p{N}/u.test(term); }, /* 0.05 is not 0.051 */
        fuzzy: function (term) { return term.length > 5 && !/\p{N}/u.test(term) ? 0.15 : false; },
        combineWith: "AND"
      }
    });
    engine.addAll(entries.map(function (entry, position) {
      var tags = Array.isArray(entry.tags) ? entry.tags.join(" ") : entry.tags;
      return { id: position, title: entry.title, url: entry.url, summary: entry.summary,
               tags: tags, headings: entry.headings, text: entry.text };
    }));
    return engine;
  }

  function search(engine, query) {
    var terms = queryTerms(query);
    if (!terms.length) return { terms: terms, hits: [] };
    var hits = engine.search(query);
    if (!hits.length) hits = engine.search(query, { combineWith: "OR" });
    var matched = terms.slice();
    hits.forEach(function (hit) {
      hit.terms.forEach(function (term) { if (matched.indexOf(term) < 0) matched.push(term); });
    });
    return { terms: matched, hits: hits.slice(0, MAX_RESULTS) };
  }

  /* ---- highlighting and snippets ---- */

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  function termPattern(terms) {
    var alternatives = terms.slice().sort(function (a, b) { return b.length - a.length; }).map(escapeRegExp);
    return new RegExp("(^|[^\\p{L}\\p{N}])(" + alternatives.join("|") + ")", "giu");
  }

  function highlighted(text, terms) {
    var fragment = document.createDocumentFragment();
    var pattern = termPattern(terms);
    var last = 0;
    var match;
    while ((match = pattern.exec(text)) !== null) {
      var start = match.index + match[1].length;
      fragment.appendChild(document.createTextNode(text.slice(last, start)));
      var mark = document.createElement("mark");
      mark.textContent = match[2];
      fragment.appendChild(mark);
      last = start + match[2].length;
      if (match[0].length === 0) pattern.lastIndex += 1;
    }
    fragment.appendChild(document.createTextNode(text.slice(last)));
    return fragment;
  }

  function snippetFor(hit, terms) {
    var summary = String(hit.summary || "");
    var pattern = termPattern(terms);
    if (pattern.test(summary) || !hit.text) return summary;
    var text = String(hit.text);
    pattern.lastIndex = 0;
    var match = pattern.exec(text);
    if (!match) return summary;
    var start = Math.max(0, text.lastIndexOf(" ", Math.max(0, match.index - 60)));
    var end = text.indexOf(" ", Math.min(text.length, match.index + 120));
    end = end === -1 ? text.length : end;
    return (start > 0 ? "… " : "") + text.slice(start, end).trim() + (end < text.length ? " …" : "");
  }

  /* ---- the combobox ---- */

  function initSearch() {
    var input = document.getElementById("search-input");
    var list = document.getElementById("search-results");
    if (!input || !list) return;
    var index = null;
    var activeIndex = -1;
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    if (!list.hasAttribute("aria-label")) list.setAttribute("aria-label", "Search results");

    function loadIndex() {
      if (!window.MiniSearch) return null; /* still loading: render() runs again once it is here */
      if (!index) index = makeIndex(Array.isArray(window.FC_SEARCH_INDEX) ? window.FC_SEARCH_INDEX : []);
      return index;
    }

    function options() {
      return Array.prototype.slice.call(list.querySelectorAll('[role="option"]:not([aria-disabled="true"])'));
    }

    function setOpen(open) {
      list.hidden = !open;
      input.setAttribute("aria-expanded", open ? "true" : "false");
      if (!open) setActive(-1);
    }

    function setActive(position) {
      var all = options();
      activeIndex = position < 0 || !all.length ? -1 : position % all.length;
      all.forEach(function (option, i) { option.setAttribute("aria-selected", i === activeIndex ? "true" : "false"); });
      if (activeIndex >= 0) {
        input.setAttribute("aria-activedescendant", all[activeIndex].id);
        all[activeIndex].scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }

    function move(step) {
      var count = options().length;
      if (!count) return;
      if (activeIndex < 0) setActive(step > 0 ? 0 : count - 1);
      else setActive((activeIndex + step + count) % count);
    }

    function follow(option) {
      var target = option && option.getAttribute("data-href");
      if (target) window.location.href = target;
    }

    function resultOption(hit, position, terms) {
      var entry = hit;
      var option = document.createElement("li");
      option.id = "search-option-" + position;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      option.setAttribute("data-href", new URL(siteRoot + entry.url, document.baseURI).href);
      var title = document.createElement("span");
      title.className = "result-title";
      title.appendChild(highlighted(String(entry.title || entry.url), terms));
      var snippet = document.createElement("span");
      snippet.className = "result-snippet";
      snippet.appendChild(highlighted(snippetFor(hit, terms), terms));
      option.appendChild(title);
      option.appendChild(snippet);
      return option;
    }

    function emptyOption(query) {
      var option = document.createElement("li");
      option.className = "result-empty";
      option.setAttribute("role", "option");
      option.setAttribute("aria-disabled", "true");
      option.setAttribute("aria-selected", "false");
      option.textContent = "No explainer matches “" + query.trim() + "”.";
      return option;
    }

    function render() {
      var query = input.value;
      list.textContent = "";
      if (!query.trim()) {
        setOpen(false);
        return;
      }
      var engine = loadIndex();
      if (!engine) return;
      var found = search(engine, query);
      if (!found.terms.length) {
        setOpen(false);
        return;
      }
      if (found.hits.length) {
        found.hits.forEach(function (hit, i) { list.appendChild(resultOption(hit, i, found.terms)); });
      } else {
        list.appendChild(emptyOption(query));
      }
      setOpen(true);
      announce(found.hits.length ? found.hits.length + (found.hits.length === 1 ? " result" : " results") : "No results");
    }

    /* The index and MiniSearch load when the reader first turns to the search box, so a
       page's own load never waits for them. */
    var asked = false;
    function askEngine() {
      if (asked) return;
      asked = true;
      loadEngine(function () { if (input.value.trim() && document.activeElement === input) render(); });
    }
    input.addEventListener("input", function () { askEngine(); render(); });
    input.addEventListener("focus", function () { askEngine(); if (input.value.trim()) render(); });
    input.addEventListener("pointerenter", askEngine);
    if (document.activeElement === input) askEngine();

    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        if (list.hidden) render();
        if (!list.hidden) move(event.key === "ArrowDown" ? 1 : -1);
      } else if (event.key === "Enter") {
        var all = options();
        if (list.hidden || !all.length) return;
        event.preventDefault();
        follow(all[activeIndex >= 0 ? activeIndex : 0]);
      } else if (event.key === "Escape") {
        if (!list.hidden) {
          event.preventDefault();
          setOpen(false);
        } else if (input.value) {
          input.value = "";
        }
      }
    });

    list.addEventListener("mousedown", function (event) { event.preventDefault(); });
    list.addEventListener("click", function (event) {
      var option = event.target.closest('[role="option"]:not([aria-disabled="true"])');
      if (option) follow(option);
    });
    list.addEventListener("mousemove", function (event) {
      var option = event.target.closest('[role="option"]:not([aria-disabled="true"])');
      if (option) setActive(options().indexOf(option));
    });

    input.addEventListener("blur", function () { setOpen(false); });

    document.addEventListener("keydown", function (event) {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      if (isEditable(event.target)) return;
      event.preventDefault();
      input.focus();
      input.select();
    });
  }

  /* The index (search-index.js) and MiniSearch (vendored), both beside this file, each
     loaded by a script tag (so file:// works). */
  function loadScript(name, ready, then) {
    if (ready()) { then(); return; }
    if (!script || !script.src) return;
    var loader = document.createElement("script");
    loader.src = script.src.replace(/search\.js(\?.*)?$/, name);
    loader.addEventListener("load", then);
    document.body.appendChild(loader);
  }

  function loadEngine(then) {
    loadScript("search-index.js", function () { return Array.isArray(window.FC_SEARCH_INDEX); }, function () {
      loadScript("vendor/minisearch.js", function () { return Boolean(window.MiniSearch); }, then);
    });
  }

  function isEditable(element) {
    if (!element || !element.tagName) return false;
    var tag = element.tagName.toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || element.isContentEditable;
  }

  initSearch();
})();
