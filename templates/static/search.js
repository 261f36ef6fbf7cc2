/* The Fair Code Project: client-side search over window.FC_SEARCH_INDEX
   (entries {title, url, summary, tags, text}, url relative to the site root).
   Titles weigh more than tags and summaries, which weigh more than the text;
   a query term matches a word exactly or as its prefix, and every term must match.
   The results form a listbox driven from the search input (a combobox). */
(function () {
  "use strict";

  var script = document.currentScript;
  var siteRoot = (script && script.getAttribute("data-root")) || "";
  var MAX_RESULTS = 8;
  var FIELD_WEIGHTS = { title: 10, tags: 5, summary: 4, text: 1 };
  var PREFIX_FACTOR = 0.5;

  function announce(message) {
    var region = document.getElementById("fc-announcer");
    if (!region) return;
    region.textContent = "";
    window.setTimeout(function () { region.textContent = message; }, 60);
  }

  /* ---- tokens and scoring ---- */

  function tokenize(text) {
    return String(text || "")
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
  }

  function countTokens(tokens) {
    var counts = new Map();
    tokens.forEach(function (token) { counts.set(token, (counts.get(token) || 0) + 1); });
    return counts;
  }

  function prepareEntry(entry) {
    var tags = Array.isArray(entry.tags) ? entry.tags.join(" ") : entry.tags;
    return {
      entry: entry,
      fields: {
        title: countTokens(tokenize(entry.title)),
        tags: countTokens(tokenize(tags)),
        summary: countTokens(tokenize(entry.summary)),
        text: countTokens(tokenize(entry.text))
      }
    };
  }

  function fieldMatch(counts, term) {
    var exact = counts.get(term) || 0;
    if (exact) return exact;
    var prefixHits = 0;
    counts.forEach(function (count, token) {
      if (token.startsWith(term)) prefixHits += count * PREFIX_FACTOR;
    });
    return prefixHits;
  }

  function scoreTerm(prepared, term) {
    var score = 0;
    Object.keys(FIELD_WEIGHTS).forEach(function (field) {
      var hits = fieldMatch(prepared.fields[field], term);
      if (!hits) return;
      var strength = field === "text" ? Math.min(1 + Math.log(1 + hits), 4) : Math.min(hits, 1);
      score += FIELD_WEIGHTS[field] * strength;
    });
    return score;
  }

  function scoreEntry(prepared, terms, query) {
    var total = 0;
    for (var i = 0; i < terms.length; i += 1) {
      var termScore = scoreTerm(prepared, terms[i]);
      if (!termScore) return 0; /* every term must appear somewhere */
      total += termScore;
    }
    if (String(prepared.entry.title || "").toLowerCase().indexOf(query) !== -1) total += FIELD_WEIGHTS.title;
    return total;
  }

  function search(index, query) {
    var terms = tokenize(query);
    if (!terms.length) return { terms: terms, hits: [] };
    var lowered = query.trim().toLowerCase();
    var hits = index
      .map(function (prepared) { return { prepared: prepared, score: scoreEntry(prepared, terms, lowered) }; })
      .filter(function (hit) { return hit.score > 0; })
      .sort(function (a, b) { return b.score - a.score; })
      .slice(0, MAX_RESULTS);
    return { terms: terms, hits: hits };
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

  function snippetFor(entry, terms) {
    var summary = String(entry.summary || "");
    var pattern = termPattern(terms);
    if (pattern.test(summary) || !entry.text) return summary;
    var text = String(entry.text).replace(/\s+/g, " ");
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
      if (!index) index = (Array.isArray(window.FC_SEARCH_INDEX) ? window.FC_SEARCH_INDEX : []).map(prepareEntry);
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
      var entry = hit.prepared.entry;
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
      snippet.appendChild(highlighted(snippetFor(entry, terms), terms));
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
      var found = search(loadIndex(), query);
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

    input.addEventListener("input", render);
    input.addEventListener("focus", function () { if (input.value.trim()) render(); });

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

  function isEditable(element) {
    if (!element || !element.tagName) return false;
    var tag = element.tagName.toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || element.isContentEditable;
  }

  initSearch();
})();
