"""A write that fails for a reason the user can act on ends the build in one line that
names the path and what to do, never a traceback, and the last good site stays as it
was: a full disk (a small tmpfs), a read-only output (the tmpfs mounted read-only), an
output folder this user may not write, and a root without templates/.

The disks are real: each case runs in a mount namespace of its own (``unshare``), where
a tmpfs can be mounted without touching the machine's mounts."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from site_helpers import REPO, TEMPLATES

from sitebuild.config import NO_TEMPLATES, TEMPLATE_FILES
from sitebuild.errors import WRITE_ADVICE, WRITE_FAILED

PAGE = "---\ntitle: Failures\nsummary: A page of the write failure tests.\n---\n\n{prose}\n"

#: Run inside the namespace: mount a small tmpfs, build once, break the disk, edit the
#: page, build again; report both builds and the site before and after, as JSON.
DRIVER = r"""
import hashlib, json, subprocess, sys
from pathlib import Path
disk, build, out, page = Path(sys.argv[1]), json.loads(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
how = sys.argv[5]
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
def site():
    files = [p for p in sorted(out.rglob("*")) if p.is_file()]
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
first = subprocess.run(build, capture_output=True, text=True)
before = site()
if how == "full":
    with open(disk / "filler", "wb") as stream:
        try:
            while True:
                stream.write(b"\0" * 65536)
                stream.flush()
        except OSError:
            pass
else:
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
page.write_text(page.read_text().replace("Some prose.", "Some edited prose."))
second = subprocess.run(build, capture_output=True, text=True)
print(json.dumps({"first": [first.returncode, first.stderr], "second": [second.returncode, second.stderr],
                  "before": before, "after": site()}))
"""


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(TEMPLATES, root / "templates")
    (root / "explainers").mkdir(parents=True)
    (root / "explainers" / "page.md").write_text(PAGE.format(prose="Some prose."), encoding="utf-8")
    return root


def build_command(root: Path, out: Path, cache: Path) -> list[str]:
    return [sys.executable, str(REPO / "build.py"), "build", "--root", str(root), "--out", str(out),
            "--cache-dir", str(cache)]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def in_mount_namespace(root: Path, disk: Path, out: Path, cache: Path, how: str) -> dict:
    """Run :data:`DRIVER` in a mount namespace of its own with a tmpfs at ``disk``."""
    disk.mkdir(parents=True, exist_ok=True)
    command = ["unshare", "--mount", "--map-root-user", sys.executable, "-c", DRIVER, str(disk),
               json.dumps(build_command(root, out, cache)), str(out), str(root / "explainers" / "page.md"), how]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, PYTHONPATH=str(REPO)))
    except FileNotFoundError:
        pytest.skip("unshare(1) is not installed: no disk of its own can be made here")
    if done.returncode != 0 and "unshare" in done.stderr and "Operation not permitted" in done.stderr:
        pytest.skip(f"this machine allows no mount namespace: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def one_line(stderr: str, expected: str) -> None:
    assert "Traceback" not in stderr, stderr
    assert stderr.strip().splitlines()[-1] == f"error: {expected}", stderr
    assert [line for line in stderr.splitlines() if line.startswith("error")] == [f"error: {expected}"]


def failed_write(path: Path, code: int) -> str:
    return WRITE_FAILED.format(path=path, reason=os.strerror(code), advice=WRITE_ADVICE[code])


def test_a_full_disk_under_the_output_is_one_line_and_keeps_the_site(tmp_path):
    root = project(tmp_path)
    disk = tmp_path / "disk"
    out = disk / "site"
    report = in_mount_namespace(root, disk, out, tmp_path / "cache", "full")
    assert report["first"][0] == 0, report["first"][1]
    assert report["second"][0] == 1
    one_line(report["second"][1], failed_write(out, errno.ENOSPC))
    assert report["after"] == report["before"] and "page.html" in report["before"]


def test_a_full_disk_under_the_cache_is_one_line_and_keeps_the_site(tmp_path):
    root = project(tmp_path)
    disk = tmp_path / "disk"
    cache = disk / "cache"
    out = tmp_path / "site"
    report = in_mount_namespace(root, disk, out, cache, "full")
    assert report["first"][0] == 0, report["first"][1]
    assert report["second"][0] == 1
    last = report["second"][1].strip().splitlines()[-1]
    assert last.startswith(f"error: {cache}/") and last.endswith(
        f": {os.strerror(errno.ENOSPC)}; {WRITE_ADVICE[errno.ENOSPC]}. The last good site was kept"), last
    assert "Traceback" not in report["second"][1]
    assert report["after"] == report["before"] and "page.html" in report["before"]


def test_a_read_only_output_is_one_line_and_keeps_the_site(tmp_path):
    root = project(tmp_path)
    disk = tmp_path / "disk"
    out = disk / "site"
    report = in_mount_namespace(root, disk, out, tmp_path / "cache", "read-only")
    assert report["first"][0] == 0, report["first"][1]
    assert report["second"][0] == 1
    one_line(report["second"][1], failed_write(out, errno.EROFS))
    assert report["after"] == report["before"] and "page.html" in report["before"]


def test_an_output_folder_this_user_may_not_write_is_one_line_and_keeps_the_site(tmp_path):
    root = project(tmp_path)
    parent = tmp_path / "web"
    out, cache = parent / "site", tmp_path / "cache"
    assert subprocess.run(build_command(root, out, cache), capture_output=True).returncode == 0
    before = snapshot(out)
    (root / "explainers" / "page.md").write_text(PAGE.format(prose="Some edited prose."), encoding="utf-8")
    parent.chmod(0o555)
    # root may write anywhere: there, the build runs as the owner of the files, without privileges
    as_owner = ["unshare", "--user", "--map-user=1000", "--map-group=1000"] if os.geteuid() == 0 else []
    try:
        done = subprocess.run(as_owner + build_command(root, out, cache), capture_output=True, text=True)
    finally:
        parent.chmod(0o755)
    assert done.returncode == 1, done.stderr
    one_line(done.stderr, failed_write(out, errno.EACCES))
    assert snapshot(out) == before


def test_a_root_without_templates_is_one_line_and_keeps_the_site(tmp_path):
    root = project(tmp_path)
    out, cache = tmp_path / "site", tmp_path / "cache"
    assert subprocess.run(build_command(root, out, cache), capture_output=True).returncode == 0
    before = snapshot(out)
    shutil.rmtree(root / "templates")
    done = subprocess.run(build_command(root, out, cache), capture_output=True, text=True)
    assert done.returncode == 2
    expected = NO_TEMPLATES.format(path=root / "templates", names=", ".join(TEMPLATE_FILES))
    assert done.stderr.splitlines() == [f"error: {expected}"]
    assert snapshot(out) == before
