"""The engine's tests mirror its stages, one folder each; ``site_helpers`` beside this
file is shared by all of them."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
