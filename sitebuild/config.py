"""Stage 0: the site configuration (``site.yaml``) and the command-line options, validated
once, at the edge, into a :class:`BuildConfig`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from sitebuild.errors import ConfigError

DEFAULT_TIMEOUT = 600.0
#: The environment variable that chooses how kernels start, and its choices.
KERNELS_VARIABLE = "SITEBUILD_KERNELS"
KERNELS_CHOICES = ("forked", "fresh")
SITE_FILE = "site.yaml"


STEP_WHEN = ("always", "asked")


class Step(NamedTuple):
    """A command the site runs before its pages, skipped when its inputs are unchanged.

    ``when`` is "always" (every build runs it) or "asked" (only ``--step NAME`` runs it);
    ``check``, when given, is a command every build and check runs after the step (or in its
    place, when the step is not run): a non-zero exit is an error carrying its output.
    ``outputs`` (globs) name the files the step makes and its check reads: when given, a
    check that passed is not run again while the command, the inputs and the outputs are
    unchanged.
    """

    name: str
    run: str
    inputs: tuple[str, ...] = ()
    when: str = "always"
    check: str = ""
    outputs: tuple[str, ...] = ()


class SiteConfig(NamedTuple):
    """What ``site.yaml`` declares."""

    #: The site's name; without ``title:`` in site.yaml, the name of the repository's folder.
    title: str = "Explainers"
    themes: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    #: The theme whose pages describe data sets: pages sharing an ``audits`` key with a
    #: page of this theme link to it ("" turns the links off).
    data_theme: str = ""
    #: Inputs (paths or globs from the repository root, or absolute) of every page.
    inputs: tuple[str, ...] = ()
    #: The bibliography pages cite with ``[@key]`` (a YAML file, from the repository root).
    bibliography: str = ""
    #: The repository's web address (``https://github.com/owner/name``): pages link their
    #: commit, "View source" and "Edit this page" to it ("" leaves the links out).
    repository: str = ""
    branch: str = "main"
    #: The path the site is served under (``/`` or ``/project/``): the 404 page, served
    #: at any depth, finds its styles and links from it.
    base_url: str = "/"
    #: The licence shown in every page's footer, and its address.
    licence: str = ""
    licence_url: str = ""
    #: Installed modules the kernel template imports before forking each page's kernel;
    #: "learned": those the last build's pages held; None: only the kernel's own.
    preload: tuple[str, ...] | str | None = None


class BuildConfig(NamedTuple):
    """Everything a build needs to know, already checked. Like the other configuration
    records, a ``NamedTuple``: the up-to-date check reads it, and must not import the
    library the stages' records are made with (see CONTRIBUTING.md)."""

    root: Path
    source: Path
    out: Path
    cache_dir: Path
    templates: Path
    jobs: int = 1
    force: bool = False
    only: tuple[str, ...] = ()
    strict: bool = False
    timeout: float | None = None
    write_scripts: bool = True
    run_steps: bool = True
    #: Steps named with ``--step``: run even when site.yaml says ``when: asked``.
    asked_steps: tuple[str, ...] = ()
    site: SiteConfig = SiteConfig()
    #: "forked" (each page's kernel forked from a warm template) or "fresh" (started normally).
    kernels: str = "forked"

    def rel(self, path: Path) -> str:
        """Return ``path`` relative to the repository root, with forward slashes."""
        try:
            return Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return Path(path).as_posix()


def _expect(condition: bool, where: str, expected: str, found: object) -> None:
    if not condition:
        raise ConfigError(f"{where}: expected {expected}, found {found!r}")


def _parse_step(index: int, raw: object, path: Path) -> Step:
    where = f"{path}: steps[{index}]"
    _expect(isinstance(raw, dict), where, "a mapping with 'name' and 'run'", raw)
    unknown = set(raw) - {"name", "run", "inputs", "when", "check", "outputs"}
    _expect(not unknown, where, "only the fields name, run, inputs, when, check, outputs", sorted(unknown))
    name, run, inputs, outputs = raw.get("name"), raw.get("run"), raw.get("inputs", []), raw.get("outputs", [])
    when, check = raw.get("when", "always"), raw.get("check", "")
    _expect(when in STEP_WHEN, f"{where}.when", "always (every build) or asked (only --step NAME)", when)
    _expect(isinstance(check, str), f"{where}.check", "a command as a string", check)
    _expect(isinstance(name, str) and name.strip() != "", f"{where}.name", "a non-empty string", name)
    _expect(isinstance(run, str) and run.strip() != "", f"{where}.run", "a command as a string", run)
    _expect(isinstance(inputs, list) and all(isinstance(i, str) for i in inputs),
            f"{where}.inputs", "a list of glob patterns", inputs)
    _expect(isinstance(outputs, list) and all(isinstance(o, str) for o in outputs),
            f"{where}.outputs", "a list of glob patterns", outputs)
    return Step(name=name, run=run, inputs=tuple(inputs), when=when, check=check.strip(), outputs=tuple(outputs))


def load_site_config(path: Path) -> SiteConfig:
    """Read and validate ``site.yaml``; a missing file gives the defaults."""
    if not path.exists():
        return SiteConfig(title=path.parent.name)
    from sitebuild.yamltext import safe_yaml, yaml_errors  # only a site.yaml loads PyYAML

    try:
        raw = safe_yaml(path.read_text(encoding="utf-8")) or {}
    except yaml_errors() as error:
        raise ConfigError(f"{path}: not valid YAML ({error}); fix the syntax") from error
    _expect(isinstance(raw, dict), str(path), "a mapping of settings", type(raw).__name__)
    unknown = set(raw) - {"title", "themes", "steps", "timeout", "data_theme", "inputs", "preload", *PRESENTATION_KEYS}
    _expect(not unknown, str(path), "only the settings title, themes, steps, timeout, data_theme, inputs, preload, "
            + ", ".join(PRESENTATION_KEYS), sorted(unknown))
    title = raw.get("title", path.parent.name)
    _expect(isinstance(title, str), f"{path}: title", "a string", title)
    themes = raw.get("themes", [])
    _expect(isinstance(themes, list) and all(isinstance(t, str) for t in themes),
            f"{path}: themes", "a list of theme names (the order of the index)", themes)
    timeout = raw.get("timeout", DEFAULT_TIMEOUT)
    _expect(isinstance(timeout, (int, float)) and timeout > 0, f"{path}: timeout",
            "a positive number of seconds", timeout)
    data_theme = raw.get("data_theme", "") or ""
    _expect(isinstance(data_theme, str), f"{path}: data_theme", "the name of a theme (a string)", data_theme)
    steps = raw.get("steps", []) or []
    _expect(isinstance(steps, list), f"{path}: steps", "a list of steps", steps)
    inputs = raw.get("inputs", []) or []
    _expect(isinstance(inputs, list) and all(isinstance(i, str) for i in inputs),
            f"{path}: inputs", "a list of paths or glob patterns", inputs)
    return SiteConfig(title=title, themes=tuple(themes), timeout=float(timeout), data_theme=data_theme.strip(),
                      inputs=tuple(inputs), preload=_parse_preload(raw, path), **_presentation(raw, path),
                      steps=tuple(_parse_step(i, s, path) for i, s in enumerate(steps)))


#: What ``preload:`` must be.
PRELOAD_EXPECTED = ("a list of installed module names to import before the pages (such as numpy or "
                    "matplotlib.pyplot), or learned (those the last build's pages held)")


def _parse_preload(raw: dict, path: Path) -> tuple[str, ...] | str | None:
    """site.yaml's ``preload:``: module names, "learned", or None when absent."""
    if "preload" not in raw:
        return None
    if raw["preload"] == "learned":
        return "learned"
    names = raw["preload"] if raw["preload"] is not None else []
    _expect(isinstance(names, list), f"{path}: preload", PRELOAD_EXPECTED, names)
    for index, name in enumerate(names):
        _expect(isinstance(name, str) and all(part.isidentifier() for part in name.split(".")),
                f"{path}: preload[{index}]", "a module name (dotted identifiers, such as matplotlib.pyplot)", name)
    return tuple(names)


PRESENTATION_KEYS = ("bibliography", "repository", "branch", "base_url", "licence", "licence_url")


def _presentation(raw: dict, path: Path) -> dict:
    """The settings that only shape the rendered pages (links, footer, references)."""
    values = {}
    for key in PRESENTATION_KEYS:
        value = raw.get(key, SiteConfig._field_defaults[key])
        _expect(isinstance(value, str), f"{path}: {key}", "a string", value)
        values[key] = value.strip()
    base = values["base_url"] or "/"
    _expect(base.startswith("/"), f"{path}: base_url", "a path from the host's root, such as / or /project/", base)
    values["base_url"] = base if base.endswith("/") else base + "/"
    _expect(not values["repository"] or values["repository"].startswith(("https://", "http://")),
            f"{path}: repository", "the repository's web address (https://...)", values["repository"])
    values["repository"] = values["repository"].rstrip("/").removesuffix(".git")
    return values


#: The templates every build renders (templates/static holds the assets they link).
TEMPLATE_FILES = ("base.html", "explainer.html", "index.html", "report.html", "404.html")
NO_TEMPLATES = ("templates folder {path} is missing: the pages are made from its Jinja templates ({names}); run "
                "from the project's root, pass --root, or copy templates/ from the repository")
NO_TEMPLATE = "templates folder {path} has no {name}: expected the templates {names}"


def check_templates(folder: Path) -> None:
    """Raise a one-line :class:`ConfigError` when ``folder`` lacks a template the build renders."""
    names = ", ".join(TEMPLATE_FILES)
    if not folder.is_dir():
        raise ConfigError(NO_TEMPLATES.format(path=folder, names=names))
    for name in TEMPLATE_FILES:
        if not (folder / name).is_file():
            raise ConfigError(NO_TEMPLATE.format(path=folder, name=name, names=names))


def make_config(root: str | Path = ".", *, source: str | Path = "explainers", out: str | Path = "site",
                cache_dir: str | Path | None = None, templates: str | Path = "templates",
                jobs: int | None = None, force: bool = False, only: list[str] | tuple[str, ...] = (),
                strict: bool = False, timeout: float | None = None, write_scripts: bool = True,
                run_steps: bool = True, asked_steps: list[str] | tuple[str, ...] = ()) -> BuildConfig:
    """Validate the options of one build and return its :class:`BuildConfig`.

    Relative paths are taken from ``root`` (the repository root, the kernels' working
    directory)."""
    root = Path(root).resolve()
    if not root.is_dir():
        raise ConfigError(f"root {root}: expected an existing folder")

    def at_root(p: str | Path) -> Path:
        p = Path(p)
        return (p if p.is_absolute() else root / p).resolve()

    jobs = (os.cpu_count() or 1) if jobs is None else jobs
    _expect(isinstance(jobs, int) and jobs >= 1, "--jobs", "a whole number of at least 1", jobs)
    _expect(timeout is None or timeout > 0, "--timeout", "a positive number of seconds", timeout)
    source_dir, out_dir = at_root(source), at_root(out)
    if not source_dir.is_dir():
        raise ConfigError(f"--source {source_dir}: expected an existing folder of explainers (*.md)")
    if out_dir == root or out_dir in root.parents or out_dir == source_dir:
        raise ConfigError(f"--out {out_dir}: expected a folder of its own (it is replaced on every build)")
    kernels = os.environ.get(KERNELS_VARIABLE, "").strip() or "forked"
    _expect(kernels in KERNELS_CHOICES, KERNELS_VARIABLE, "forked (kernels forked from a warm template) or fresh "
            "(each started normally)", kernels)
    site = load_site_config(root / SITE_FILE)
    names = [step.name for step in site.steps]
    for name in asked_steps:
        _expect(name in names, "--step", f"a step of {root / SITE_FILE} ({', '.join(names) or 'none'})", name)
    return BuildConfig(
        root=root, source=source_dir, out=out_dir,
        cache_dir=at_root(cache_dir) if cache_dir else root / ".cache" / "sitebuild",
        templates=at_root(templates), jobs=jobs, force=force, only=tuple(only), strict=strict,
        timeout=timeout, write_scripts=write_scripts, run_steps=run_steps, asked_steps=tuple(asked_steps),
        site=site, kernels=kernels,
    )
