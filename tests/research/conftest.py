"""Fixtures of the research tests."""

import pytest

from tests.paper_table4 import table4_for_module


@pytest.fixture(scope="module")
def _table4(django_db_setup, django_db_blocker):
    yield from table4_for_module(django_db_blocker)


@pytest.fixture
def table4(_table4, db):
    """Table 4's study, built once per module: for tests that only read it."""
    return _table4
