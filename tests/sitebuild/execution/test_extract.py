"""Scripts and notebooks generated from a page."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat

from sitebuild.execution.extract import kernel_notebook, reader_notebook, script_text
from sitebuild.source.read import read_page

PAGE = """---
title: Extract Me
summary: s
---

Intro.

```python
x = 2
print(x * 21)
```

Middle prose.

```python {expect-error}
1 / 0
```

```python {no-exec}
ignored()
```
"""


def page(tmp_path):
    (tmp_path / "explainers").mkdir()
    path = tmp_path / "explainers" / "extract-me.md"
    path.write_text(PAGE)
    return read_page(path, tmp_path)


def test_script_has_a_header_and_runs_on_its_own(tmp_path):
    text = script_text(page(tmp_path))
    assert text.splitlines()[:2] == [
        "# Generated from explainers/extract-me.md by `python build.py`: edit the Markdown, not this file.",
        "# Run from the repository root: PYTHONPATH=. python explainers/code/extract-me.py"]
    assert "# --- block 1 (explainers/extract-me.md, line 9) ---\nx = 2\n" in text
    assert "# 1 / 0" in text and "ignored()" not in text
    script = tmp_path / "script.py"
    script.write_text(text)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    assert done.stdout == "42\n"


def test_kernel_notebook_runs_blocks_at_their_markdown_lines(tmp_path):
    notebook = kernel_notebook(page(tmp_path))
    nbformat.validate(notebook)
    cells = notebook.cells
    assert [c.metadata["sitebuild"]["role"] for c in cells] == ["setup", "block", "block", "finish"]
    assert cells[1].source == "_sb_run('x = 2\\nprint(x * 21)\\n', 'explainers/extract-me.md', 9)"


def test_reader_notebook_keeps_prose_code_and_outputs(tmp_path):
    output = {"output_type": "stream", "name": "stdout", "text": "42\n"}
    notebook = reader_notebook(page(tmp_path), {1: [output]})
    nbformat.validate(nbformat.from_dict(notebook))
    kinds = [(c["cell_type"], c["source"].splitlines()[0]) for c in notebook["cells"]]
    assert kinds == [("markdown", "# Extract Me"), ("markdown", "Intro."), ("code", "x = 2"),
                     ("markdown", "Middle prose."), ("code", "1 / 0"), ("markdown", "```python {no-exec}")]
    assert notebook["cells"][2]["outputs"][0]["text"] == "42\n"


def test_the_script_prints_the_table_a_block_ends_with_and_saves_its_figures(tmp_path):
    import shutil
    import subprocess
    import sys

    from sitebuild.source.read import read_page

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "browser_site"
    root = tmp_path / "site"
    shutil.copytree(fixture, root)
    page = read_page(root / "explainers" / "reading-scores.md", root)
    script = root / "explainers" / "code" / "reading-scores.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(script_text(page), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=root, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "south: 6.00" in done.stdout
    table = [line.split() for line in done.stdout.splitlines()]
    assert ["total", "score"] in table and ["south", "18"] in table, "the table the block ends with, as text"
    figures = sorted(p.name for p in script.parent.glob("*.png"))
    assert figures == ["reading-scores-3-0.png"], figures
    assert "saved reading-scores-3-0.png" in done.stdout


def test_a_silenced_or_printed_last_expression_is_left_alone():
    from sitebuild.execution.extract import _shown_last_expression

    assert _shown_last_expression("x = 1\nx\n") == "x = 1\n_show(x)\n"
    assert _shown_last_expression("x = 1\nx;\n") == "x = 1\nx;\n"
    assert _shown_last_expression("print(1)\n") == "print(1)\n"
    assert _shown_last_expression("(a,\n b)\n") == "_show((a,\n b))\n"
