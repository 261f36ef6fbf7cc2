/* Sets the colour theme before the page paints: the reader's stored choice
   ("fc-theme" in localStorage) if there is one, otherwise the system preference. */
(function () {
  "use strict";
  var stored = null;
  try {
    stored = window.localStorage.getItem("fc-theme");
  } catch (error) {
    stored = null; /* storage can be blocked (private mode, file:// policies) */
  }
  var prefersDark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  var theme = stored === "light" || stored === "dark" ? stored : prefersDark ? "dark" : "light";
  document.documentElement.dataset.theme = theme;
})();
