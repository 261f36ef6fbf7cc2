"""Settings shared by the whole suite."""

import os

from hypothesis import settings

# Machines are shared and noisy: no per-example deadline. On CI the examples are derived
# from each test's name, so a run is repeatable; elsewhere every run explores new ones.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
