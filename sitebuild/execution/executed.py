"""What running a page produced, as plain data: :class:`ExecutedPage` with its outputs,
figures, inline values and claims, or its :class:`PageError`. Kept apart from
:mod:`sitebuild.execution.execute` (which runs the kernels) so that the stages reading results
(cache, checks, rendering) do not load the machinery of running them."""

from __future__ import annotations

from msgspec import Struct, field

from sitebuild.execution.deps import Deps
from sitebuild.execution.outputs import Output


class PageError(Struct):
    """Why a page failed: ``kind`` is exception, timeout, dead-kernel, inline or kernel."""

    kind: str
    message: str
    line: int | None = None
    block: int | None = None
    traceback: str = ""


class InlineValue(Struct):
    """The value of an inline ``{python} expr`` (already formatted), or its error."""

    index: int
    text: str = ""
    error: str = ""


class ClaimValue(Struct):
    """What the kernel found for one checked claim: whether its expression holds (None
    when it raised), the (name, short repr) pairs it read, and its error."""

    index: int
    holds: bool | None = None
    values: list = field(default_factory=list)
    error: str = ""


class ExecutedPage(Struct, frozen=True):
    """The result of running a page (frozen): outputs per block number, figures by file
    name, what the kernel recorded (``trace``: its report, on a page run in this build),
    what it depended on (``deps``: the validity conditions the cache gives it, see
    :mod:`sitebuild.execution.deps`), timing, and why it ran (``reason``)."""

    slug: str
    blocks: dict[int, list[Output]] = field(default_factory=dict)
    figures: dict[str, bytes] = field(default_factory=dict)
    notebook_outputs: dict[int, list[dict]] = field(default_factory=dict)
    trace: dict = field(default_factory=dict)
    deps: Deps | None = None
    inline: list[InlineValue] = field(default_factory=list)
    claims: list[ClaimValue] = field(default_factory=list)
    python: str = ""
    seconds: float = 0.0
    error: PageError | None = None
    status: str = "executed"
    warnings: list[str] = field(default_factory=list)
    reason: str = ""
    #: The digest of what the execution produced (outputs, figures, values; not its timing
    #: or status), given by the cache when it stores or reads the result, "" before.
    digest: str = ""

    @property
    def files_read(self) -> list[str]:
        """The files the page read or imported (relative to the root inside it, absolute
        elsewhere), sorted; files it looked for and did not find are left out."""
        if self.deps is not None:
            return self.deps.files_read
        files = self.trace.get("files", {})
        return sorted(name for name, seen in files.items() if seen.get("stat") is not None)

    @property
    def writes(self) -> tuple[str, ...]:
        """The files the page wrote (record names), as the cache or the kernel knows them."""
        if self.deps is not None:
            return self.deps.writes
        return tuple(sorted(set(self.trace.get("writes", ()))))


class ExecutionDraft(Struct):
    """An execution while it is recorded, cell by cell: the one mutable form of a result,
    inside the execution stage only; :meth:`finished` gives the frozen :class:`ExecutedPage`."""

    slug: str
    reason: str = ""
    blocks: dict[int, list[Output]] = field(default_factory=dict)
    figures: dict[str, bytes] = field(default_factory=dict)
    notebook_outputs: dict[int, list[dict]] = field(default_factory=dict)
    trace: dict = field(default_factory=dict)
    inline: list[InlineValue] = field(default_factory=list)
    claims: list[ClaimValue] = field(default_factory=list)
    python: str = ""
    seconds: float = 0.0
    error: PageError | None = None
    status: str = "executed"
    warnings: list[str] = field(default_factory=list)

    def finished(self) -> ExecutedPage:
        """The recorded execution, frozen."""
        return ExecutedPage(**{name: getattr(self, name) for name in self.__struct_fields__})
