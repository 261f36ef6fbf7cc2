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


#: A hint for each kind of YAML error, by words of its context or problem (the first match wins).
YAML_HINTS = (
    ("flow sequence", "close the list: the '[' opened on this line has no matching ']'"),
    ("flow mapping", "close the mapping: the '{' opened on this line has no matching '}'"),
    ("quoted scalar", "close the quote opened on this line"),
    ("mapping values", "quote a value that contains ': ' (title: \"Bias: an introduction\"), or start a field "
                       "at the beginning of its line"),
    ("cannot start any token", "quote a value that starts with a special character such as @, ` or %"),
    ("block mapping", "indent each field of this mapping by the same number of spaces"),
    ("block sequence", "indent each item of this list by the same number of spaces"),
)
YAML_HINT_OTHERWISE = "fix the syntax of this line"
#: Errors whose construct is named where it opens (an unclosed bracket or quote): the line
#: to fix is the opening one, not the one where the parser gave up.
OPENED_CONSTRUCTS = ("flow sequence", "flow mapping", "quoted scalar")


def describe_yaml_error(error: Exception) -> tuple[int | None, str, str]:
    """(0-based line to fix or None, what is wrong, a hint that fits it) of a YAML error."""
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    context = getattr(error, "context", None) or ""
    problem_mark, context_mark = getattr(error, "problem_mark", None), getattr(error, "context_mark", None)
    opened = context_mark is not None and any(words in context for words in OPENED_CONSTRUCTS)
    mark = context_mark if opened else (problem_mark or context_mark)
    what = f"{context}, {problem}" if context else problem
    hint = next((text for words, text in YAML_HINTS if words in context or words in problem), YAML_HINT_OTHERWISE)
    return (mark.line if mark is not None else None), what, hint
