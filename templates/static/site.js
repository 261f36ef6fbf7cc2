/* The Fair Code Project: the site's behaviour. No dependencies and no network
   requests, so every page works from file:// as well as from a server.
   Parts: theme toggle, copy buttons, a collapsible table of contents, revealing
   targets inside <details>, keyboard access to scrolling boxes, printing.
   Search lives in search.js, loaded from here next to this file. */
(function () {
  "use strict";

  var script = document.currentScript;
  var siteRoot = (script && script.getAttribute("data-root")) || "";
  var THEME_KEY = "fc-theme";

  /* ---- Announcements for screen readers ---- */

  var liveRegion = createLiveRegion();

  function createLiveRegion() {
    var region = document.createElement("div");
    region.id = "fc-announcer";
    region.className = "visually-hidden";
    region.setAttribute("role", "status");
    region.setAttribute("aria-live", "polite");
    document.body.appendChild(region);
    return region;
  }

  function announce(message) {
    liveRegion.textContent = "";
    window.setTimeout(function () { liveRegion.textContent = message; }, 60);
  }

  /* ---- Theme ---- */

  function readStoredTheme() {
    try {
      var stored = window.localStorage.getItem(THEME_KEY);
      return stored === "light" || stored === "dark" ? stored : null;
    } catch (error) {
      return null;
    }
  }

  function storeTheme(theme) {
    try {
      window.localStorage.setItem(THEME_KEY, theme);
    } catch (error) {
      /* storage blocked: the choice lasts for this page only */
    }
  }

  function applyTheme(theme) {
    document.documentElement.dataset.theme = theme;
    var button = document.querySelector(".theme-toggle");
    if (!button) return;
    var dark = theme === "dark";
    button.setAttribute("aria-pressed", dark ? "true" : "false");
    button.setAttribute("aria-label", dark ? "Switch to light theme" : "Switch to dark theme");
    button.title = dark ? "Dark theme (switch to light)" : "Light theme (switch to dark)";
  }

  function initThemeToggle() {
    var systemDark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    applyTheme(document.documentElement.dataset.theme || (systemDark && systemDark.matches ? "dark" : "light"));
    var button = document.querySelector(".theme-toggle");
    if (button) {
      button.addEventListener("click", function () {
        var next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
        applyTheme(next);
        storeTheme(next);
        announce(next === "dark" ? "Dark theme on" : "Light theme on");
      });
    }
    if (systemDark && systemDark.addEventListener) {
      systemDark.addEventListener("change", function (event) {
        if (!readStoredTheme()) applyTheme(event.matches ? "dark" : "light");
      });
    }
  }

  /* ---- Search (its own file, loaded by a script tag so file:// works) ---- */

  function loadSearch() {
    if (!document.getElementById("search-input") || !script) return;
    var loader = document.createElement("script");
    loader.src = script.src.replace(/site\.js(\?.*)?$/, "search.js");
    loader.setAttribute("data-root", siteRoot);
    document.body.appendChild(loader);
  }

  /* ---- Copy buttons ---- */

  function copyWithTextarea(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.top = "-1000px";
    area.style.opacity = "0";
    document.body.appendChild(area);
    var focused = document.activeElement;
    area.select();
    var copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (error) {
      copied = false;
    }
    document.body.removeChild(area);
    if (focused && focused.focus) focused.focus();
    return copied;
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).then(
        function () { return true; },
        function () { return copyWithTextarea(text); }
      );
    }
    return Promise.resolve(copyWithTextarea(text));
  }

  function codeTextOf(button) {
    var cell = button.closest(".cell-input") || button.parentElement;
    var code = cell && (cell.querySelector("pre code") || cell.querySelector("pre"));
    return code ? code.textContent.replace(/\n$/, "") : "";
  }

  function showCopyResult(button, copied) {
    var label = button.getAttribute("data-label") || button.textContent;
    var ariaLabel = button.getAttribute("data-aria-label") || button.getAttribute("aria-label") || label;
    button.setAttribute("data-label", label);
    button.setAttribute("data-aria-label", ariaLabel);
    button.textContent = copied ? "Copied" : "Copy failed";
    button.setAttribute("aria-label", button.textContent);
    button.classList.toggle("is-copied", copied);
    announce(copied ? "Code copied to the clipboard" : "Could not copy: select the code and press Ctrl+C");
    window.clearTimeout(button._resetTimer);
    button._resetTimer = window.setTimeout(function () {
      button.textContent = label;
      button.setAttribute("aria-label", ariaLabel);
      button.classList.remove("is-copied");
    }, 2000);
  }

  function initCopyButtons() {
    document.addEventListener("click", function (event) {
      var button = event.target.closest && event.target.closest(".copy-button");
      if (!button) return;
      copyText(codeTextOf(button)).then(function (copied) { showCopyResult(button, copied); });
    });
  }

  /* ---- Contents: all pages, and this page's headings (folded on narrow screens) ---- */

  function initSidebar() {
    var sidebar = document.querySelector(".sidebar");
    var nav = sidebar && sidebar.querySelector("nav");
    if (!nav) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "sidebar-toggle";
    var current = sidebar.querySelector('[aria-current="page"]');
    button.textContent = current ? "Contents: " + current.textContent : "Contents";
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-controls", nav.id || "site-pages");
    sidebar.insertBefore(button, nav);
    sidebar.classList.add("is-collapsible");
    button.addEventListener("click", function () {
      var open = !sidebar.classList.contains("is-open");
      sidebar.classList.toggle("is-open", open);
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
    nav.addEventListener("click", function (event) {
      if (event.target.closest("a") && window.matchMedia("(max-width: 63.99rem)").matches) {
        sidebar.classList.remove("is-open");
        button.setAttribute("aria-expanded", "false");
      }
    });
    var toc = sidebar.querySelector(".toc");
    if (toc) followCurrentSection(toc);
    if (current && current.scrollIntoView && sidebar.scrollHeight > sidebar.clientHeight) {
      sidebar.scrollTop = Math.max(0, current.offsetTop - 80);
    }
  }

  function followCurrentSection(toc) {
    if (!("IntersectionObserver" in window)) return;
    var links = Array.prototype.slice.call(toc.querySelectorAll('a[href^="#"]'));
    var byId = new Map();
    links.forEach(function (link) {
      var target = document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
      if (target) byId.set(target.id, link);
    });
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        links.forEach(function (link) { link.classList.remove("is-current"); link.removeAttribute("aria-current"); });
        var link = byId.get(entry.target.id);
        if (!link) return;
        link.classList.add("is-current");
        link.setAttribute("aria-current", "location");
      });
    }, { rootMargin: "0px 0px -70% 0px" });
    byId.forEach(function (link, id) { observer.observe(document.getElementById(id)); });
  }

  /* ---- Targets inside collapsed outputs ---- */

  function revealTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return;
    var opened = false;
    for (var details = target.closest("details"); details; details = details.parentElement.closest("details")) {
      if (!details.open) {
        details.open = true;
        opened = true;
      }
    }
    if (opened) target.scrollIntoView({ block: "center" });
  }

  /* ---- Scrolling boxes reachable from the keyboard ---- */

  var SCROLL_BOXES = ".table-scroll, .highlight pre, pre.output, .report-table, .build-error pre, .math-display";

  function markScrollableBoxes() {
    document.querySelectorAll(SCROLL_BOXES).forEach(function (box) {
      var overflowing = box.scrollWidth > box.clientWidth + 1;
      if (overflowing) box.setAttribute("tabindex", "0");
      else if (box.getAttribute("tabindex") === "0") box.removeAttribute("tabindex");
      box.classList.toggle("is-overflowing", overflowing);
      if (!box.classList.contains("table-scroll")) return;
      var hint = box.nextElementSibling && box.nextElementSibling.classList.contains("scroll-hint") ? box.nextElementSibling : null;
      if (overflowing && !hint) {
        hint = document.createElement("p");
        hint.className = "scroll-hint";
        hint.textContent = "The table is wider than the page: scroll it sideways (or use the arrow keys on it) to see every column →";
        box.parentNode.insertBefore(hint, box.nextSibling);
      } else if (!overflowing && hint) {
        hint.parentNode.removeChild(hint);
      }
    });
  }

  function initScrollableBoxes() {
    markScrollableBoxes();
    var pending = null;
    window.addEventListener("resize", function () {
      window.clearTimeout(pending);
      pending = window.setTimeout(markScrollableBoxes, 150);
    });
    document.addEventListener("toggle", markScrollableBoxes, true);
  }

  /* ---- Popovers: where a checked number or claim comes from ----
     A mark with data-note (or, from older builds, a title) opens a popover on click, tap,
     Enter or Space; Escape or a click elsewhere closes it and focus returns to the mark.
     A verified number's popover links to its output line; from there a button leads back
     to the sentence. */

  var popover = null;
  var popoverOwner = null;
  var markCount = 0;

  function noteOf(mark) {
    return mark.getAttribute("data-note") || mark.getAttribute("data-title") || "";
  }

  /* A claim whose words hold a link or a checked number cannot itself be a button (an
     interactive element inside another): its note moves to a small button after it. */
  function detachNestedClaim(claim) {
    if (!claim.classList.contains("claim") || !claim.querySelector("a, button, [tabindex], [data-note]")) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "claim claim-note-button";
    button.setAttribute("data-note", claim.getAttribute("data-note") || "");
    button.setAttribute("aria-label", "Where this claim comes from");
    button.textContent = "ⓘ";
    claim.removeAttribute("data-note");
    claim.removeAttribute("tabindex");
    claim.removeAttribute("role");
    claim.classList.remove("claim");
    claim.classList.add("claim-words");
    claim.parentNode.insertBefore(button, claim.nextSibling);
  }

  function prepareMarks() {
    document.querySelectorAll(".claim[data-note]").forEach(detachNestedClaim);
    document.querySelectorAll(".q, .claim, [data-note]").forEach(function (mark) {
      if (!mark.id) mark.id = "mark-" + (++markCount);
      if (mark.title && !mark.getAttribute("data-note")) {
        mark.setAttribute("data-title", mark.title);
        mark.removeAttribute("title");
      }
      if (!noteOf(mark)) return;
      if (mark.tagName !== "A" && mark.tagName !== "BUTTON") {
        mark.setAttribute("tabindex", "0");
        mark.setAttribute("role", "button");
      }
      mark.setAttribute("aria-haspopup", "dialog");
      mark.setAttribute("aria-expanded", "false");
    });
  }

  function closePopover(returnFocus) {
    if (!popover || popover.hidden) return;
    popover.hidden = true;
    if (popoverOwner) {
      popoverOwner.setAttribute("aria-expanded", "false");
      if (returnFocus) popoverOwner.focus();
    }
    popoverOwner = null;
  }

  function openPopover(mark) {
    if (!popover) {
      popover = document.createElement("div");
      popover.className = "note-popover";
      popover.id = "note-popover";
      popover.setAttribute("role", "dialog");
      popover.setAttribute("aria-label", "Where this comes from");
      popover.hidden = true;
      document.body.appendChild(popover);
    }
    closePopover(false);
    popover.textContent = "";
    var text = document.createElement("p");
    var label = mark.classList.contains("claim") ? "Checked claim: " : mark.classList.contains("q-verified") ? "Quotes the output line: " : "";
    text.appendChild(document.createTextNode(label));
    var code = document.createElement("code");
    code.textContent = noteOf(mark);
    text.appendChild(code);
    popover.appendChild(text);
    var actions = document.createElement("p");
    actions.className = "note-actions";
    var href = mark.getAttribute("href");
    if (href && href.charAt(0) === "#") {
      var go = document.createElement("a");
      go.href = href;
      go.className = "note-go";
      go.textContent = "Show the output line";
      go.addEventListener("click", function () {
        rememberSentence(mark);
        closePopover(false);
      });
      actions.appendChild(go);
    }
    var close = document.createElement("button");
    close.type = "button";
    close.textContent = "Close";
    close.addEventListener("click", function () { closePopover(true); });
    actions.appendChild(close);
    popover.appendChild(actions);
    var box = mark.getBoundingClientRect();
    popover.hidden = false;
    var width = popover.offsetWidth;
    var left = Math.min(Math.max(8, box.left + window.scrollX), window.scrollX + document.documentElement.clientWidth - width - 8);
    popover.style.left = Math.max(8, left) + "px";
    popover.style.top = (box.bottom + window.scrollY + 6) + "px";
    popoverOwner = mark;
    mark.setAttribute("aria-expanded", "true");
    mark.setAttribute("aria-controls", popover.id);
    (popover.querySelector("a, button") || popover).focus();
  }

  function rememberSentence(mark) {
    var back = document.querySelector(".back-to-sentence");
    if (!back) {
      back = document.createElement("a");
      back.className = "back-to-sentence";
      document.body.appendChild(back);
      back.addEventListener("click", function () { window.setTimeout(function () { back.remove(); }, 0); });
    }
    back.href = "#" + mark.id;
    back.textContent = "↩ Back to the sentence";
  }

  function initPopovers() {
    prepareMarks();
    document.addEventListener("click", function (event) {
      var mark = event.target.closest && event.target.closest(".q, .claim, [data-note]");
      if (mark && noteOf(mark) && !(popover && popover.contains(event.target))) {
        event.preventDefault();
        if (popoverOwner === mark) closePopover(true);
        else openPopover(mark);
        return;
      }
      if (popover && !popover.contains(event.target)) closePopover(false);
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape") {
        closePopover(true);
        return;
      }
      var mark = event.target.closest && event.target.closest(".q, .claim, [data-note]");
      if (mark && noteOf(mark) && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        openPopover(mark);
      }
    });
  }

  /* ---- Printing: light colours and every output shown ---- */

  function initPrinting() {
    var themeBefore = null;
    var closedDetails = [];
    window.addEventListener("beforeprint", function () {
      themeBefore = document.documentElement.dataset.theme;
      document.documentElement.dataset.theme = "light";
      closedDetails = Array.prototype.slice.call(document.querySelectorAll("details:not([open])"));
      closedDetails.forEach(function (details) { details.open = true; });
    });
    window.addEventListener("afterprint", function () {
      if (themeBefore) document.documentElement.dataset.theme = themeBefore;
      closedDetails.forEach(function (details) { details.open = false; });
      closedDetails = [];
    });
  }

  initThemeToggle();
  loadSearch();
  initCopyButtons();
  initSidebar();
  initPopovers();
  initScrollableBoxes();
  initPrinting();
  revealTarget();
  window.addEventListener("hashchange", revealTarget);
})();
