import json

import pytest
from django.core.management import call_command

from training.services.training_set import training_set_add_default


@pytest.fixture
def scored_demo(demo, data_a, tmp_path):
    """The demo with data_A.json's two expert sheets (H01 = rater1, H02 = rater2) submitted."""
    path = tmp_path / "data_A.json"
    path.write_text(json.dumps(data_a), encoding="utf-8")
    call_command("import_scores", str(path))
    return demo


@pytest.fixture
def gold(scored_demo):
    """The default training set: a copy of A05_FS10 with the mean of H01 and H02."""
    return training_set_add_default(study=scored_demo.study)
