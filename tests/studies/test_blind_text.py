"""The blind through the text itself (issue 36, finding 8): a response that names a role,
member, strategy, condition or model of its study's catalogue ("As the Environmentalist,
...", the stub's old "[... · Moderator]" tag, a model's name) is held with the names
highlighted; the admin redacts them (a new, audited version of the text) or releases it;
raters only ever read the redacted text."""

from __future__ import annotations

import pytest
from django.urls import reverse

from generation.models import PreferenceProfile
from scoring.models import Assignment
from studies.blind_segments import blind_redacted
from studies.blind_text import (
    CONDITION,
    MAKER,
    MODEL,
    PROFILE,
    RESEARCH_ID,
    ROLE,
    STRATEGY,
    BlindTerm,
    blind_spans,
    blind_terms_found,
)
from studies.models import AuditEvent, Condition, Response, ResponseTextChange, Scenario, Study
from studies.selectors import study_blind_terms
from studies.services.audit import audit_target
from studies.services.responses import response_create
from studies.services.review import ReviewError, response_release, response_text_redact
from tests.factories import SAMPLE_ANSWERS, ModelEndpointFactory, code_for

TERMS = [
    BlindTerm("Plant", ROLE),
    BlindTerm("Moderator", ROLE),
    BlindTerm("Environmentalist", ROLE),
    BlindTerm("Creative Professional", ROLE),
    BlindTerm("Debater A", ROLE),
    BlindTerm("Implementer", ROLE),
    BlindTerm("single", CONDITION),
    BlindTerm("Single model", CONDITION),
    BlindTerm("主持人", ROLE),
    BlindTerm("TeamLLM", STRATEGY),
    BlindTerm("Multi-Agent Debate", STRATEGY),
    BlindTerm("gpt-4o", MODEL),
    BlindTerm("Futurist", ROLE),
    BlindTerm("Monitor Evaluator", ROLE),
    BlindTerm("Member 1", PROFILE),
    BlindTerm("DeepSeek", MODEL),
    BlindTerm("Gemini", MODEL),
    BlindTerm("Qwen", MODEL),
    BlindTerm("ChatGPT", MODEL),
    BlindTerm("Co-Ordinator", ROLE),
    BlindTerm("OpenAI", MODEL),
    BlindTerm("Deep Seek", MODEL),
    BlindTerm("Kimi", MODEL),
    BlindTerm("Claude", MODEL),
    BlindTerm("克劳德", MODEL),
    BlindTerm("深度求索", MODEL),
    BlindTerm("TeamFusion", STRATEGY),
    BlindTerm("FS10", RESEARCH_ID),
    BlindTerm("环保主义者", ROLE),
    BlindTerm("未来学家", ROLE),
    BlindTerm("执行者", ROLE),
    BlindTerm("辩手A", ROLE),
    BlindTerm("成员1", ROLE),
    BlindTerm("Google", MAKER),
    BlindTerm("Meta", MAKER),
    BlindTerm("Alibaba Group", MAKER),
    BlindTerm("阿里巴巴", MAKER),
    BlindTerm("Moonshot", MAKER),
    BlindTerm("谷歌", MAKER),
    BlindTerm("Amazon", MAKER),
    BlindTerm("腾讯", MAKER),
    BlindTerm("单一模型", STRATEGY),
    BlindTerm("Microsoft", MAKER),
    BlindTerm("百度", MAKER),
    BlindTerm("创业者", ROLE),
    BlindTerm("创新者", ROLE),
    BlindTerm("环保人士", ROLE),
    BlindTerm("Member 2", PROFILE),
    BlindTerm("Qianwen", MODEL),
]


def names(text: str, terms: list[BlindTerm] | None = None) -> list[str]:
    """The names the check finds in ``text`` (the test catalogue unless ``terms``), as written."""
    return [text[s.start : s.end] for s in blind_spans(text, TERMS if terms is None else terms)]


# --- the rule -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, found",
    [
        ("As the Environmentalist, I propose green roofs.", ["Environmentalist"]),
        ("as an environmentalist, we should plant trees", ["environmentalist"]),
        ("[Synthetic reply from llm_stub · Step 1 · Moderator] 1. Plastic", ["Moderator"]),
        ("I am the moderator of this debate.", ["moderator"]),
        ("Plant: build a sea wall\nMonitor: check it", ["Plant"]),
        ("**Moderator**: the debate is over", ["Moderator"]),
        ("Our Creative Professional suggests murals.", ["Creative Professional"]),
        ("TeamLLM proposes eight solutions.", ["TeamLLM"]),
        ("As GPT-4o, I would say", ["GPT-4o"]),
        ("Debater A argues for sieves.", ["Debater A"]),
        ("作为主持人，我认为", ["主持人"]),
        ("In this Multi-Agent Debate we agreed", ["Multi-Agent Debate"]),
        # a role the model is told to be: where the text names itself by it
        ("As the Implementer, I turn ideas into steps.", ["Implementer"]),
        ("I am the implementer here.", ["implementer"]),
        # a condition or strategy of plain words: only as a tag or a speaker label
        ("[single] 1. Plastic", ["single"]),
        ("Single: eight solutions follow", ["Single"]),
        ("(Reply · Single model) 1. Plastic", ["Single model"]),
        # the hostile pass's phrasings (issue 36, N2)
        ("As Moderator, I will now summarise", ["Moderator"]),
        ("**Plant** says: more dunes", ["Plant"]),
        ("- **Futurist**: idea", ["Futurist"]),
        ("Speaking from the Environmentalist perspective, dunes.", ["Environmentalist"]),
        ("Moderator here. Let us begin.", ["Moderator"]),
        ("I, the Moderator, close the debate.", ["Moderator"]),
        ("Thanks, Futurist and Plant, for the ideas.", ["Futurist", "Plant"]),
        ("Building on what the Environmentalist said, we add reefs.", ["Environmentalist"]),
        ("As an environmentalist I care about reefs.", ["environmentalist"]),
        ("As the team's Futurist, I look ahead.", ["Futurist"]),
        ("The Monitor-Evaluator weighs it.", ["Monitor-Evaluator"]),
        ("Debater-A argues for sieves.", ["Debater-A"]),
        ("Member1 prefers trams.", ["Member1"]),
        (
            "ChatGPT, Gemini2.5, Qwen 3 and Deep Seek agree; Team LLM too.",
            ["ChatGPT", "Gemini", "Qwen", "Deep Seek", "Team LLM"],
        ),
        ("As the Environ\u00admentalist, I propose roofs.", ["Environ\u00admentalist"]),
        ("As the Enviro\u200bnmentalist, I propose roofs.", ["Enviro\u200bnmentalist"]),
        ("As the \u0415nvironmentalist, I propose roofs.", ["\u0415nvironmentalist"]),  # Cyrillic Е
        ("As the Ｍｏｄｅｒａｔｏｒ, I close.", ["Ｍｏｄｅｒａｔｏｒ"]),  # full-width
        # hostile pass 3
        ("As Coordinator, I think Deep Seek would agree.", ["Coordinator", "Deep Seek"]),
        ("the Coordinator agrees; As Co-ordinator, I", ["Coordinator", "Co-ordinator"]),
        ("As an AI developed by OpenAI, I propose this.", ["OpenAI"]),
        ("Role: Implementer", ["Implementer"]),
        ("My role: Implementer", ["Implementer"]),
        ("1. Plant: idea one", ["Plant"]),
        ("As the Env\u200eironmentalist, I propose roofs.", ["Env\u200eironmentalist"]),
        ("As the \u1d18\u029f\u1d00\u0274\u1d1b, I", ["\u1d18\u029f\u1d00\u0274\u1d1b"]),  # small capitals
        ("<b>Plant</b>: idea", ["Plant"]),
        ('"Plant": idea', ["Plant"]),
        ("`Plant`: idea", ["Plant"]),
        ("Plant (me): idea", ["Plant"]),
        ("Plant's proposal: idea", ["Plant"]),
        ("Plant — idea", ["Plant"]),
        ("{Plant} idea, <Moderator> and «Futurist»", ["Plant", "Moderator", "Futurist"]),
        ("As the P l a n t, I think", ["P l a n t"]),
        ("G.P.T-4o thinks", ["G.P.T-4o"]),
        # hostile pass 4: Latin names next to Chinese, headings, tables, more label shapes
        ("我是ChatGPT，由OpenAI开发。", ["ChatGPT", "OpenAI"]),
        ("本方案由GPT-4o生成。", ["GPT-4o"]),
        ("作为Plant，我提出以下方案。", ["Plant"]),
        ("### Plant\nFloating nurseries", ["Plant"]),
        ("**Implementer**\nSteps follow", ["Implementer"]),
        ("## Implementer's notes\nSteps", ["Implementer"]),
        ("| Plant | Floating nurseries |", ["Plant"]),
        ("Plant (idea generator): floating nurseries", ["Plant"]),
        ("**Plant (creative lead):** nurseries", ["Plant"]),
        ("Moderator summary: we agree", ["Moderator"]),
        ("The plan is set.\n— Implementer", ["Implementer"]),
        ("Plant → floating nurseries", ["Plant"]),
        # hostile pass 5 (B4): other spacers, member numbers, strategies in prose, signatures,
        # Chinese names apart, research IDs
        ("K-i-m-i says so", ["K-i-m-i"]),
        ("K_i_m_i says so", ["K_i_m_i"]),
        ("C/l/a/u/d/e wrote it", ["C/l/a/u/d/e"]),
        ("T-e-a-m-F-u-s-i-o-n at work", ["T-e-a-m-F-u-s-i-o-n"]),
        ("Member #1 prefers trams.", ["Member #1"]),
        ("Member No. 1 prefers trams.", ["Member No. 1"]),
        ("Member one prefers trams.", ["Member one"]),
        ("our multi agent debate concluded", ["multi agent debate"]),
        ("The plan holds.\nSigned: Plant", ["Plant"]),
        ("我是克劳德。", ["克劳德"]),
        ("深度 求索的方案", ["深度 求索"]),
        ("This is response A07_FS10.", ["A07_FS10"]),
        # hostile pass 6 (N1): roles in Chinese, models naming their maker
        ("作为环保主义者，我建议优先采用可降解材料。", ["环保主义者"]),
        ("作为一名未来学家，我认为到2050年会变。", ["未来学家"]),
        ("执行者：第一步是筹资。", ["执行者"]),
        ("辩手A认为应当征税。", ["辩手A"]),
        ("成员1提出了第一个方案。", ["成员1"]),
        ("I am a large language model, trained by Google.", ["Google"]),
        ("As an AI assistant developed by Meta, I cannot browse.", ["Meta"]),
        ("I'm an AI model created by the Alibaba Group.", ["Alibaba Group"]),
        ("我是由阿里巴巴开发的大语言模型。", ["阿里巴巴"]),
        ("我是由 Moonshot 开发的助手。", ["Moonshot"]),
        ("This plan was prepared by an assistant built by Moonshot.", ["Moonshot"]),
        # hostile pass 7: more self-naming, in English and Chinese
        ("As moderator, I will now summarize the discussion.", ["moderator"]),
        ("Being the team's futurist, I look ahead.", ["futurist"]),
        ("作为团队中的执行者，我负责统筹。", ["执行者"]),
        ("我是本次讨论的执行者，下面进行总结。", ["执行者"]),
        ("以执行者的身份，我总结如下。", ["执行者"]),
        ("从环保主义者的角度出发，我建议。", ["环保主义者"]),
        ("我是一个大型语言模型，由谷歌训练。", ["谷歌"]),
        ("我是由阿里巴巴集团开发的大语言模型。", ["阿里巴巴"]),
        ("I'm a large language model from Google.", ["Google"]),
        ("I am Google's AI assistant.", ["Google"]),
        ("I was developed by a team of researchers at Google.", ["Google"]),
        ("I'm an AI assistant made by the engineers at Meta.", ["Meta"]),
        ("【单一模型】方案如下", ["单一模型"]),
        # hostile pass 8: roles in lower case and in the third person, Chinese self-naming, the
        # maker as the subject, accents, other marks between letters, digits for letters
        ("My job as the team's implementer is to turn ideas into plans.", ["implementer"]),
        ("In the role of the implementer, I list steps.", ["implementer"]),
        ("I was assigned the plant role, so here are ideas.", ["plant"]),
        ("As debater A in this exchange, I hold that we need dams.", ["debater A"]),
        (
            "My fellow team members (the plant and the monitor evaluator) agree.",
            ["plant", "monitor evaluator"],
        ),
        ("Per the monitor-evaluator's critique, we drop it.", ["monitor-evaluator"]),
        ("After our moderator summarized the round, we voted.", ["moderator"]),
        ("我的角色是执行者，所以我会列出步骤。", ["执行者"]),
        ("本人担任执行者。", ["执行者"]),
        ("在团队中我负责执行者的工作。", ["执行者"]),
        ("I am Çlaudé, and Google trained me.", ["Çlaudé", "Google"]),
        ("I am Clau\u0301de.", ["Clau\u0301de"]),
        ("Google built me to help.", ["Google"]),
        ("My developer is Google.", ["Google"]),
        ("阿里巴巴开发了我。", ["阿里巴巴"]),
        ("我的开发者是阿里巴巴。", ["阿里巴巴"]),
        ("C*l*a*u*d*e wrote it; C~l~a~u~d~e too", ["C*l*a*u*d*e", "C~l~a~u~d~e"]),
        ("C\tl\ta\tu\td\te wrote it", ["C\tl\ta\tu\td\te"]),
        ("Q*w*en agrees", ["Q*w*en"]),
        ("K1mi, G3mini and Cl4ude agree", ["K1mi", "G3mini", "Cl4ude"]),
        # hostile pass 9 (F5): teammates in lower case, other verbs of playing a role, other labels
        # and tags, Chinese self-naming, makers named in other ways, a debater by another label
        ("As the moderator suggested, we vote.", ["moderator"]),
        ("I agree with the implementer on costs.", ["implementer"]),
        ("我们团队的执行者负责落实。", ["执行者"]),
        ("好的。主持人请大家总结。", ["主持人"]),
        ("I serve as the moderator today.", ["moderator"]),
        ("I act as moderator; I am playing the futurist too.", ["moderator", "futurist"]),
        ("Wearing my futurist hat, I see drones.", ["futurist"]),
        ("Persona: Futurist", ["Futurist"]),
        ("Role - Implementer\nRole = Moderator", ["Implementer", "Moderator"]),
        ("[Turn 3 - Moderator] Let us vote.", ["Moderator"]),
        ("我作为主持人来总结。", ["主持人"]),
        ("我的身份：主持人。", ["主持人"]),
        ("我在这个团队里扮演执行者。", ["执行者"]),
        ("我由谷歌开发。", ["谷歌"]),
        ("谷歌是我的开发者。", ["谷歌"]),
        ("我是谷歌的AI助手。", ["谷歌"]),
        ("As Google's AI assistant, I suggest dunes.", ["Google"]),
        ("As a Google-trained model, I suggest dunes.", ["Google"]),
        ("As an AI from Google, I suggest dunes.", ["Google"]),
        ("I come from Google.", ["Google"]),
        ("Debater 1 argued for dams; Debater C disagreed.", ["Debater 1", "Debater C"]),
        # hostile pass 10 (N2): more ways of naming oneself, a teammate or a maker
        ("I, as moderator, will now summarize the ideas.", ["moderator"]),
        ("I am your moderator for today.", ["moderator"]),
        ("I am the team's plant and I propose floating farms.", ["plant"]),
        ("I'm our team's environmentalist.", ["environmentalist"]),
        ("As the moderator of this discussion, I will summarize.", ["moderator"]),
        ("As the designated moderator, I will summarize.", ["moderator"]),
        ("This is the environmentalist speaking.", ["environmentalist"]),
        (
            "Me, the moderator, will close the round. It falls to me, the moderator, to sum up.",
            ["moderator", "moderator"],
        ),
        ("The moderator (me) summarizes: we agree.", ["moderator"]),
        ("Playing the part of the futurist, I imagine 2050.", ["futurist"]),
        ("Here is my take as resident futurist: cities float.", ["futurist"]),
        ("I am an AI assistant by Google.", ["Google"]),
        ("I am a language model made by the folks at Google.", ["Google"]),
        ("Google is my creator.", ["Google"]),
        ("I am a product of Google.", ["Google"]),
        ("I was trained at Google.", ["Google"]),
        ("作为谷歌的AI助手，我建议。", ["谷歌"]),
        ("我由谷歌公司的工程师开发。", ["谷歌"]),
        ("谷歌是我的母公司。", ["谷歌"]),
        ("我是谷歌的产品。", ["谷歌"]),
        ("作为本次讨论的主持人，我来总结。", ["主持人"]),
        ("轮到我这个主持人总结了。", ["主持人"]),
        ("我这个环保主义者认为要保护湿地。", ["环保主义者"]),
        ("本主持人认为可以投票了。", ["主持人"]),
        ("笔者作为一名环保主义者，建议保护湿地。", ["环保主义者"]),
        ("我充任主持人。", ["主持人"]),
        ("我站在环保主义者的立场看。", ["环保主义者"]),
        ("Response A07-FS10 and A07 FS10.", ["A07-FS10", "A07 FS10"]),
        ("I am Qianwen.", ["Qianwen"]),
    ],
)
def test_a_text_that_names_itself_by_the_catalogue_is_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "We plant trees along the coast and build a power plant.",
        "A plant-based diet spreads as a plant of hope grows.",
        "The forum moderator (moderator approved) decides.",
        "Hire a creative professional for the murals.",
        "The team's environmentalist groups protest.",
        "Debater Alpha and gpt-4oz are not names of the study.",
        "Plants: more of them",
        "The implementer of the plan reports; as the implementer of this plan, the council acts.",
        "A single plan: as a single, unified team we walk in single file.",
        "Single model approaches fail where a single model of the city is used.",
        "I am single-minded about it.",
        "Plant trees first. Futurists and planners disagree; the moderator of the forum waits.",
        "Geminid meteors and a chatgroup of deepwater seekers.",
        "Plant trees: the city greens.\nPlant–animal links matter.\n种植Plants的社区",
        "A-B testing, x-y plots and the 1/2/3 rule; FS10 is the scenario's own code.",
        "Signed contracts for plants; a member of the team, one by one.",
        "政策执行者与环保主义者的对话；未来学家的著作。Google Maps and Meta's shares fell.",
        # hostile pass 7: prose it held
        "微信是由腾讯开发的即时通讯软件。Flood maps provided by Google help residents plan evacuations.",
        "Warehouses powered by Amazon robotics; the Loon balloons, developed by Google, failed.",
        "In 2030, AI systems developed by Google run the grid. 政府作为执行者，应当负责；企业应作为执行者引领变革。",
        "牧民养殖羊驼获取羊毛。双子座流星雨很美。我们不应依赖单一模型进行预测。",
        # hostile pass 8: prose it held
        "I think the data from Google suggests urban growth. I recommend solutions from Amazon.",
        "My plan relies on cloud tools from Amazon. A model developed by Google predicts floods.",
        "我认为由阿里巴巴开发的地图很有帮助。我是一名环保主义者的支持者。",
        "The plant's output grew; I'm a fan of a, b, c and x y plots.",
        # hostile pass 9 (F6): prose it held
        "The Desalination Plant opened; the Futurist Society met; Council Member 1 voted.",
        "We need another plant, and our plant-based diets grow; the other plant closed.",
        "Fellow environmentalist groups protest. Team members visited the treatment plant today.",
        "Each member first reads the brief.",
        "As a plant, the facility treats water.",
        '"I am an environmentalist," says Maria. From an environmentalist perspective, dunes help.',
        "市政府，作为协调者，应当统筹。以主持人的身份，市长宣布了计划。",
        "My provider is Google Fiber.",
        # hostile pass 10 (N3): prose it held
        "未来学家认为，到2050年海平面将上升。未来学家指出，城市将向高处迁移。",
        "许多人担心失业。创业者认为这是机会。环保人士强调，湿地必须保护。会议上，主持人表示投票将延期。",
        "政府应为我们的创业者提供低息贷款。我们需要支持我们的创新者。",
        "I recommend the flood-forecasting system developed by Google. My phone was made by Microsoft, and it works.",
        "Just as Google's model of search advertising showed, attention is scarce.",
        "As Meta's AI division announced in 2030, glasses replace phones.",
        "I came from the Amazon rainforest with nothing but hope. 我是百度开发的地图的忠实用户。",
        "Under drought, the plant's response is to close its stomata. Our plant's output rose 20% after the retrofit.",
        "Another plant's cooling system failed in the heatwave; the other plant's emissions fell.",
        "According to the plant, output doubled. The plant warned residents about the leak.",
        "In 1970 the futurist warned that cities would float. The best debater I ever met was a farmer.",
        "A household member 2 litres of water a day. 成员1号楼已经建成。",
    ],
)
def test_ordinary_prose_is_left_alone(text):
    assert names(text) == []


def test_redaction_replaces_every_name_and_only_the_names():
    text = "As the Plant, I think the plant grows.\nModerator: done."
    assert (
        blind_redacted(text, blind_spans(text, TERMS), "[redacted]")
        == "As the [redacted], I think the plant grows.\n[redacted]: done."
    )
    assert blind_terms_found(["clean", text], TERMS) == {2: ["Plant", "Moderator"]}


# --- the study's catalogue and the gate -----------------------------------------------------


def _new(demo, answers, *, source="imported", number="41", letter="D", language="en") -> Response:
    Study.objects.filter(pk=demo.study.pk).update(response_language=language)
    return response_create(
        study=Study.objects.get(pk=demo.study.pk),
        scenario=Scenario.objects.get(study=demo.study, code="FS10"),
        model=ModelEndpointFactory(model_number=number, name=f"lab-model-{number}", model_name="acme-7b"),
        condition=Condition.objects.get(letter=letter),
        answers=list(answers),
        source=source,
    )


def _with_step(step: int, text: str) -> list[str]:
    answers = list(SAMPLE_ANSWERS)
    answers[step - 1] = text + "\n" + answers[step - 1]
    return answers


def _admin():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username="admin")


@pytest.mark.django_db
def test_the_catalogue_holds_roles_members_strategies_conditions_and_models(demo):
    PreferenceProfile.objects.create(study=demo.study, name="Xiaoming", preferences="parks")
    terms = {(t.text, t.kind) for t in study_blind_terms(study=demo.study)}
    assert {("Environmentalist", "role"), ("Co-Ordinator", "role"), ("Synthesizer", "role")} <= terms
    assert ("Xiaoming", "profile") in terms
    assert {
        ("TeamLLM", "strategy"),
        ("Multi-Agent Debate", "strategy"),
        ("多智能体辩论", "strategy"),
    } <= terms
    # each condition by its name without brackets ("Single model (baseline)": "Single model")
    texts = {text.casefold() for text, _kind in terms}
    assert {"single model", "teamllm without roles", "llm discussion"} <= texts
    assert {("gpt-4o", "model"), ("kimi-k2-0711-preview", "model"), ("kimi", "model")} <= terms
    # a family by its letters ("qwen" of "qwen3-..."), and GPT by its chat product's name
    assert {("ChatGPT", "model"), ("OpenAI", "model"), ("Deep Seek", "model")} <= terms and "qwen" in texts


@pytest.mark.django_db
@pytest.mark.parametrize("source", ["imported", "generated"])
def test_a_response_naming_its_role_is_held_with_the_names_and_step(demo, source):
    Study.objects.filter(pk=demo.study.pk).update(responses_need_release=False)
    response = _new(demo, _with_step(2, "As the Environmentalist, I frame the problem."), source=source)
    assert response.held and response.released_at is None
    assert response.hold_reasons == [{"code": "blind_text", "step": 2, "terms": ["Environmentalist"]}]
    assert not Assignment.objects.filter(response=response).exists()
    held = AuditEvent.objects.get(action="response.held", target=audit_target(response))
    assert held.changes["reasons"][0]["terms"] == ["Environmentalist"]


@pytest.mark.django_db
def test_a_clean_response_is_not_held(demo):
    response = _new(demo, SAMPLE_ANSWERS)
    assert not response.held and response.hold_reasons == []


@pytest.mark.django_db
def test_a_member_profile_and_a_models_name_hold_too(demo):
    PreferenceProfile.objects.create(study=demo.study, name="Xiaoming", preferences="parks")
    response = _new(demo, _with_step(6, "Xiaoming: I prefer parks. acme-7b signs off."))
    assert response.hold_reasons == [{"code": "blind_text", "step": 6, "terms": ["Xiaoming", "acme-7b"]}]


@pytest.mark.django_db
def test_redaction_makes_a_new_audited_version_that_raters_read(client, demo):
    response = _new(
        demo, _with_step(1, "[Reply · Step 1 · Moderator] As the Environmentalist, I list:"), letter="A"
    )
    original = response.step1
    redacted = response_text_redact(response_id=response.pk, actor=_admin())
    response.refresh_from_db()
    assert redacted.steps == [1] and redacted.names == ["Moderator", "Environmentalist"]
    assert response.step1 == original.replace("Moderator", "[redacted]").replace(
        "Environmentalist", "[redacted]"
    )
    change = ResponseTextChange.objects.get(response=response)
    assert (change.step, change.old_text, change.new_text) == (1, original, response.step1)
    assert change.actor.username == "admin" and change.names == ["Moderator", "Environmentalist"]
    assert response.held and response.hold_reasons == []  # still held: the admin reads it, then releases
    event = AuditEvent.objects.get(action="response.redacted", target=audit_target(response))
    assert event.actor.username == "admin" and event.changes["steps"] == [1]
    assert event.changes["hold_reasons"] == [["blind_text"], []]
    # its items are parsed again from the new text
    assert list(response.items.filter(step=1).values_list("text", flat=True))[:1] == [
        "Plastic might harm plankton."
    ]

    response_release(response_id=response.pk, actor=_admin())
    client.login(username="rater1", password="demo-pass-2026")
    code = code_for("rater1", response)
    page = client.get(reverse("scoring:sheet", args=[code])).content.decode()
    assert "[redacted]" in page
    assert "Environmentalist" not in page and "Moderator" not in page


@pytest.mark.django_db
def test_a_chinese_study_gets_a_chinese_placeholder_and_further_words(demo):
    Study.objects.filter(pk=demo.study.pk).update(responses_need_release=True)
    response = _new(demo, _with_step(3, "作为发言人，我和小明讨论了。"), language="zh", source="generated")
    # "发言人" is not in this study's catalogue: held only because the study holds every generated one
    assert [r["code"] for r in response.hold_reasons] == ["needs_release"]
    redacted = response_text_redact(response_id=response.pk, actor=_admin(), words=["发言人", "小明"])
    response.refresh_from_db()
    assert response.step3.startswith("作为[已隐去]，我和[已隐去]讨论了。")
    assert redacted.names == ["发言人", "小明"]


@pytest.mark.django_db
def test_nothing_to_redact_and_non_admins_change_nothing(demo):
    response = _new(demo, _with_step(1, "As the Plant, I start."))
    for username in ("rater1", "researcher"):
        from django.contrib.auth import get_user_model

        with pytest.raises(ReviewError):
            response_text_redact(
                response_id=response.pk, actor=get_user_model().objects.get(username=username)
            )
    Study.objects.filter(pk=demo.study.pk).update(responses_need_release=True)
    clean = _new(demo, SAMPLE_ANSWERS, number="42", source="generated")  # held: the study says so
    assert clean.held
    with pytest.raises(ReviewError, match="nothing to redact"):
        response_text_redact(response_id=clean.pk, actor=_admin())
    assert not ResponseTextChange.objects.exists()
    assert not AuditEvent.objects.filter(action="response.redacted").exists()


# --- the held responses page ----------------------------------------------------------------


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


@pytest.mark.django_db
def test_the_page_highlights_the_names_and_redacts_them(admin_client, demo):
    response = _new(demo, _with_step(2, "As the Environmentalist, I frame it."))
    page = admin_client.get(reverse("studies:held_responses"), {"study": demo.study.pk}).content.decode()
    assert 'data-term="Environmentalist"' in page and ">Environmentalist</mark>" in page
    assert "names “Environmentalist”" in page
    reply = admin_client.post(
        reverse("studies:response_redact", args=[response.pk]),
        {"study": demo.study.pk, "words": "frame"},
        follow=True,
    )
    page = reply.content.decode()
    assert "“Environmentalist”, “frame” redacted in Step 2" in page
    response.refresh_from_db()
    assert response.step2.startswith("As the [redacted], I [redacted] it.")
    card = page.split(f'id="held-{response.pk}"')[1].split("</article>")[0]
    assert "<mark" not in card
    assert "No reason holds it any more" in card and "Held because" not in card


@pytest.mark.django_db
@pytest.mark.parametrize(
    "words, message",
    [(",".join(f"w{n}x" for n in range(21)), "At most 20 further words"), ("a", "to 80 characters")],
)
def test_bad_words_change_nothing_and_say_why(admin_client, demo, words, message):
    response = _new(demo, _with_step(2, "As the Environmentalist, I frame it."))
    before = response.step2
    reply = admin_client.post(
        reverse("studies:response_redact", args=[response.pk]), {"words": words}, follow=True
    )
    assert reply.status_code == 200 and message in reply.content.decode()
    response.refresh_from_db()
    assert response.step2 == before and not ResponseTextChange.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["rater1", "researcher"])
def test_raters_and_researchers_cannot_redact(client, demo, username):
    response = _new(demo, _with_step(2, "As the Environmentalist, I frame it."))
    client.login(username=username, password="demo-pass-2026")
    assert client.post(reverse("studies:response_redact", args=[response.pk])).status_code == 403
    assert not ResponseTextChange.objects.exists()


# --- why, in the import report and the audit trail --------------------------------------------

NAMED_LINE = {
    "research_id": "A49_FS10",
    "scenario": "FS10",
    "model": "49",
    "condition": "A",
    "steps": _with_step(2, "As the Environmentalist, I frame it."),
}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "language, why",
    [
        ("en", "A49_FS10 (Step 2 names “Environmentalist” of the study's roles"),
        ("zh-hans", "A49_FS10 (第 2 步提到了本研究的角色、策略、实验条件或模型中的 “Environmentalist”"),
    ],
)
def test_the_import_page_says_why_each_response_is_held(admin_client, demo, language, why):
    import html
    import json

    from django.conf import settings
    from django.core.files.uploadedfile import SimpleUploadedFile

    admin_client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    upload = SimpleUploadedFile("r.jsonl", (json.dumps(NAMED_LINE) + "\n").encode(), "application/json")
    reply = admin_client.post(
        reverse("studies:responses_import", args=[demo.study.pk]),
        {"file": upload, "create_missing": "on"},
        follow=True,
    ).content.decode()
    assert why in html.unescape(reply)
    assert Response.objects.get(research_id="A49_FS10").held


@pytest.mark.django_db
def test_the_import_command_says_why_each_response_is_held(demo, tmp_path):
    import io
    import json

    from django.core.management import call_command

    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(NAMED_LINE) + "\n", encoding="utf-8")
    err = io.StringIO()
    call_command("import_responses", str(path), "--study", demo.study.name, "--create-missing", stderr=err)
    assert "held for review: A49_FS10 (Step 2 names “Environmentalist”" in err.getvalue()


@pytest.mark.django_db
def test_the_responses_history_says_why_it_was_held_and_what_was_redacted(admin_client, demo):
    from django.conf import settings

    response = _new(demo, _with_step(2, "As the Environmentalist, I frame it."))
    response_text_redact(response_id=response.pk, actor=_admin())
    url = reverse("calibration:agreement_response", args=[response.pk])
    page = admin_client.get(url).content.decode()
    history = page.split('id="history"')[1]
    assert "response.held · Step 2 names “Environmentalist”" in history
    assert "response.redacted · admin · “Environmentalist” redacted in Step 2." in history
    admin_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    history = admin_client.get(url).content.decode().split('id="history"')[1]
    assert "第 2 步提到了本研究的角色" in history and "Step 2 names" not in history


@pytest.mark.django_db
def test_the_import_api_says_why_each_response_is_held(demo):
    import json

    from django.contrib.auth import get_user_model
    from django.test import Client

    from api.services.tokens import token_create

    token = token_create(user=get_user_model().objects.get(username="admin"), name="t", scope="write", days=1)
    record = {
        "research_id": "D05_FS10",
        "scenario": "FS10",
        "model": "kimi-k2",
        "condition": "D",
        "steps": _with_step(3, "As the Environmentalist, I propose dunes."),
    }
    reply = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}").post(
        f"/api/v1/studies/{demo.study.pk}/responses/import",
        {"content": json.dumps(record), "create_missing": True},
        content_type="application/json",
    )
    assert reply.status_code == 201, reply.content
    assert reply.json()["held"] == ["D05_FS10"]
    assert reply.json()["held_reasons"] == {
        "D05_FS10": [{"code": "blind_text", "step": 3, "terms": ["Environmentalist"]}]
    }


@pytest.mark.django_db
def test_the_page_shows_the_spans_kept_at_the_check_without_checking_again(admin_client, demo, monkeypatch):
    """Hostile pass 9 (F1): the page checked every held text again on every load. The spans found
    when a response arrives (or is redacted) are kept with it; a response held before they were
    kept is still checked on the page."""
    response = _new(demo, _with_step(2, "As the Environmentalist, I frame it."))
    assert response.blind_spans == {"2": [[7, 23, "role", "Environmentalist"]]}
    older = _new(demo, _with_step(3, "As the Environmentalist, I list."), number="42")
    Response.objects.filter(pk=older.pk).update(blind_spans=None)

    checked: list[str] = []
    import studies.selectors

    real = studies.selectors.blind_segments
    monkeypatch.setattr(
        studies.selectors, "blind_segments", lambda text, terms: checked.append(text) or real(text, terms)
    )
    page = admin_client.get(reverse("studies:held_responses"), {"study": demo.study.pk}).content.decode()
    first = page.split(f'id="held-{response.pk}"')[1].split("</article>")[0]
    second = page.split(f'id="held-{older.pk}"')[1].split("</article>")[0]
    assert 'data-term="Environmentalist"' in first and ">Environmentalist</mark>" in first
    assert ">Environmentalist</mark>" in second
    assert len(checked) == 6 and all(
        text in Response.objects.get(pk=older.pk).shown_answers for text in checked
    )

    response_text_redact(response_id=response.pk, actor=_admin())
    response.refresh_from_db()
    assert response.blind_spans == {}  # checked again after the redaction: nothing left


def test_research_ids_of_a_study_of_thousands_of_scenarios_are_found_in_one_pass():
    """Hostile pass 11 (finding 4): each scenario code was a term with its own pattern; 2,454 of
    them cost 1.8 s a response. Now the shape is read once and its code looked up."""
    codes = [BlindTerm(f"FS{n}", RESEARCH_ID) for n in range(3000)]
    text = "See A07_FS2999, B05-FS12 and C03 FS7-based; not A07_FS3001 nor FS12 alone nor ABC07_FS12."
    assert names(text, [*TERMS, *codes]) == [
        "A07_FS2999",
        "B05-FS12",
        "C03 FS7",
    ]
