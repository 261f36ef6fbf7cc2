"""Every example in faircode's docstrings runs and prints what it says (doctest)."""

from __future__ import annotations

import doctest
import importlib

import pytest

# The public modules and the private ones whose functions they re-export.
MODULES = [
    "faircode.significance",
    "faircode.power",
    "faircode.metrics",
    "faircode._multiple_testing",
    "faircode._stratified",
    "faircode._equivalence",
    "faircode._intervals",
    "faircode._report",
    "faircode._checks",
    "faircode.audit_summary",
    "faircode.benchmark",
    "faircode.datasets",
    "faircode.manifest",
    "faircode.models",
    "faircode.plots",
    "faircode.strategies",
    "faircode._results",
    "faircode._tails",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run_as_written(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


@pytest.mark.parametrize("name", ["faircode.significance", "faircode.power", "faircode.metrics"])
def test_every_public_function_has_examples_and_see_also(name):
    module = importlib.import_module(name)
    functions = [getattr(module, n) for n in module.__all__ if callable(getattr(module, n))
                 and not isinstance(getattr(module, n), type) and n[0].islower()]
    assert functions
    for function in functions:
        doc = function.__doc__ or ""
        assert "Examples\n" in doc and ">>>" in doc, f"{name}.{function.__name__} has no Examples"
        assert "See Also\n" in doc, f"{name}.{function.__name__} has no See Also"
