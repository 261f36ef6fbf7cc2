"""HTML outputs are reduced to table markup; anything else shows as text."""

from sitebuild.render.html_output import sanitise_table_html, table_cell_texts

PANDAS = ('<div><style scoped>.dataframe { color: red }</style><table border="1" class="dataframe">'
          '<thead><tr style="text-align: right;"><th></th><th colspan="2" onclick="x()">rate</th></tr></thead>'
          '<tbody><tr><th>0</th><td>0.25</td><td>&lt;b&gt;</td></tr></tbody></table></div>')


def test_only_table_markup_survives():
    assert sanitise_table_html(PANDAS) == ('<table><thead><tr><th><span class="visually-hidden">Row label</span></th>'
                                           '<th colspan="2">rate</th></tr></thead>'
                                           '<tbody><tr><th>0</th><td>0.25</td><td>&lt;b&gt;</td></tr></tbody></table>')


def test_script_and_event_handlers_are_shown_as_text_or_dropped():
    html = '<table><tr><td><script>alert(1)</script><img src=x onerror=alert(2)></td></tr></table>'
    assert sanitise_table_html(html) == "<table><tr><td>alert(1)</td></tr></table>"
    assert "<script" not in sanitise_table_html("<script>alert(1)</script>")


def test_cell_texts_in_order():
    assert table_cell_texts(PANDAS) == ["", "rate", "0", "0.25", "<b>"]


def test_only_the_corner_header_gets_a_hidden_label_other_blanks_become_plain_cells():
    html = ("<table><thead><tr><th></th><th>rate</th><th>n</th></tr>"
            "<tr><th>group</th><th> </th><th></th></tr></thead></table>")
    cleaned = sanitise_table_html(html)
    assert cleaned.count('<span class="visually-hidden">Row label</span>') == 1
    assert "No heading" not in cleaned
    assert "<tr><th>group</th><td> </td><td></td></tr>" in cleaned
    assert table_cell_texts(html) == ["", "rate", "n", "group", "", ""]


def test_empty_data_cells_stay_empty():
    assert sanitise_table_html("<table><tr><td></td></tr></table>") == "<table><tr><td></td></tr></table>"
