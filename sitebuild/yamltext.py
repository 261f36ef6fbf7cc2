"""YAML text parsed with PyYAML's safe loader (the C one where it is built). PyYAML is
loaded on first use, so that a build whose site.yaml and front matter need no parsing
never loads it."""

from __future__ import annotations


def safe_yaml(text: str) -> object:
    """``text`` parsed as YAML (plain data only: mappings, lists, strings, numbers...)."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def yaml_errors() -> type[Exception]:
    """The class of every error :func:`safe_yaml` raises for bad YAML."""
    import yaml

    return yaml.YAMLError
