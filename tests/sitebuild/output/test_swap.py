"""The swap of a new site into place: when moving the new folder in fails after the last
site was moved aside, the last site is moved back, the new folder is removed, and the
error names the output folder. (A rename that fails between two renames of one folder
cannot be made on demand, so the second rename is made to fail here.)"""

from __future__ import annotations

import errno
import os

import pytest

import sitebuild.output.write as write
from sitebuild.render.render import RenderedSite


def test_a_failed_swap_puts_the_last_site_back(tmp_path, monkeypatch):
    out = tmp_path / "site"
    write.write_site(RenderedSite({"index.html": b"the last good site"}), out)
    real_replace = os.replace

    def failing(source, target):
        if ".tmp-new-" in str(source):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_replace(source, target)

    monkeypatch.setattr(write.os, "replace", failing)
    with pytest.raises(OSError) as raised:
        write.write_site(RenderedSite({"index.html": b"a new site"}), out)
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(out)
    assert (out / "index.html").read_bytes() == b"the last good site"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"], "no temporary folder is left"
