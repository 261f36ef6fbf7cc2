"""``new "Title"``: a new explainer with valid front matter and one runnable block."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from sitebuild.errors import ConfigError

TEMPLATE = '''---
title: {title_yaml}
summary: {summary_yaml}
theme: Explainers
tags: []
related: []
---

State the idea in one paragraph a newcomer can follow.

## An example

```python
total = sum(range(10))
print(total)
```

Explain what the output shows; every number you quote from it is checked by the build.
'''


def slugify(title: str) -> str:
    """``"What Is Label Bias?"`` -> ``"what-is-label-bias"``."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")


def _yaml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def new_explainer(source: Path, title: str) -> Path:
    """Create ``<source>/<slug>.md`` for ``title``; refuse to overwrite an existing page."""
    slug = slugify(title)
    if not slug:
        raise ConfigError(f"new: expected a title with letters or digits, found {title!r}")
    path = source / f"{slug}.md"
    if path.exists():
        raise ConfigError(f"new: {path} already exists; choose another title or edit that page")
    source.mkdir(parents=True, exist_ok=True)
    path.write_text(TEMPLATE.format(title_yaml=_yaml_string(title.strip()),
                                    summary_yaml=_yaml_string("One sentence that defines the idea.")), encoding="utf-8")
    return path
