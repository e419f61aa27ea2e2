import pytest

from judging.services.judges import judge_create
from studies.models import Study
from tests.factories import stub_endpoint


@pytest.fixture
def judge(demo, llm_stub):
    return judge_create(name="stub judge", endpoint=stub_endpoint(llm_stub), provider_family="stub")


@pytest.fixture
def study(demo):
    return Study.objects.get(name="CGPST demo")
