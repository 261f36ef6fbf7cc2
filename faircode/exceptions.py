"""The exceptions faircode raises. Every message says what was expected and what was got."""

from __future__ import annotations


class FaircodeError(Exception):
    """Base class of every error faircode raises on purpose."""


class InvalidInputError(FaircodeError, ValueError):
    """An argument has the wrong shape, type or values (also a ValueError)."""


class ManifestError(FaircodeError):
    """An audit.yaml manifest is invalid; ``problems`` lists every problem found."""

    def __init__(self, path: str, problems: list[str]):
        self.path = str(path)
        self.problems = list(problems)
        listing = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{self.path}: {len(self.problems)} problem(s) in the manifest:\n{listing}")


class AuditDataError(FaircodeError):
    """An audit's data cannot be loaded or does not fit its manifest."""


class BenchmarkError(FaircodeError):
    """The benchmark harness could not produce its results; results/ was left as it was."""
