"""A client's error is one line in the log: Django logs every 4xx answer of a view that
raised (a 403 from PermissionDenied, a 400 from SuspiciousOperation) with the exception's
traceback, which buries the server errors an operator must see. 5xx keep theirs."""

from __future__ import annotations

import logging


class ClientErrorsWithoutTraceback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
