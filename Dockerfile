# One image for the migrate, web and worker services (see docker-compose.yml).
# Every step must succeed: a failing command fails the build (no "|| true").
# PYTHON_IMAGE can point at another Python 3.11 image (e.g. a local mirror).
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/venv PATH=/opt/venv/bin:$PATH \
    DJANGO_SETTINGS_MODULE=teamllm_web.settings.production \
    TEAMLLM_VAR_DIR=/var/lib/teamllm \
    STATIC_ROOT=/app/staticfiles \
    MPLCONFIGDIR=/tmp/matplotlib

# The services run as an unprivileged user; only the data volume is theirs to write.
RUN useradd --system --create-home --uid 10001 --user-group teamllm \
 && mkdir -p /var/lib/teamllm \
 && chown teamllm:teamllm /var/lib/teamllm \
 && python -m venv /opt/venv

# Chinese research figures: matplotlib draws their CJK glyphs with Noto Sans CJK SC
# (research/figures.py, CJK_FONTS); without it they would be empty boxes.
RUN apt-get update \
 && apt-get install -y --no-install-recommends fonts-noto-cjk \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first (this layer is reused while only the code changes): the runtime
# dependencies of pyproject.toml, each pinned (with everything they pull in) by requirements.lock.
# EXTRAS names optional extras of pyproject.toml a deployment needs beyond them (comma-separated),
# e.g. the S3 storage backend for exports shared by several hosts:  --build-arg EXTRAS=s3
ARG EXTRAS=""
COPY pyproject.toml requirements.lock ./
RUN python -c "import os, tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; extras = [e.strip() for e in os.environ.get('EXTRAS', '').split(',') if e.strip()]; print('\n'.join(p['dependencies'] + [d for e in extras for d in p['optional-dependencies'][e]]))" > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt -c requirements.lock \
 && pip check

# The code (.dockerignore keeps out .env, var/, .venv, .git, tests, bench and devtools).
COPY . .

# Static files are collected into the image (not into the data volume, so an upgrade
# serves the new ones) and the production checks must pass. The key and the scratch
# data directory exist only for these two commands (so the data directory the
# services write stays empty and theirs); the compiled translations are committed.
RUN export SECRET_KEY=build-only-key-build-only-key-build-only-key-build-only-key \
           TEAMLLM_VAR_DIR=/tmp/build-var \
 && python manage.py collectstatic --noinput \
 && python manage.py check --deploy --fail-level WARNING \
 && rm -rf /tmp/build-var \
 && python -m compileall -q /app
# (the app's own bytecode too: PYTHONDONTWRITEBYTECODE keeps the services from writing it, so
# without it every web and worker process would compile the app's modules when it starts)

USER teamllm
EXPOSE 8000
# Worker class and counts: gunicorn.conf.py (WEB_CONCURRENCY processes x GUNICORN_THREADS threads).
CMD ["gunicorn", "teamllm_web.wsgi:application", "--bind", "0.0.0.0:8000"]
