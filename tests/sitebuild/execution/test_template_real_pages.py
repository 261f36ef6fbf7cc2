"""Every real page (explainers/*.md) run on fresh kernels and on kernels forked from the
template site.yaml describes gives the same outputs, figures, inline values and claims;
what the forked page depended on holds all a fresh one did (the preloads' own reads beside).

The pages run are the fewest that between them import everything any real page imports
(the nine audit pages, for one, import from the same modules): what a page imports is what a
preload could change, and the real site's build already runs every page forked."""

from __future__ import annotations

import ast
import shutil

import pytest
from site_helpers import REPO

from sitebuild.config import load_site_config
from sitebuild.execution.execute import execute_pages, make_job
from sitebuild.execution.kernels import NOTE_SINK
from sitebuild.execution.template import Preload
from sitebuild.source.read import read_page

#: What the pages read besides faircode: copied, so the test never writes into the repository.
COPIED = ("explainers", "faircode", "audits", "results")


def imported_modules(page) -> set[str]:
    """Every module the page's code blocks import from."""
    names = set()
    for block in page.code_blocks:
        for node in ast.walk(ast.parse(block.source)):
            if isinstance(node, ast.ImportFrom):
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
    return names


def covering_pages(pages: list) -> list:
    """Few pages whose imports together are everything any of ``pages`` imports: the audit
    page importing the most (an audit's own path: its data, its model, the results), then
    greedily the page adding the most (ties to the first by name)."""
    imports = {page.slug: imported_modules(page) for page in pages}
    wanted = set().union(*imports.values())
    audits = [page for page in pages if page.front.theme == "Audits"]
    chosen = [max(audits, key=lambda page: len(imports[page.slug]))] if audits else []
    wanted -= set().union(*(imports[page.slug] for page in chosen))
    while wanted:
        best = max(pages, key=lambda page: len(imports[page.slug] & wanted))
        chosen.append(best)
        wanted -= imports[best.slug]
    return sorted(chosen, key=lambda page: page.slug)


def merged_streams(outputs: dict[int, list]) -> dict[int, list]:
    """Each block's outputs with consecutive text of one stream joined: where a long print
    is cut into messages depends on when the kernel flushed (timing), in any kernel."""
    merged = {}
    for n, items in outputs.items():
        joined: list = []
        for item in items:
            if (item.get("output_type") == "stream" and joined and joined[-1].get("output_type") == "stream"
                    and joined[-1].get("name") == item.get("name")):
                joined[-1] = dict(joined[-1], text=joined[-1]["text"] + item["text"])
            else:
                joined.append(item)
        merged[n] = joined
    return merged


@pytest.mark.slow
def test_every_real_page_gives_the_same_outputs_on_a_forked_kernel(tmp_path):
    for name in COPIED:
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    preload = load_site_config(REPO / "site.yaml").preload
    assert preload, "site.yaml names the preloads of the real site"
    pages = [read_page(path, tmp_path) for path in sorted((tmp_path / "explainers").glob("*.md"))]
    with_code = [page for page in pages if page.code_blocks]
    assert len(with_code) >= 20
    chosen = covering_pages(with_code)
    assert any(page.front.theme == "Audits" for page in chosen) and len(chosen) < len(with_code)
    jobs = [make_job(page, tmp_path, 600) for page in chosen]
    said: list[str] = []
    NOTE_SINK.append(said.append)
    try:
        fresh = execute_pages(jobs, 2)
        forked = execute_pages(jobs, 2, preload=Preload(required=preload))
    finally:
        NOTE_SINK.remove(said.append)
    assert said == []  # every forked kernel came from the template
    for job in jobs:
        a, b = fresh[job.slug], forked[job.slug]
        assert a.error is None and b.error is None, (job.slug, a.error, b.error)
        assert a.blocks == b.blocks, job.slug
        assert a.figures == b.figures, job.slug
        assert a.inline == b.inline and a.claims == b.claims, job.slug
        assert merged_streams(a.notebook_outputs) == merged_streams(b.notebook_outputs), job.slug
        assert set(a.trace["files"]) <= set(b.trace["files"]), job.slug
        assert a.trace["env"].items() <= b.trace["env"].items(), job.slug
        assert a.trace["listings"] == b.trace["listings"], job.slug
        assert set(a.trace["packages"]) <= set(b.trace["packages"]), job.slug
