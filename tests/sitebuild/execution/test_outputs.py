"""Kernel outputs -> plain records that keep every quotable text, and the outputs the
downloadable notebook carries."""

from __future__ import annotations

import base64
from pathlib import Path

from sitebuild.execution.execute import notebook_outputs
from sitebuild.execution.outputs import DEPS_MIME, ERROR_MIME, Output, convert_outputs

PNG = b"\x89PNG\r\n\x1a\nfake"
RAW = [
    {"output_type": "stream", "name": "stdout", "text": "gap -0.0509\n"},
    {"output_type": "stream", "name": "stdout", "text": "p 0.013\n"},
    {"output_type": "stream", "name": "stderr", "text": "\x1b[31mwarning\x1b[0m\n"},
    {"output_type": "display_data", "data": {"text/html": "<table><tr><td>72%</td></tr></table>", "text/plain": "df"}},
    {"output_type": "display_data", "data": {"image/png": base64.b64encode(PNG).decode(), "text/plain": "<Figure>"}},
    {"output_type": "execute_result", "data": {"text/plain": "0.059"}, "execution_count": 1},
    {"output_type": "display_data", "data": {ERROR_MIME: {"line": 12, "ename": "ValueError", "evalue": "bad",
                                                          "traceback": "Traceback ...\nValueError: bad\n"}}},
]


def test_every_text_is_kept_by_block_and_output_index():
    outputs, figures, error = convert_outputs("page", 3, RAW)
    assert [(o.kind, o.texts) for o in outputs] == [
        ("stream", ["gap -0.0509", "p 0.013"]), ("stderr", ["warning"]), ("html", ["72%"]),
        ("figure", []), ("text", ["0.059"]), ("error", ["Traceback ...", "ValueError: bad"])]
    assert outputs[3].figure == "page-3-3.png" and figures == {"page-3-3.png": PNG}
    assert (error.line, error.ename, error.evalue) == (12, "ValueError", "bad")


def test_reader_notebook_outputs_use_standard_error_records():
    raw = RAW[-1:] + [{"output_type": "display_data", "data": {DEPS_MIME: {}, "text/plain": ""}}]
    assert notebook_outputs(raw) == [{"output_type": "error", "ename": "ValueError", "evalue": "bad",
                                      "traceback": ["Traceback ...", "ValueError: bad"]}]


def test_html_tables_are_quoted_one_row_per_line():
    table = ("<table><thead><tr><th></th><th>group</th><th>rate</th></tr></thead>"
             "<tbody><tr><th>0</th><td>a</td><td>0.5</td></tr><tr><th>1</th><td>b</td><td>0.5</td></tr></tbody></table>")
    outputs, _, _ = convert_outputs("page", 1, [{"output_type": "display_data", "data": {"text/html": table}}])
    assert outputs[0].texts == [" | group | rate", "0 | a | 0.5", "1 | b | 0.5"]


def test_a_table_read_back_without_its_rows_derives_them():
    stored = Output(kind="html", text="<table><tr><td>1</td><td>2</td></tr></table>")
    assert stored.texts == ["1 | 2"]


def test_stored_rows_are_kept_because_their_derivation_is_in_the_engine_digest():
    """A stored record's rows are not parsed again; that is safe only because a change to
    how rows are derived changes every cache key."""
    import sitebuild.execution.html_tables
    import sitebuild.execution.outputs
    from sitebuild.execution.states import EXECUTION_CODE

    stored = Output(kind="html", text="<table><tr><td>1</td><td>2</td></tr></table>", texts=["1 | 2"])
    assert stored.texts == ["1 | 2"]
    engine = {p.resolve() for p in EXECUTION_CODE}
    assert {Path(m.__file__).resolve() for m in (sitebuild.execution.outputs,
                                                 sitebuild.execution.html_tables)} <= engine
