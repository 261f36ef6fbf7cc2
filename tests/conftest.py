"""Settings shared by the whole suite."""

import os

import pytest
from hypothesis import settings

# Machines are shared and noisy: no per-example deadline. On CI the examples are derived
# from each test's name, so a run is repeatable; elsewhere every run explores new ones.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def real_pages_cache(tmp_path_factory):
    """One execution cache for every build of the real pages in a session (the browser's
    build and the fresh clone's): a cache entry does not depend on where the repository
    lies, so the second build executes only what the first did not."""
    return tmp_path_factory.mktemp("real-pages-cache") / "cache"


#: Fixtures that build or reuse the real site: a test that needs one runs on the worker that
#: has it (see :func:`pytest_collection_modifyitems`).
REAL_SITE_FIXTURES = {"real_site", "real_pages_cache"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (tests/run.sh runs two workers with ``--dist loadgroup``), every
    test of the real site joins one group, so the real site is built once, on one worker,
    with one execution cache; the other worker takes the rest of the suite meanwhile."""
    for item in items:
        if REAL_SITE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("real-site"))
