"""The S3 storage of exports is configured from the environment (docs/operators.md): the
options reach django-storages' S3Storage, unset ones keep its defaults, and a missing bucket
stops the services at start rather than failing the first export."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.workers import ROOT

PRINT = (
    "import json, django; django.setup(); from django.conf import settings; "
    "from django.core.files.storage import storages; s = storages['default']; "
    "config = lambda c: {'connect_timeout': c.connect_timeout, 'read_timeout': c.read_timeout, 'retries': c.retries}; "
    "print(json.dumps([settings.STORAGES['default'], type(s).__name__, getattr(s, 'bucket_name', None), getattr(s, 'endpoint_url', None)], default=config))"
)

# as an operator sets them for a MinIO or Ceph store (docs/operators.md)
OPERATOR_ENV = {
    "FILE_STORAGE_BACKEND": "s3",
    "S3_BUCKET": "teamllm-exports",
    "S3_ENDPOINT_URL": "https://s3.example.org",
    "S3_REGION": "eu-central-1",
    "S3_ACCESS_KEY_ID": "AKIDEXAMPLE",
    "S3_SECRET_ACCESS_KEY": "secret-example",
    "S3_QUERYSTRING_EXPIRE": "120",
    "FILE_STORAGE_OPTIONS": json.dumps({"addressing_style": "path"}),
    "S3_READ_TIMEOUT_SECONDS": "5",
}


def _run(**env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("S3_", "FILE_STORAGE_"))}
    return subprocess.run(
        [sys.executable, "-c", PRINT], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**base, "DJANGO_SETTINGS_MODULE": "teamllm_web.settings.base", **env},
    )  # fmt: skip


def test_the_s3_variables_configure_the_export_storage():
    done = _run(**OPERATOR_ENV)
    assert done.returncode == 0, done.stderr
    storage, kind, bucket, endpoint = json.loads(done.stdout)
    assert storage == {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": "teamllm-exports",
            "endpoint_url": "https://s3.example.org",
            "region_name": "eu-central-1",
            "access_key": "AKIDEXAMPLE",
            "secret_key": "secret-example",
            "querystring_auth": True,
            "querystring_expire": 120,
            "file_overwrite": False,
            "addressing_style": "path",
            # a store that hangs holds a web thread no longer than these (issue 37)
            "client_config": {
                "connect_timeout": 3.0,
                "read_timeout": 5.0,
                "retries": {"max_attempts": 2, "mode": "standard"},
            },
        },
    }
    assert (kind, bucket, endpoint) == ("S3Storage", "teamllm-exports", "https://s3.example.org")


def test_unset_credentials_are_left_to_boto3_and_local_disk_stays_the_default():
    done = _run(FILE_STORAGE_BACKEND="s3", S3_BUCKET="b")
    assert done.returncode == 0, done.stderr
    options = json.loads(done.stdout)[0]["OPTIONS"]
    assert "access_key" not in options and "secret_key" not in options and "endpoint_url" not in options
    local = _run()
    assert local.returncode == 0, local.stderr
    assert json.loads(local.stdout)[0] == {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {},
    }


def test_s3_without_a_bucket_stops_at_start_with_a_message():
    done = _run(FILE_STORAGE_BACKEND="s3")
    assert done.returncode != 0
    assert "set S3_BUCKET" in done.stderr
