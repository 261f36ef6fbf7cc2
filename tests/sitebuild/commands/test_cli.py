"""The command line: commands, exit codes and messages (no kernel: pages without code)."""

from __future__ import annotations

import subprocess
import sys

from site_helpers import REPO

BUILD = [sys.executable, str(REPO / "build.py")]


def run(*args, cwd=REPO):
    return subprocess.run([*BUILD, *args], cwd=cwd, capture_output=True, text=True)


def test_help_lists_every_command():
    done = run("--help")
    assert done.returncode == 0
    for command in ("build", "check", "serve", "new", "clean"):
        assert command in done.stdout


def test_bad_option_exits_2_with_a_message(tmp_path):
    done = run("build", "--jobs", "0", "--source", str(tmp_path))
    assert done.returncode == 2
    assert "error: --jobs: expected a whole number of at least 1, found 0" in done.stderr


def project_root(tmp_path):
    """A project of its own: a site.yaml without steps (the repository's would run the real
    benchmark into its results/) and the repository's templates."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "site.yaml").write_text("title: CLI Test Site\n", encoding="utf-8")
    (root / "templates").symlink_to(REPO / "templates")
    return root


def test_build_then_check_an_empty_and_a_prose_only_source(tmp_path):
    source, out, cache = tmp_path / "src", tmp_path / "out", tmp_path / "cache"
    source.mkdir()
    options = ["--root", str(project_root(tmp_path)), "--source", str(source), "--out", str(out),
               "--cache-dir", str(cache)]
    done = run("build", *options)
    assert done.returncode == 0 and (out / "index.html").exists(), done.stderr
    assert "0 pages: 0 executed, 0 cached, 0 failed; 0 warning(s)" in done.stderr
    assert "step" not in done.stderr, "no site.yaml step runs for this project"
    assert f"site written: open {out / 'index.html'}" in done.stderr
    again = run("build", *options)
    assert "site is up to date" in again.stderr and f"site kept as it was: open {out / 'index.html'}" in again.stderr
    (source / "words.md").write_text("---\ntitle: Words\nsummary: Only words.\n---\n\nSee [nothing](nowhere.md).\n")
    done = run("check", *options)
    assert "1 pages: 0 executed, 0 cached, 0 failed, 1 without code; 0 warning(s)" in done.stderr
    assert done.returncode == 1
    assert "link 'nowhere.md': no page 'nowhere'" in done.stderr and "check failed: 1 problem(s) in" in done.stderr
    done = run("build", *options)
    assert done.returncode == 1 and "the last good site was kept" in done.stderr
    assert not (out / "words.html").exists()


def test_new_scaffolds_a_page_that_builds(tmp_path):
    source = tmp_path / "src"
    done = run("new", "What Is Label Bias?", "--source", str(source))
    assert done.returncode == 0, done.stderr
    page = source / "what-is-label-bias.md"
    assert page.read_text().startswith('---\ntitle: "What Is Label Bias?"\n')
    assert run("new", "What Is Label Bias?", "--source", str(source)).returncode == 2
    from sitebuild.source.read import read_page
    assert read_page(page, tmp_path).front.title == "What Is Label Bias?"


def test_a_broken_template_fails_the_build_at_its_line_and_keeps_the_last_site(tmp_path):
    import shutil

    root = tmp_path / "project"
    (root / "explainers").mkdir(parents=True)
    shutil.copytree(REPO / "templates", root / "templates")
    (root / "explainers" / "words.md").write_text("---\ntitle: Words\nsummary: Only words.\n---\n\nWords.\n")
    assert run("build", "--root", str(root)).returncode == 0
    index = (root / "site" / "index.html").read_bytes()
    base = root / "templates" / "base.html"
    lines = base.read_text().splitlines(keepends=True)
    lines[2] = "{{ nosuch.attr }}" + lines[2]
    base.write_text("".join(lines))
    done = run("build", "--root", str(root))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "error: templates/base.html:3: template error: 'nosuch' is undefined; fix the template" in done.stderr
    assert (root / "site" / "index.html").read_bytes() == index


def test_new_takes_the_theme_and_the_source_of_its_root(tmp_path):
    (tmp_path / "site.yaml").write_text('themes: ["Basics", "Advanced"]\n')
    done = run("new", "Some Title", "--root", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert 'theme: "Basics"' in (tmp_path / "explainers" / "some-title.md").read_text()
    assert (tmp_path / "explainers" / "code" / "some-title.py").is_file()
    missing = run("new", "Other", "--root", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "--root" in missing.stderr and "expected an existing folder" in missing.stderr


def test_new_refuses_a_title_that_would_take_a_page_of_the_site(tmp_path):
    for title, name in (("Index", "index"), ("The Report", None), ("404", "404")):
        done = run("new", title, "--source", str(tmp_path / "src"))
        if name is None:
            assert done.returncode == 0, done.stderr
            continue
        assert done.returncode == 2
        assert f"makes the file name {name}.md, but {name}.html is the site's own page" in done.stderr
        assert not (tmp_path / "src" / f"{name}.md").exists()


def test_clean_of_nothing_says_so(tmp_path):
    done = run("clean", "--root", str(tmp_path), "--out", "site")
    assert done.returncode == 0
    assert f"nothing to remove: neither {tmp_path.resolve() / 'site'} nor" in done.stderr


def test_clean_removes_output_and_cache(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "cache").mkdir()
    done = run("clean", "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"))
    assert done.returncode == 0 and not (tmp_path / "out").exists() and not (tmp_path / "cache").exists()


def test_a_build_under_a_profiler_still_gets_its_report_written(tmp_path):
    """A one-shot command ends without the interpreter's teardown, except where a profiler
    or a tracer writes its report as the interpreter ends."""
    source, profile = tmp_path / "src", tmp_path / "build.prof"
    source.mkdir()
    options = ["--root", str(project_root(tmp_path)), "--source", str(source), "--out", str(tmp_path / "out"),
               "--cache-dir", str(tmp_path / "cache")]
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), str(REPO / "build.py"), "build",
                           *options], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0 and "0 pages: 0 executed" in done.stderr, done.stderr
    assert profile.stat().st_size > 0
    done = run("build", *options)  # and without one, the same build ends at once with its output
    assert done.returncode == 0 and "site is up to date" in done.stderr, done.stderr


def _examples(text: str) -> list[list[str]]:
    import shlex

    return [shlex.split(line.strip().split("  ")[0])[2:] for line in text.splitlines()
            if line.strip().startswith("python build.py")]


def test_each_command_shows_its_own_examples_and_each_example_parses():
    from sitebuild.commands import cli

    parser = cli.make_parser()
    for command, text in cli.EXAMPLES.items():
        examples = _examples(text)
        assert examples and all(e[:1] == [command] for e in examples), (command, examples)
        for example in examples:
            parser.parse_args(example)  # argparse exits on an option the command does not take
        shown = run(command, "--help").stdout
        assert text.strip() in shown, command
        others = [line for name, other in cli.EXAMPLES.items() if name != command for line in other.splitlines()[1:]]
        assert not any(line in shown for line in others), command
    assert _examples(cli.EPILOG) and all(parser.parse_args(e) for e in _examples(cli.EPILOG) if e)


def test_check_help_says_it_writes_nothing_into_out():
    shown = " ".join(run("check", "--help").stdout.split())
    assert "--out OUT output folder of `build`; check writes nothing into it" in shown
    assert "replaced on success" not in shown
    assert "replaced on success" in " ".join(run("build", "--help").stdout.split())


def test_a_root_without_templates_is_a_one_line_error(tmp_path):
    from sitebuild.config import NO_TEMPLATES, TEMPLATE_FILES

    (tmp_path / "explainers").mkdir()
    (tmp_path / "explainers" / "a.md").write_text("---\ntitle: A\nsummary: A page.\n---\n\nText.\n")
    done = run("build", "--root", str(tmp_path))
    assert done.returncode == 2
    message = NO_TEMPLATES.format(path=tmp_path.resolve() / "templates", names=", ".join(TEMPLATE_FILES))
    assert done.stderr.splitlines() == [f"error: {message}"], done.stderr
