"""An export's file opened for a download, without letting a slow store take the web tier.

An object store that hangs held a web thread for minutes per download, and a dozen downloads
took every thread (issue 37). Here each process lets at most ``EXPORT_DOWNLOADS_PER_PROCESS``
downloads wait on the storage at once (the others are told to come back, so pages and health
checks keep their threads); the S3 client's own timeouts (``S3_*_TIMEOUT_SECONDS``) bound each
wait; and after a failure the storage is not asked again for ``STORAGE_RETRY_SECONDS``: the
downloads meanwhile are answered at once. Both the page and the API download through here.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import IO, Any

from django.conf import settings

from research.models import ExportJob

log = logging.getLogger(__name__)


class ExportFileMissing(Exception):
    """The job has no file, or the storage no longer holds it (expired, deleted by hand)."""


class ExportStorageUnavailable(Exception):
    """The storage does not answer now (or too many downloads wait on it): come back later."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


_lock = threading.Lock()
_slots: threading.BoundedSemaphore | None = None
_unavailable_until = 0.0


def _download_slots() -> threading.BoundedSemaphore:
    global _slots
    with _lock:
        if _slots is None:
            _slots = threading.BoundedSemaphore(max(1, int(settings.EXPORT_DOWNLOADS_PER_PROCESS)))
        return _slots


class _SlotFile:
    """The storage's file; closing it (when the response is done) frees the download slot."""

    def __init__(self, handle: IO[bytes], slot: threading.BoundedSemaphore):
        self.handle, self.slot, self.closed = handle, slot, False

    def read(self, size: int = -1) -> bytes:
        return self.handle.read(size)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self.handle.close()
            finally:
                self.slot.release()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.handle, name)


def export_file_open(*, job: ExportJob) -> IO[bytes]:
    """The job's file, open for reading; close it when done (a ``FileResponse`` does).
    Raises :class:`ExportFileMissing` or :class:`ExportStorageUnavailable`."""
    global _unavailable_until
    if job.status != ExportJob.Status.DONE or not job.file:
        raise ExportFileMissing(job.pk)
    retry = int(settings.STORAGE_RETRY_SECONDS)
    if time.monotonic() < _unavailable_until:
        raise ExportStorageUnavailable("the file storage did not answer a moment ago", retry)
    slot = _download_slots()
    if not slot.acquire(blocking=False):
        raise ExportStorageUnavailable("too many downloads are waiting for the file storage", 5)
    try:
        handle = job.file.storage.open(job.file.name, "rb")
        handle.size  # noqa: B018 - asks the store now (an S3 file opens lazily), inside the timeouts
    except FileNotFoundError as exc:
        slot.release()
        raise ExportFileMissing(job.pk) from exc
    except Exception as exc:  # an object store that is down, refuses or hangs past its timeouts
        slot.release()
        if _is_missing(exc):
            raise ExportFileMissing(job.pk) from exc
        log.warning("export %s: the file storage did not answer: %s", job.pk, exc)
        with _lock:
            _unavailable_until = time.monotonic() + retry
        raise ExportStorageUnavailable("the file storage does not answer", retry) from exc
    return _SlotFile(handle, slot)  # type: ignore[return-value]


def _is_missing(exc: Exception) -> bool:
    """An object store's "no such key" (botocore's ClientError with a 404), not an outage."""
    response = getattr(exc, "response", None)
    status = (
        (response or {}).get("ResponseMetadata", {}).get("HTTPStatusCode")
        if isinstance(response, dict)
        else None
    )
    return status == 404


def downloads_reset_for_tests() -> None:
    global _slots, _unavailable_until
    with _lock:
        _slots, _unavailable_until = None, 0.0
