#!/usr/bin/env bash
# Installs everything the test suite needs, then runs it. This is the README's test
# command and exactly what CI runs (.ci/run), so a missing install step fails here too.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# A real browser for the site's tests: Debian's Chromium and its driver.
if ! command -v chromium >/dev/null 2>&1; then
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# axe-core for the accessibility checks, from the npm registry into a local cache
# (ignored by git, never shipped with the site).
AXE_DIR=.cache/npm
if [ ! -f "$AXE_DIR/node_modules/axe-core/axe.min.js" ]; then
    mkdir -p "$AXE_DIR"
    npm install --silent --no-audit --no-fund --prefix "$AXE_DIR" axe-core@4.14.1 >/dev/null
fi

python -m pip install --quiet --disable-pip-version-check -e ".[test]"
# The project's own packages byte-compiled once, as pip compiles what it installs (an editable
# install compiles nothing): where PYTHONDONTWRITEBYTECODE is set, as on some CI machines, every
# build process and kernel the tests start compiled faircode and sitebuild again (626 s of tests
# without this, 500 s with it, on two cores). __pycache__/ is ignored by git.
python -m compileall -q faircode sitebuild >/dev/null
# -m "": every test, the slow and browser ones too (a quick local `pytest` leaves them out).
# Two workers (pytest-xdist): most tests wait on kernels, builds or the browser, so two run
# side by side on two cores; the tests of the real site share one worker and one build of it
# (tests/conftest.py). A -m or -n of the caller's own, after these, still wins (-n 0: one process).
exec python -m pytest -m "" -n 2 --dist loadgroup "$@"
