"""kombu's filesystem broker (``make run`` without redis-server) with messages written
atomically.

kombu's filesystem transport creates a message file under its final name and then
writes it; a worker listing the folder in between moves the empty file away, fails to
decode it and dies with ``Unrecoverable error: JSONDecodeError`` (kombu #1551). Here a
message is written under a name the reader skips (a leading dot: its queue suffix does
not match) and renamed into place once complete; ``os.replace`` within one folder is
atomic, so a reader sees a whole message or none. Chosen in the settings with
``CELERY_BROKER_TRANSPORT`` whenever the broker URL is ``filesystem://``.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic_ns
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    # kombu names the argument `payload` here and `message` in its virtual base: no name fits both
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        # the reader takes messages in name order: nanoseconds (kombu's milliseconds put
        # messages of one millisecond in random order), then kombu's uuid and queue suffix
        name = f"{monotonic_ns():020d}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))  # type: ignore[no-untyped-call]  # kombu is untyped
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
