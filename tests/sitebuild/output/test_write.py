"""Writing the site: a file whose bytes are unchanged is a hard link to the last site's
file, a changed one a new file; no later build writes through a link (the file of the
replaced site keeps its bytes); the static folder's files are part of the site; the states
the write returns are those of the site as written."""

from __future__ import annotations

import time

from sitebuild.output.folders import OUTPUT_MARKER
from sitebuild.output.write import write_site
from sitebuild.render.render import RenderedSite
from sitebuild.store.stamp import site_states


def site(**files: str) -> RenderedSite:
    return RenderedSite({f"{name}.html": text.encode() for name, text in files.items()})


def settle(out):
    """Wait until the replaced site's detached removal is done (it holds a link)."""
    deadline = time.monotonic() + 10
    while any(p.name.startswith(f"{out.name}.tmp-old-") for p in out.parent.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_unchanged_files_are_linked_and_changed_ones_replaced(tmp_path):
    out, static = tmp_path / "site", tmp_path / "static"
    static.mkdir()
    (static / "site.css").write_text("body {}\n")
    write_site(site(a="page a", b="page b"), out, static)
    kept = tmp_path / "kept-a"
    kept.hardlink_to(out / "a.html")  # a name of the first site's file that outlives it
    first_b = (out / "b.html").stat().st_ino
    write_site(site(a="page a", b="page b, edited"), out, static)
    settle(out)
    assert (out / "a.html").stat().st_ino == kept.stat().st_ino, "unchanged: linked"
    assert (out / "b.html").stat().st_ino != first_b and (out / "b.html").read_text() == "page b, edited"
    assert (out / "static" / "site.css").read_text() == "body {}\n" and (out / OUTPUT_MARKER).is_file()
    write_site(site(a="page a, edited", b="page b, edited"), out, static)
    settle(out)
    assert (out / "a.html").read_text() == "page a, edited"
    assert kept.read_text() == "page a", "the new bytes went to a new file, not through the link"
    assert (out / "a.html").stat().st_ino != kept.stat().st_ino


def test_a_file_that_grew_or_shrank_is_written(tmp_path):
    out = tmp_path / "site"
    write_site(site(a="abc", b="abc"), out)
    write_site(site(a="abcd", b="ab"), out)
    assert (out / "a.html").read_text() == "abcd" and (out / "b.html").read_text() == "ab"


def test_the_states_it_returns_are_those_of_the_site_as_written(tmp_path):
    out, static = tmp_path / "site", tmp_path / "static"
    (static / "img").mkdir(parents=True)
    (static / "img" / "logo.svg").write_text("<svg/>")
    assert write_site(site(a="page a", b="page b"), out, static) == site_states(out)
    first = site_states(out)
    # The second site keeps a.html (known) and a download (unknown: looked at), links the
    # unchanged static file and writes b.html anew.
    kept = RenderedSite({"b.html": b"page b, edited"},
                        kept={"a.html": str(out / "a.html"), "a.ipynb": str(tmp_path / "a.ipynb")})
    (tmp_path / "a.ipynb").write_text("{}")
    states = write_site(kept, out, static, known={str(out / "a.html"): first["a.html"]})
    settle(out)
    assert states == site_states(out) and set(states) == {"a.html", "a.ipynb", "b.html", "static/img/logo.svg",
                                                          OUTPUT_MARKER}
    assert states["a.html"] == first["a.html"], "a link has the state of the file it links to"
