"""The exceptions of the build. Each names the file (and line, where there is one) and
says what to do."""

from __future__ import annotations

from pathlib import Path


class SiteBuildError(Exception):
    """Base class of every error the build raises on purpose."""


class ConfigError(SiteBuildError):
    """The site configuration or a command-line option is invalid."""


class FolderRefused(ConfigError):
    """The build or ``clean`` was asked to replace or delete a folder it did not make."""


class SourceError(SiteBuildError):
    """A source file is malformed; points at the file and, where known, the line."""

    def __init__(self, path: str | Path, message: str, line: int | None = None):
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class BuildFailed(SiteBuildError):
    """One or more pages failed; the output folder was left as it was."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__(f"the build failed ({len(self.problems)} problem(s)); the last good site was kept")
