"""Rules of the code base a grep can check: markup lives in templates, workbooks are
written through a library's public API, and no module grows past one sitting."""

import re

from tests.product import ROOT, app_files

FORBIDDEN = {
    "mark_safe": re.compile(r"\bmark_safe\b"),  # HTML built from data belongs in a template
    "noqa S308": re.compile(r"noqa: *S308"),
    "openpyxl private styles": re.compile(r"\._cell_styles\b"),
    "regex over serialized XML": re.compile(r"re\.(sub|compile)\(.*(?<!\?P)<[A-Za-z]"),
    # an id beyond the database's range reaches the driver (OverflowError, a 500 on SQLite):
    # forms pick objects with studies.params.IdChoiceField / IdMultipleChoiceField
    "model choice field without id bounds": re.compile(r"\bforms\.Model(Multiple)?ChoiceField\("),
}
XML_RULE = "regex over serialized XML"  # checked in the workbook modules (an LLM's <think> is fine)
MAX_LINES = 500


def test_app_code_has_no_markup_in_python_and_no_workbook_surgery():
    found = [
        f"{path.relative_to(ROOT)}:{n}: {rule}"
        for path in app_files()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for rule, pattern in FORBIDDEN.items()
        if pattern.search(line) and (rule != XML_RULE or "workbook" in str(path))
    ]
    assert not found, "\n".join(found)


def test_the_rules_see_a_violation():
    assert FORBIDDEN["mark_safe"].search("return mark_safe(html)")
    assert FORBIDDEN["openpyxl private styles"].search("wb._cell_styles.add(x)")
    assert FORBIDDEN["model choice field without id bounds"].search("x = forms.ModelChoiceField(queryset=q)")
    assert FORBIDDEN["regex over serialized XML"].search('re.sub(r"<sheetData/>", "", xml)')
    assert not FORBIDDEN["regex over serialized XML"].search('re.compile(r"^(?P<rest>.*)$")')


def test_every_module_reads_in_one_sitting():
    long = [
        f"{path.relative_to(ROOT)}: {n} lines"
        for path in app_files()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    ]
    assert not long, long
