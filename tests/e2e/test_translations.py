"""The committed Simplified Chinese catalogue: complete, compiled from the .po,
covering every string marked in the code, and actually used by the pages."""

import ast
import gettext
import html
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils.translation.template import templatize

from calibration.services.calibration import response_scores_recompute
from scoring.models import Assignment, ScoringGroup
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import code_for, mirrored_changes, reference_changes, sheet_submitted
from tests.paper_table4 import load_table4
from tests.product import PRODUCT, ROOT

LOCALE = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"
# What `makemessages` scans (it ignores tests/, bench/, .venv/ and var/): the product's
# packages, as the settings install them.
SOURCE_DIRS = PRODUCT
# the project's templates and each app's own
TEMPLATE_DIRS = [ROOT / "templates", *(ROOT / app / "templates" for app in SOURCE_DIRS)]
# xgettext's Python keywords plus the ones makemessages adds; value = index of the msgid.
GETTEXT_CALLS = {
    "_": 0, "gettext": 0, "gettext_lazy": 0, "gettext_noop": 0,
    "ngettext": 0, "ngettext_lazy": 0, "pgettext": 1, "pgettext_lazy": 1,
    "npgettext": 1, "npgettext_lazy": 1,
}  # fmt: skip


def _po_blocks():
    text = (LOCALE / "django.po").read_text(encoding="utf-8")
    return [block for block in text.split("\n\n") if block.strip()]


def _flags(block: str) -> set[str]:
    return {
        flag.strip() for line in block.splitlines() if line.startswith("#,") for flag in line[2:].split(",")
    }


def _po_entries():
    """(msgid, [msgstr...], plural) of every live entry; the header is checked separately."""
    for block in _po_blocks()[1:]:
        body = "\n".join(line for line in block.splitlines() if not line.startswith("#"))
        if not body.strip():
            continue  # an obsolete (#~) entry
        msgid = "".join(re.findall(r'"(.*)"', re.search(r'msgid ((?:".*"\n?)+)', body).group(1)))
        strs = re.findall(r'msgstr(?:\[\d\])? ((?:".*"\n?)+)', body)
        yield msgid, ["".join(re.findall(r'"(.*)"', s)) for s in strs], "msgid_plural" in body


def _unescape(s: str) -> str:
    return ast.literal_eval('"' + s + '"')  # .po strings use C escapes (\\n, \\", \\\\)


def test_no_entry_of_the_catalogue_is_fuzzy():
    fuzzy = [block for block in _po_blocks() if "fuzzy" in _flags(block)]
    assert not fuzzy, "fuzzy entries (review them, then drop the flag):\n\n" + "\n\n".join(fuzzy)


def test_every_message_has_a_chinese_translation_with_the_same_placeholders():
    entries = list(_po_entries())
    assert len(entries) > 600
    untranslated = [msgid for msgid, msgstrs, _ in entries if not (msgstrs and all(msgstrs))]
    assert not untranslated, f"untranslated: {untranslated}"
    for msgid, msgstrs, _ in entries:
        for msgstr in msgstrs:
            assert sorted(re.findall(r"%\(\w+\)[sdr]", msgid)) == sorted(
                re.findall(r"%\(\w+\)[sdr]", msgstr)
            ), msgid
            assert msgid.count("%%") == msgstr.count("%%"), msgid


def test_the_compiled_catalogue_matches_the_po_file():
    with open(LOCALE / "django.mo", "rb") as handle:
        catalogue = gettext.GNUTranslations(handle)
    for msgid, msgstrs, plural in _po_entries():
        if plural:
            continue
        assert catalogue.gettext(_unescape(msgid)) == _unescape(msgstrs[0]), msgid


def _python_msgids(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        index = GETTEXT_CALLS.get(node.func.id)
        if index is not None and len(node.args) > index:
            arg = node.args[index]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
    return found


def _template_msgids(path: Path) -> set[str]:
    # templatize is what makemessages feeds to xgettext (with % doubled as in the catalogue).
    python = templatize(path.read_text(encoding="utf-8"), origin=str(path))
    literal = r"""u?(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
    calls = re.finditer(rf"\b(n?p?gettext)\(((?:\s*{literal}\s*,?)+)", python)
    found = set()
    for call in calls:
        strings = [ast.literal_eval(s) for s in re.findall(literal, call.group(2))]
        found.add(strings[1] if call.group(1).startswith(("pgettext", "npgettext")) else strings[0])
    return found


def test_every_string_marked_in_the_code_is_in_the_catalogue():
    """Catches a string marked after the last `makemessages` (it would show in English)."""
    marked = set()
    for folder in SOURCE_DIRS:
        for path in (ROOT / folder).rglob("*.py"):
            if "migrations" not in path.parts:
                marked |= _python_msgids(path)
    for path in (p for folder in TEMPLATE_DIRS for p in folder.rglob("*.html")):
        marked |= _template_msgids(path)
    assert len(marked) > 500
    in_catalogue = {_unescape(msgid) for msgid, _, _ in _po_entries()}
    missing = sorted(marked - in_catalogue)
    assert not missing, f"run `make messages` and translate: {missing}"


# ---- pages rendered in Simplified Chinese -----------------------------------------------


def _visible_text(page: str) -> str:
    page = re.sub(r"(?s)<script.*?</script>|<style.*?</style>", " ", page)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"(?s)<[^>]+>", " ", page)))


def _ui_phrases() -> list[tuple[str, str]]:
    """(English, Chinese) of catalogue entries that are whole phrases (two words or more,
    no placeholder or markup), the ones that cannot occur in the pages by chance."""
    phrases = []
    for msgid, msgstrs, plural in _po_entries():
        text = _unescape(msgid)
        if not plural and len(text.split()) >= 2 and not re.search(r"%|<|&", text):
            phrases.append((text, _unescape(msgstrs[0])))
    return phrases


def _login(client, username: str, language: str) -> None:
    client.logout()
    assert client.login(username=username, password="demo-pass-2026")
    client.post("/i18n/setlang/", {"language": language, "next": "/"})


def _data_texts() -> list[str]:
    """Texts the pages show as data, in the language they were written in (condition names,
    scenarios, LLM answers, preference profiles): a UI phrase inside them proves nothing."""
    from generation.models import PreferenceProfile
    from studies.models import Condition, Scenario

    texts = [c.name for c in Condition.objects.all()]
    texts += [p.preferences for p in PreferenceProfile.objects.all()]
    texts += [f"{s.theme} {s.text}" for s in Scenario.objects.all()]
    for r in Response.objects.all():
        texts += [r.step1, r.step2, r.step3, r.step4, r.step5, r.step6]
    return texts


def _assert_translated(client, username: str, url: str, expected_chinese: list[str]) -> None:
    """The page shows UI phrases in English; in zh-hans every one of them is in Chinese."""
    _login(client, username, "en")
    english = _visible_text(client.get(url).content.decode())
    data = _data_texts()
    shown = [(en, zh) for en, zh in _ui_phrases() if en in english and not any(en in d for d in data)]
    assert len(shown) >= 5, (url, shown)  # the page really has UI text to compare

    _login(client, username, "zh-hans")
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Language"] == "zh-hans"
    page = response.content.decode()
    assert '<html lang="zh-hans">' in page
    chinese = _visible_text(page)
    left_in_english = [en for en, _ in shown if en in chinese]
    assert not left_in_english, (url, left_in_english)
    for zh in expected_chinese:
        assert zh in chinese, (url, zh)


@pytest.fixture
def scored(demo):
    """A05_FS10 scored by rater1 and rater2 with disagreeing sheets (flagged for calibration)."""
    users = {u.username: u for u in get_user_model().objects.all()}
    response = Response.objects.get(research_id="A05_FS10")
    group = ScoringGroup.objects.get(
        study=response.study, scenario=response.scenario, condition=response.condition
    )
    sheet_submitted(users["rater1"], response, reference_changes(3), group=group)
    sheet_submitted(
        users["rater2"], response, mirrored_changes(reference_changes(3), load_rubric()), group=group
    )
    response_scores_recompute(response_id=response.pk)
    return response, users


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["admin", "researcher"])
def test_agreement_dashboard_renders_in_chinese(client, scored, username):
    _assert_translated(
        client,
        username,
        "/research/agreement/",
        ["一致性与校准", "校准前后的一致性（表 6）", "评分组", "平均 PCC", "95% 置信区间", "实验条件"],
    )


@pytest.mark.django_db
def test_agreement_drill_downs_render_in_chinese(client, scored):
    response, _users = scored
    _assert_translated(
        client,
        "admin",
        f"/research/agreement/{response.study_id}/scenario/{response.scenario_id}/",
        ["ICC（全部六种形式）", "整个情境", "评分者 A", "校准后 PCC"],
    )
    _assert_translated(
        client,
        "admin",
        f"/research/agreement/response/{response.pk}/",
        ["评分表并列对比", "评分者 A 与评分者 B 的 PCC", "校准评分者", "分配校准评分者", "流畅性"],
    )


@pytest.mark.django_db
def test_calibrator_pages_render_in_chinese(client, scored):
    response, users = scored
    calibration = Assignment.objects.get(response=response, role="calibration")
    sheet_submitted(users["calibrator"], response, reference_changes(4), assignment=calibration)
    response_scores_recompute(response_id=response.pk)
    _assert_translated(client, "calibrator", "/calibration/", ["我的校准", "对比三份评分表", "已提交"])
    _assert_translated(
        client,
        "calibrator",
        f"/calibration/{calibration.blind_code}/",
        ["校准对比", "与校准评分者的 PCC", "保存理由", "(校准评分者, 评分者 A)"],
    )


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["admin", "researcher"])
def test_research_page_renders_in_chinese(client, demo, username):
    study = load_table4()
    _assert_translated(
        client,
        username,
        f"/research/?study={study.pk}&a=A&b=B",
        ["总体表现（表 4）", "Wilcoxon 符号秩检验", "显著性检验", "检验条件", "对照条件", "图表"],
    )


@pytest.mark.django_db
def test_generation_home_and_admin_home_render_in_chinese(client, demo):
    _assert_translated(
        client,
        "admin",
        "/manage/generation/",
        ["启动生成批次", "模型端点", "实验条件（策略）", "生成批次", "TeamFusion 成员档案"],
    )
    _assert_translated(
        client, "admin", "/manage/", ["管理基准", "生成：启动生成批次、实时跟踪运行、查看转录"]
    )


@pytest.mark.django_db
def test_rater_queue_and_sheet_render_in_chinese(client, demo):
    blind_code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    _assert_translated(client, "rater1", "/scoring/", ["我的评分队列", "离线工作簿（Excel）：下载与上传"])
    _assert_translated(client, "rater1", f"/scoring/{blind_code}/", ["流畅性", "变通性", "提交评分表"])


# ---- product-defined labels shown as data (issue 42) ------------------------------------


def _chinese_page(client, username: str, url: str, **headers) -> str:
    _login(client, username, "zh-hans")
    response = client.get(url, headers=headers)
    assert response["Content-Language"] == "zh-hans", url
    return response.content.decode()


@pytest.mark.django_db
def test_research_page_names_conditions_steps_and_efficiency_metrics_in_chinese(client, demo):
    study = load_table4()
    text = _visible_text(_chinese_page(client, "researcher", f"/research/?study={study.pk}&a=A&b=B"))
    for zh in [
        "变通性/流畅性",
        "精致性/流畅性",
        "独创性/流畅性",
        "B 单一模型（基线）",
        "第 1 步",
        "多智能体辩论",
    ]:
        assert zh in text, zh
    for en in ["Flexibility/Fluency", "Originality/Fluency", "Single model", "Step-1", "Multi-Agent Debate"]:
        assert en not in text, en


@pytest.mark.django_db
def test_conditions_and_study_pages_name_the_templates_conditions_in_chinese(client, demo):
    study = Response.objects.get(research_id="A05_FS10").study
    for url in ["/manage/conditions/", f"/manage/studies/{study.pk}/"]:
        text = _visible_text(_chinese_page(client, "admin", url))
        assert "无角色 TeamLLM（消融）" in text and "LLM 讨论" in text, url
        assert "TeamLLM without roles" not in text and "LLM Discussion" not in text, url


@pytest.mark.django_db
def test_icc_form_tooltips_are_in_chinese(client, scored):
    response, _users = scored
    page = _chinese_page(
        client, "admin", f"/research/agreement/{response.study_id}/scenario/{response.scenario_id}/"
    )
    titles = re.findall(r'<th scope="col" class="num[^"]*" title="([^"]*)">ICC', page)
    assert len(titles) == 6 and "双向混合，一致性，k 位评分者的均值" in titles, titles
    assert "mean of" not in page and "single rater" not in page


@pytest.mark.django_db
def test_invitations_name_the_roles_in_chinese(client, demo):
    from django.utils import timezone

    from onboarding.models import Invitation

    study = Response.objects.get(research_id="A05_FS10").study
    rater = get_user_model().objects.get(username="rater1")
    Invitation.objects.create(user=rater, study=study, last_link_at=timezone.now())
    page = _chinese_page(client, "admin", f"/manage/studies/{study.pk}/invite/")
    row = re.search(r"<td>rater1</td>.*?</tr>", page, re.S).group(0)
    assert "评分者" in row and "Rater" not in row and "Demo" not in row, row


@pytest.mark.django_db
def test_status_page_names_its_parts_and_facts_in_chinese(client, demo):
    text = _visible_text(_chinese_page(client, "admin", "/status/", accept="text/html"))
    for zh in ["数据库", "消息代理", "工作进程", "卡住的运行", "延迟（毫秒）", "等待发送到消息代理的任务"]:
        assert zh in text, zh
    for en in ["latency_ms", "stuck_runs", "stale_heartbeat", "dispatches", "oldest_seconds"]:
        assert en not in text, en
