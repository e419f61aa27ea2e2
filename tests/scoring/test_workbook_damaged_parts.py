"""A workbook whose compressed part is not valid deflate data is refused with a message
(found by the upload fuzz: zlib.error escaped the archive check as a 500)."""

import pytest

from scoring.workbooks.safety import WorkbookRefused, workbook_file_check
from tests import hostile_files


def test_invalid_deflate_data_is_refused_not_a_500():
    with pytest.raises(WorkbookRefused, match="damaged"):
        workbook_file_check(hostile_files.damaged_deflate(), max_bytes=10**7)
