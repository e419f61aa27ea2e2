# One image for the web and worker services (see docker-compose.yml).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=teamllm_web.settings.production \
    TEAMLLM_VAR_DIR=/var/lib/teamllm
WORKDIR /app
COPY pyproject.toml requirements.lock ./
RUN pip install --no-cache-dir -c requirements.lock \
      "Django>=5.2,<5.3" django-htmx django-template-partials django-environ "celery[redis]" redis \
      "psycopg[binary]" pingouin scipy pandas openpyxl openai whitenoise gunicorn jieba nltk matplotlib
COPY . .
RUN mkdir -p /var/lib/teamllm && SECRET_KEY=build-only-build-only-build-only-build-only-build-only \
    python manage.py collectstatic --noinput && python manage.py compilemessages -l zh_Hans || true
EXPOSE 8000
CMD ["gunicorn", "teamllm_web.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120"]
