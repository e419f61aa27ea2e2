#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.local")
    # The web container sets PROMETHEUS_MULTIPROC_DIR for gunicorn's processes; a command run
    # beside them (migrate, createsuperuser, ...) must not add its own figures to /metrics.
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
