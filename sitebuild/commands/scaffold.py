"""``new "Title"``: a new explainer with valid front matter (its theme one of site.yaml's)
and one runnable block, and the block's script, so that ``check --strict`` passes at once.
The sample quotes no number: every number an author quotes is then checked."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from sitebuild.errors import ConfigError

TEMPLATE = '''---
title: {title_yaml}
summary: {summary_yaml}
theme: {theme_yaml}
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


def _theme(theme: str | None, themes: tuple[str, ...]) -> str:
    if theme is None:
        return themes[0] if themes else "Explainers"
    if themes and theme not in themes:
        raise ConfigError(f"new --theme {theme!r}: expected one of site.yaml's themes {list(themes)}")
    return theme


def new_explainer(source: Path, title: str, *, theme: str | None = None, themes: tuple[str, ...] = (),
                  root: Path | None = None) -> Path:
    """Create ``<source>/<slug>.md`` for ``title`` in ``theme`` (default: the first of
    ``themes``), and its script under ``<source>/code/``; refuse to overwrite a page."""
    from sitebuild.execution.extract import script_path, script_text
    from sitebuild.source.read import SITE_PAGE_SLUGS, read_page

    chosen = _theme(theme, themes)
    slug = slugify(title)
    if not slug:
        raise ConfigError(f"new: expected a title with letters or digits, found {title!r}")
    if slug in SITE_PAGE_SLUGS:
        raise ConfigError(f"new: the title {title!r} makes the file name {slug}.md, but {slug}.html is the site's "
                          "own page; choose another title")
    path = source / f"{slug}.md"
    if path.exists():
        raise ConfigError(f"new: {path} already exists; choose another title or edit that page")
    source.mkdir(parents=True, exist_ok=True)
    path.write_text(TEMPLATE.format(title_yaml=_yaml_string(title.strip()), theme_yaml=_yaml_string(chosen),
                                    summary_yaml=_yaml_string("One sentence that defines the idea.")), encoding="utf-8")
    page = read_page(path, (root or source.parent).resolve())
    script = script_path(page)
    script.parent.mkdir(parents=True, exist_ok=True)
    if not script.exists():
        script.write_text(script_text(page), encoding="utf-8")
    return path
