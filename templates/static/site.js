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

  /* ---- Table of contents ---- */

  function initToc() {
    var toc = document.querySelector(".toc");
    var heading = toc && toc.querySelector("h2");
    var list = toc && toc.querySelector("ul");
    if (!heading || !list) return;
    if (!list.id) list.id = "toc-list";
    var button = document.createElement("button");
    button.type = "button";
    button.className = "toc-toggle";
    button.textContent = heading.textContent;
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-controls", list.id);
    toc.insertBefore(button, heading);
    toc.classList.add("is-collapsible");
    button.addEventListener("click", function () {
      var open = !toc.classList.contains("is-open");
      toc.classList.toggle("is-open", open);
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
    followCurrentSection(toc);
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

  var SCROLL_BOXES = ".table-scroll, .highlight pre, pre.output, .report-table, .build-error pre";

  function markScrollableBoxes() {
    document.querySelectorAll(SCROLL_BOXES).forEach(function (box) {
      if (box.scrollWidth > box.clientWidth + 1) box.setAttribute("tabindex", "0");
      else if (box.getAttribute("tabindex") === "0") box.removeAttribute("tabindex");
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
  initToc();
  initScrollableBoxes();
  initPrinting();
  revealTarget();
  window.addEventListener("hashchange", revealTarget);
})();
