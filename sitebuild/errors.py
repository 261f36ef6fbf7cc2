"""The exceptions of the build. Each names the file (and line, where there is one) and
says what to do."""

from __future__ import annotations

import errno
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


class SiteBuildError(Exception):
    """Base class of every error the build raises on purpose."""


class ConfigError(SiteBuildError):
    """The site configuration or a command-line option is invalid."""


class FolderRefused(ConfigError):
    """The build or ``clean`` was asked to replace or delete a folder it did not make."""


class SourceError(SiteBuildError):
    """A source file is malformed; points at the file and, where known, the line."""

    def __init__(self, path: str | Path, message: str, line: int | None = None,
                 also: tuple[SourceError, ...] = ()):
        self.path = str(path)
        self.line = line
        self.message = message
        self.also = also  # further errors found in the same file, reported with this one
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")

    def each(self) -> list[SourceError]:
        """This error and the others of its file, in order."""
        return [self, *self.also]



class WriteFailed(SiteBuildError):
    """The build could not write a file (a full disk, a read-only or unwritable folder);
    the last good site was kept."""


#: What to do about each way a write fails, by errno.
WRITE_ADVICE = {
    errno.ENOSPC: "the disk is full: free some space there (or choose a folder on another disk) and build again",
    errno.EDQUOT: "the disk quota is used up: free some space there (or choose a folder elsewhere) and build again",
    errno.EROFS: "the file system is read-only: choose a folder on a writable one (--out, --cache-dir)",
    errno.EACCES: "permission denied: make it writable for this user, or choose another folder (--out, --cache-dir)",
    errno.EPERM: "operation not permitted: make it writable for this user, or choose another folder (--out, "
                 "--cache-dir)",
}
#: The one line a failed write ends in.
WRITE_FAILED = "{path}: {reason}; {advice}. The last good site was kept"


def write_failed(error: OSError) -> WriteFailed | None:
    """The one-line error for an ``OSError`` of a write the user can act on (a full disk, a
    read-only or unwritable folder), naming its path; None for any other error."""
    advice = WRITE_ADVICE.get(error.errno)
    if advice is None:
        return None
    path = error.filename if error.filename is not None else "the output or the cache"
    return WriteFailed(WRITE_FAILED.format(path=path, reason=error.strerror or errno.errorcode[error.errno],
                                           advice=advice))


@contextmanager
def write_failures() -> Iterator[None]:
    """Turn a write the user can act on that fails inside the block into a :class:`WriteFailed`."""
    try:
        yield
    except OSError as error:
        failure = write_failed(error)
        if failure is None:
            raise
        raise failure from error
