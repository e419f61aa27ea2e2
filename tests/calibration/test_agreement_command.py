"""manage.py agreement prints per-response PCC, per-group ICC forms and Table 6."""

import json

import pytest
from django.core.management import CommandError, call_command

from calibration.models import GroupAgreement, ResponseAgreement


def test_prints_the_three_tables_after_import(demo, data_a, tmp_path, capsys):
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(data_a), encoding="utf-8")
    call_command("import_scores", str(path))
    capsys.readouterr()
    call_command("agreement", "--scenario", "FS10")
    out = capsys.readouterr().out
    assert "PCC per response" in out
    line = next(line for line in out.splitlines() if line.strip().startswith("A05_FS10"))
    assert "0.863" in line and "rater1 (H01)" in line and "116.50" in line
    assert "ICC3k*" in out and "fewer than 3 responses" in out  # one response: no ICC, with the reason
    table6 = out.split("Table 6", 1)[1]
    lines = table6.splitlines()[1:6]
    rows = {
        line.split()[0]: line.split() for line in lines if line.strip() and not line.strip().startswith("PCC")
    }
    pcc, as_released = (line.split() for line in lines if line.strip().startswith("PCC"))
    # one response: the mean PCC has no CI and is flagged as no headline
    assert pcc[:4] == ["PCC", "(the", "sheet's", "maxima,"]
    assert pcc[5:12] == ["0.863", "[—,", "—]", "0.863", "[—,", "—]", "1"]
    # the release's script's normalization (Purpose / 2) beside it, before calibration only
    assert (
        " ".join(as_released[:11]) == "PCC (as the release's script (Purpose / 2), before calibration only)"
    )
    assert as_released[11:17] == ["0.853", "[—,", "—]", "—", "[—,", "—]"]
    assert rows["ICC3k*"][1:4] == ["—", "[—,", "—]"]
    assert rows["ICC2k"][1:4] == ["—", "[—,", "—]"]  # the paper's form beside the release's
    assert "ICC3k as the release (consistency), ICC2k the paper's absolute agreement" in out
    assert "not a headline: fewer than 5 responses" in table6.splitlines()[2]


def test_recompute_option_rebuilds_stored_statistics(demo, data_a, tmp_path, capsys):
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(data_a), encoding="utf-8")
    call_command("import_scores", str(path))
    ResponseAgreement.objects.all().delete()
    GroupAgreement.objects.all().delete()
    call_command("agreement", "--recompute")
    assert "Recomputed 1 responses: 0 flagged" in capsys.readouterr().out
    assert round(ResponseAgreement.objects.get().pcc, 3) == 0.863
    assert GroupAgreement.objects.count() == 4  # group and scenario, before and after


def test_unknown_scenario_is_an_error(demo):
    with pytest.raises(CommandError, match="No responses of scenario 'FS99'"):
        call_command("agreement", "--scenario", "FS99")
