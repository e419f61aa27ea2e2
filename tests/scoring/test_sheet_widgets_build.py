"""The scoring page's widgets are built once per process, by one thread, and the web
server starts that build when a process starts (not in the first raters' requests)."""

from __future__ import annotations

import importlib
import threading

from django.conf import settings

from core.tasks.periodic import periodic
from scoring.views import sheet_widgets as widgets
from studies.rubric import DEFAULT_RUBRIC_VERSION


def _fresh() -> None:
    widgets._built.cache_clear()


def test_threads_asking_at_once_wait_for_one_build():
    _fresh()
    start = threading.Barrier(4)
    results: list[dict] = []

    def ask() -> None:
        start.wait()
        results.append(widgets.sheet_widgets(rubric_version=DEFAULT_RUBRIC_VERSION, lang="en"))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(results) == 4
    assert widgets._built.cache_info().misses == 1  # built once; the three others were served it
    assert all(result is results[0] for result in results)


def test_warming_builds_every_language_in_the_background():
    _fresh()
    widgets.sheet_widgets_warm().join(timeout=60)
    before = widgets._built.cache_info()
    assert before.currsize == len(settings.LANGUAGES)
    pages = {
        lang: widgets.sheet_widgets(rubric_version=DEFAULT_RUBRIC_VERSION, lang=lang)
        for lang, _name in settings.LANGUAGES
    }
    after = widgets._built.cache_info()
    assert after.misses == before.misses  # nothing left to build for a page
    assert after.hits == before.hits + len(settings.LANGUAGES)
    assert pages["en"][1]["comment_label"] != pages["zh-hans"][1]["comment_label"]


def test_the_wsgi_application_starts_the_build():
    """Imported here, not with the module: the web process's periodic job it registers (orphan
    deadlines) must not run in the test process against the test databases, during the session or
    after them (it logged to closed streams once the session ended)."""
    _fresh()
    jobs = periodic().jobs
    before = dict(jobs)
    try:
        importlib.reload(importlib.import_module("teamllm_web.wsgi"))
        warming = [t for t in threading.enumerate() if t.name == "sheet-widgets-warm"]
        for thread in warming:
            thread.join(timeout=60)
        assert warming
        assert widgets._built.cache_info().currsize == len(settings.LANGUAGES)
        assert "orphan deadlines" in jobs
    finally:
        with periodic().lock:
            jobs.clear()
            jobs.update(before)


def test_with_debug_on_an_edited_widgets_template_is_built_again(settings):
    """runserver shows an edited template at the next page; the kept widgets follow it (their
    template's modification time), and without DEBUG they are kept until the process ends."""
    import os

    from django.template.loader import get_template

    path = get_template(widgets.WIDGETS).origin.name
    stat = os.stat(path)
    settings.DEBUG = True
    try:
        first = widgets.sheet_widgets(rubric_version=DEFAULT_RUBRIC_VERSION, lang="en")
        assert widgets.sheet_widgets(rubric_version=DEFAULT_RUBRIC_VERSION, lang="en") is first
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # as an edit does
        edited = widgets.sheet_widgets(rubric_version=DEFAULT_RUBRIC_VERSION, lang="en")
        assert edited is not first and edited == first  # built again, from the same text
        settings.DEBUG = False
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
        assert widgets.sheet_widgets(rubric_version=DEFAULT_RUBRIC_VERSION, lang="en") is edited
    finally:
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
