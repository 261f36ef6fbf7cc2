"""Every real page (explainers/*.md) run on fresh kernels and on kernels forked from the
template site.yaml describes gives the same outputs, figures, inline values and claims;
what the forked page depended on holds all a fresh one did (the preloads' own reads beside)."""

from __future__ import annotations

import shutil

import pytest

from sitebuild.config import load_site_config
from sitebuild.execution.execute import execute_pages, make_job
from sitebuild.execution.kernels import NOTE_SINK
from sitebuild.execution.template import Preload
from sitebuild.source.read import read_page
from site_helpers import REPO

#: What the pages read besides faircode: copied, so the test never writes into the repository.
COPIED = ("explainers", "faircode", "audits", "results")


@pytest.mark.slow
def test_every_real_page_gives_the_same_outputs_on_a_forked_kernel(tmp_path):
    for name in COPIED:
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    preload = load_site_config(REPO / "site.yaml").preload
    assert preload, "site.yaml names the preloads of the real site"
    pages = [read_page(path, tmp_path) for path in sorted((tmp_path / "explainers").glob("*.md"))]
    jobs = [make_job(page, tmp_path, 600) for page in pages if page.code_blocks]
    assert len(jobs) >= 20
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
        assert a.notebook_outputs == b.notebook_outputs, job.slug
        assert set(a.deps["files"]) <= set(b.deps["files"]), job.slug
        assert a.deps["env"].items() <= b.deps["env"].items(), job.slug
        assert a.deps["listings"] == b.deps["listings"], job.slug
        assert set(a.deps["packages"]) <= set(b.deps["packages"]), job.slug
