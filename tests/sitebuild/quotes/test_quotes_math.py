"""Numbers inside formulas are not quoted numbers; numbers in callouts are prose."""

from __future__ import annotations

from sitebuild.quotes.extraction import extract_prose_numbers
from sitebuild.source.read import read_page

MATH_PAGE = r"""---
title: Formulas
summary: A page with formulas.
---

The false positive rate is $P(\hat{Y} = 1 \mid Y = 0)$ in each group, and 12 rows differ.

$$
\Delta = \mathrm{FPR}_a - \mathrm{FPR}_b = 0.25
$$

\begin{align}
a &= 0.5 \\
b &= 7
\end{align}
"""

CALLOUTS = """---
title: Callouts
summary: A page with callouts.
---

:::{note}
The interval is *exact* below 40 rows.
:::

:::{warning} Small groups
Do not read a gap of 0.3 on 12 rows as a finding.
:::
"""


def read(tmp_path, text: str, name: str = "page.md"):
    folder = tmp_path / "explainers"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return read_page(folder / name, tmp_path)


def test_numbers_inside_formulas_are_not_quoted_numbers(tmp_path):
    page = read(tmp_path, MATH_PAGE)
    numbers = [(n.text, n.line) for n in extract_prose_numbers(page.text, page.tokens)]
    assert numbers == [("12", 6)]


def test_a_number_after_a_formula_is_placed_at_its_own_column(tmp_path):
    text = "---\ntitle: T\nsummary: S.\n---\n\nWe add $a + 12$ + 12\n"  # the text " + 12" is also in the formula
    page = read(tmp_path, text)
    [number] = extract_prose_numbers(page.text, page.tokens)
    assert number.text == "12" and number.exact and number.span == (18, 20)


def test_numbers_in_callouts_are_prose(tmp_path):
    page = read(tmp_path, CALLOUTS)
    assert [n.text for n in extract_prose_numbers(page.text, page.tokens)] == ["40", "0.3", "12"]
