"""site.yaml and command-line options are validated once, with messages naming the field."""

from __future__ import annotations

import pytest

from sitebuild.config import PRELOAD_EXPECTED, load_site_config, make_config
from sitebuild.errors import ConfigError


def test_defaults_without_site_yaml(tmp_path):
    (tmp_path / "explainers").mkdir()
    config = make_config(tmp_path, jobs=3)
    assert config.source == tmp_path / "explainers" and config.out == tmp_path / "site"
    assert config.cache_dir == tmp_path / ".cache" / "sitebuild" and config.jobs == 3
    assert config.site.steps == () and config.site.timeout == 600


def test_data_theme_is_read(tmp_path):
    (tmp_path / "site.yaml").write_text("data_theme: ' Samples '\n")
    assert load_site_config(tmp_path / "site.yaml").data_theme == "Samples"
    assert load_site_config(tmp_path / "none.yaml").data_theme == ""


def test_preload_is_read(tmp_path):
    (tmp_path / "site.yaml").write_text("preload: [numpy, matplotlib.pyplot]\n")
    assert load_site_config(tmp_path / "site.yaml").preload == ("numpy", "matplotlib.pyplot")
    (tmp_path / "site.yaml").write_text("preload: []\n")
    assert load_site_config(tmp_path / "site.yaml").preload == ()
    (tmp_path / "site.yaml").write_text("preload: learned\n")
    assert load_site_config(tmp_path / "site.yaml").preload == "learned"
    (tmp_path / "site.yaml").write_text("title: T\n")
    assert load_site_config(tmp_path / "site.yaml").preload is None


def test_kernels_are_forked_unless_the_environment_asks_fresh(tmp_path, monkeypatch):
    (tmp_path / "explainers").mkdir()
    monkeypatch.delenv("SITEBUILD_KERNELS", raising=False)
    assert make_config(tmp_path).kernels == "forked"
    monkeypatch.setenv("SITEBUILD_KERNELS", "fresh")
    assert make_config(tmp_path).kernels == "fresh"
    monkeypatch.setenv("SITEBUILD_KERNELS", "warm")
    with pytest.raises(ConfigError) as caught:
        make_config(tmp_path)
    assert str(caught.value) == ("SITEBUILD_KERNELS: expected forked (kernels forked from a warm template) or fresh "
                                 "(each started normally), found 'warm'")


def test_steps_are_parsed(tmp_path):
    (tmp_path / "site.yaml").write_text('steps:\n  - {name: results, run: "python -m x --out results", inputs: '
                                        '["a/*.py"]}\n')
    step = load_site_config(tmp_path / "site.yaml").steps[0]
    assert (step.name, step.run, step.inputs) == ("results", "python -m x --out results", ("a/*.py",))
    assert (step.when, step.check) == ("always", "")
    (tmp_path / "site.yaml").write_text('steps:\n  - {name: sweep, run: "x --all", when: asked, check: "x --verify"}\n')
    step = load_site_config(tmp_path / "site.yaml").steps[0]
    assert (step.when, step.check) == ("asked", "x --verify")


@pytest.mark.parametrize("text, message", [
    ("steps:\n  - {name: r}\n", "steps[0].run: expected a command as a string, found None"),
    ("steps:\n  - {name: r, run: x, every: 1}\n",
     "steps[0]: expected only the fields name, run, inputs, when, check, outputs, found ['every']"),
    ("steps:\n  - {name: r, run: x, when: sometimes}\n",
     "steps[0].when: expected always (every build) or asked (only --step NAME), found 'sometimes'"),
    ("timeout: soon\n", "timeout: expected a positive number of seconds, found 'soon'"),
    ("colour: red\n", "expected only the settings title, themes, steps, timeout, data_theme, inputs, preload, "
                     "bibliography"),
    ("preload: numpy\n", "preload: expected " + PRELOAD_EXPECTED + ", found 'numpy'"),
    ("preload: {numpy: 1}\n", "preload: expected " + PRELOAD_EXPECTED + ", found {'numpy': 1}"),
    ("preload: [numpy, 3]\n", "preload[1]: expected a module name (dotted identifiers, such as matplotlib.pyplot), "
                               "found 3"),
    ("preload: [numpy, 'matplotlib/pyplot']\n", "preload[1]: expected a module name (dotted identifiers, such as "
                                                 "matplotlib.pyplot), found 'matplotlib/pyplot'"),
    ("data_theme: [Audits]\n", "data_theme: expected the name of a theme (a string), found ['Audits']"),
    ("title: [\n", "not valid YAML"),
])
def test_bad_site_yaml_names_the_field(tmp_path, text, message):
    (tmp_path / "site.yaml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_site_config(tmp_path / "site.yaml")
    assert str(caught.value).startswith(str(tmp_path / "site.yaml"))
    assert message in str(caught.value)


@pytest.mark.parametrize("options, message", [
    ({"jobs": 0}, "--jobs: expected a whole number of at least 1, found 0"),
    ({"timeout": -2}, "--timeout: expected a positive number of seconds, found -2"),
    ({"source": "missing"}, "expected an existing folder of explainers"),
    ({"out": "."}, "expected a folder of its own"),
])
def test_bad_options(tmp_path, options, message):
    (tmp_path / "explainers").mkdir()
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_config(tmp_path, **options)


def test_step_names_an_existing_step(tmp_path):
    (tmp_path / "explainers").mkdir()
    (tmp_path / "site.yaml").write_text('steps:\n  - {name: sweep, run: "x", when: asked}\n')
    assert make_config(tmp_path, asked_steps=["sweep"]).asked_steps == ("sweep",)
    with pytest.raises(ConfigError, match=r"--step: expected a step of .*site.yaml \(sweep\), found 'sweeep'"):
        make_config(tmp_path, asked_steps=["sweeep"])
