"""A database created by the previous main (before the app split) migrates forward with every row kept.

The split moved models into ``studies``, ``calibration`` and ``research`` while keeping their tables
(``db_table``), through state-only migrations. These tests rebuild the previous main's schema with the
migration executor (``scoring 0001_initial``, ``generation 0002_initial``, the new apps unapplied),
fill every one of its tables through the historical models of that state, apply the split's own
migrations and compare: rows, content types (and what hangs on them: permissions, admin history) and the
schema itself. Then the migrations made since the split run too, the way a deployment does (``manage.py
migrate``): every row is still there and today's models read it. A second test checks that a fresh
database and an old one migrated forward end with the same schema.

Both tests leave the database fully migrated, also when they fail.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps as current_apps
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.sql import emit_post_migrate_signal
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.product import APPS

pytestmark = pytest.mark.django_db(transaction=True)

NEW_APPS = ("studies", "calibration", "research", "training")
OLD_APPS = ("scoring", "generation")
# The previous main's last migrations of the apps the models came from.
OLD_LEAVES = [("scoring", "0001_initial"), ("generation", "0002_initial")]
# The split's last migrations: it changed no table. Later migrations may (new tables,
# new columns), and are checked to keep every row.
SPLIT_LEAVES = [
    ("studies", "0001_initial"),
    ("scoring", "0002_remove_exportjob_created_by_and_more"),
    ("calibration", "0001_initial"),
    ("research", "0001_initial"),
    ("generation", "0004_delete_condition_delete_modelendpoint"),
]
# Apps added after the split (every other app of the product that has migrations, so a new app
# cannot be missed): unapplied in the old database, created by the final `migrate`.
LATER_APPS = tuple(
    config.label
    for config in current_apps.get_app_configs()
    if config.name in APPS
    and config.label not in (*NEW_APPS, *OLD_APPS)
    and (Path(config.path) / "migrations").is_dir()
)
PROJECT_APPS = (*NEW_APPS, *OLD_APPS, *LATER_APPS)
# What moved where, written out here rather than read from the migrations.
MOVED = {
    ("generation", "condition"): "studies",
    ("generation", "modelendpoint"): "studies",
    ("scoring", "study"): "studies",
    ("scoring", "scenario"): "studies",
    ("scoring", "response"): "studies",
    ("scoring", "responseitem"): "studies",
    ("scoring", "responseagreement"): "calibration",
    ("scoring", "groupagreement"): "calibration",
    ("scoring", "calibrationdecision"): "calibration",
    ("scoring", "finalscore"): "calibration",
    ("scoring", "exportjob"): "research",
}

# Later migrations name every table after its app (studies 0007, calibration 0003, research 0006).
RENAMED = {f"{old_app}_{model}": f"{new_app}_{model}" for (old_app, model), new_app in MOVED.items()}
RENAMED["scoring_finalscore_sheets"] = "calibration_finalscore_sheets"  # its many-to-many table

T0 = dt.datetime(2026, 11, 20, 9, 30, 15, 123456, tzinfo=dt.UTC)


# --------------------------------------------------------------------------- migrating


def _previous_main_nodes(executor: MigrationExecutor) -> list[tuple[str, str]]:
    """Django's own apps at their latest migration, the project at the previous main's."""
    others = [node for node in executor.loader.graph.leaf_nodes() if node[0] not in PROJECT_APPS]
    return others + OLD_LEAVES


def migrate_to_previous_main():
    """Migrate the database to the previous main's schema; return that state's (historical) apps."""
    executor = MigrationExecutor(connection)
    nodes = _previous_main_nodes(executor)
    executor.migrate(nodes + [(app, None) for app in (*LATER_APPS, *NEW_APPS)])
    executor = MigrationExecutor(connection)  # re-read what is applied
    applied = {node for node in executor.loader.applied_migrations if node[0] in PROJECT_APPS}
    assert applied == {
        ("scoring", "0001_initial"),
        ("generation", "0001_initial"),
        ("generation", "0002_initial"),
    }
    return executor.loader.project_state(nodes).apps


def migrate_to_split():
    """Apply the split's own migrations (and no later one); return that state's (historical) apps."""
    executor = MigrationExecutor(connection)
    nodes = [
        node for node in executor.loader.graph.leaf_nodes() if node[0] not in PROJECT_APPS
    ] + SPLIT_LEAVES
    executor.migrate(nodes)
    split = MigrationExecutor(connection).loader.project_state(nodes).apps
    emit_post_migrate_signal(0, False, connection.alias, apps=split, plan=[])
    ContentType.objects.clear_cache()
    return split


def empty_database():
    """Drop every table, the migration history included: an empty database, as on a first deployment."""
    cascade = " CASCADE" if connection.vendor == "postgresql" else ""
    with connection.constraint_checks_disabled(), connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"DROP TABLE {connection.ops.quote_name(table)}{cascade}")
        assert connection.introspection.table_names(cursor) == []


def migrate_to_latest():
    """What a deployment runs: every migration, then post_migrate (content types, permissions)."""
    call_command("migrate", interactive=False, verbosity=0)
    ContentType.objects.clear_cache()


def pending_migrations() -> list:
    executor = MigrationExecutor(connection)
    return executor.migration_plan(executor.loader.graph.leaf_nodes())


def leave_fully_migrated():
    """Whatever happened, the rest of the suite gets a fully migrated database."""
    if pending_migrations():
        migrate_to_latest()
    ContentType.objects.clear_cache()
    assert pending_migrations() == []


# --------------------------------------------------------------------------- reading the database


def _tables(cursor) -> list[str]:
    return sorted(t for t in connection.introspection.table_names(cursor) if t != "django_migrations")


def schema() -> dict[str, dict]:
    """Every table's columns (in order, with types and nullability) and its constraints and indexes."""
    introspection = connection.introspection
    with connection.cursor() as cursor:
        return {
            table: {
                "columns": [tuple(column) for column in introspection.get_table_description(cursor, table)],
                "constraints": introspection.get_constraints(cursor, table),
            }
            for table in _tables(cursor)
        }


def table_rows() -> dict[str, list[dict]]:
    """Every row of every table, straight from SQL, in a stable order."""
    quote = connection.ops.quote_name
    dump = {}
    with connection.cursor() as cursor:
        for table in _tables(cursor):
            cursor.execute(f"SELECT * FROM {quote(table)}")  # noqa: S608 (names from introspection)
            names = [column[0] for column in cursor.description]
            dump[table] = sorted((dict(zip(names, row, strict=True)) for row in cursor.fetchall()), key=repr)
    return dump


def model_rows(registry) -> dict[str, dict]:
    """Per table: the model reading it, its fields (attname, column), all rows through the ORM
    (field values and FK ids) and its many-to-many pairs."""
    out = {}
    for model in registry.get_models():
        meta, manager = model._meta, model._base_manager
        fields = sorted((field.attname, field.column) for field in meta.concrete_fields)
        out[meta.db_table] = {
            "model": meta.label_lower,
            "fields": fields,
            "rows": list(manager.order_by("pk").values_list(*[attname for attname, _ in fields])),
            "m2m": {
                field.name: list(
                    manager.filter(**{f"{field.name}__isnull": False})
                    .order_by("pk", field.name)
                    .values_list("pk", field.name)
                )
                for field in meta.many_to_many
            },
        }
    return out


def moved_label(app_label: str, model: str) -> str:
    return MOVED.get((app_label, model), app_label)


# --------------------------------------------------------------------------- the previous main's data


def fill_previous_main(old) -> dict:
    """Realistic rows in every table of the previous main's schema, through its historical models."""
    get = old.get_model
    User, Group, Permission = get("auth", "User"), get("auth", "Group"), get("auth", "Permission")
    ContentTypeOld = get("contenttypes", "ContentType")
    hour = dt.timedelta(hours=1)

    def perm(app_label, codename):
        return Permission.objects.get(content_type__app_label=app_label, codename=codename)

    coordinator = User.objects.create(
        username="coordinator",
        password="md5$salt$0123456789abcdef0123456789abcdef",
        email="coordinator@example.org",
        first_name="Ada",
        last_name="Lovelace",
        is_staff=True,
        is_superuser=True,
        date_joined=T0,
        last_login=T0 + hour,
    )
    raters = [
        User.objects.create(
            username=f"rater{n}", password="md5$salt$fedcba", first_name=name, date_joined=T0 + n * hour
        )
        for n, name in enumerate(["李雷", "Kim", "王芳"], start=1)
    ]
    raters_group = Group.objects.create(name="rater")
    view_response = perm("scoring", "view_response")
    raters_group.permissions.add(view_response, perm("scoring", "add_scoresheet"))
    for user in raters:
        user.groups.add(raters_group)
    change_finalscore = perm("scoring", "change_finalscore")
    raters[2].user_permissions.add(change_finalscore)

    RaterProfile = get("scoring", "RaterProfile")
    for n, (user, language) in enumerate(zip(raters, ["zh-hans", "en", ""], strict=True), start=1):
        RaterProfile.objects.create(user=user, rater_code=f"H0{n}", can_calibrate=n == 3, language=language)

    ModelEndpoint = get("generation", "ModelEndpoint")
    ep05 = ModelEndpoint.objects.create(
        name="GPT-4o",
        model_number="05",
        base_url="https://api.openai.com/v1",
        model_name="gpt-4o-2024-08-06",
        api_key_env="OPENAI_API_KEY",
        concurrency_limit=8,
        timeout_seconds=90.5,
        extra_params={"top_p": 0.95, "stop": ["\n\n"], "seed": None},
        notes="Pilot endpoint.",
    )
    ep11 = ModelEndpoint.objects.create(name="Qwen", model_number="11", is_active=False)
    Condition = get("generation", "Condition")
    team = Condition.objects.create(
        letter="A",
        name="TeamLLM",
        strategy="teamllm",
        parameters={"rounds": 3, "temperatures": {"Plant": 0.9, "Monitor Evaluator": 0.3}, "language": "zh"},
        description="Four Belbin roles.",
    )
    single = Condition.objects.create(letter="B", name="Single", strategy="single")
    PreferenceProfile = get("generation", "PreferenceProfile")
    PreferenceProfile.objects.create(name="Mia", preferences="Prefers concrete, local solutions.", order=1)
    PreferenceProfile.objects.create(name="Noah", preferences="喜欢技术方案。", order=2, is_active=False)

    Study, Scenario = get("scoring", "Study"), get("scoring", "Scenario")
    study = Study.objects.create(
        name="FPSP 2026",
        description="Future problem solving, spring cohort.",
        rubric_version="cgpst-v1",
        agreement_threshold=Decimal("0.625"),
        headline_icc="ICC2k",
        final_score_rule="mean_of_three",
        response_language="en",
    )
    fs10 = Scenario.objects.create(code="FS10", theme="Water", text="In 2040, rivers run dry.")
    fs11 = Scenario.objects.create(study=study, code="FS11", theme="Cities", text="In 2050, cities float.")

    Response, ResponseItem = get("scoring", "Response"), get("scoring", "ResponseItem")
    r1 = Response.objects.create(
        study=study,
        scenario=fs10,
        condition=team,
        model=ep05,
        research_id="A05_FS10",
        step1="1. Water prices rise.\n2. Farms fail.",
        step2="How might we keep farms watered?",
        step3="1. Desalination.",
        step4="1. Cost.",
        step5="| idea | cost |",
        step6="Build desalination plants.",
        source="generated",
        status="final",
        step1_blank_items=1,
        step3_blank_items=0,
        grid={"criteria": ["cost", "time"], "scores": [[1, 2], [2, 1]]},
        grid_errors=[{"row": 2, "error": "tie"}],
        implied_correctly_used=3,
        parse_notes=["step 4 had no numbering", "全角标点"],
    )
    r2 = Response.objects.create(
        study=study,
        scenario=fs11,
        condition=single,
        model=ep11,
        research_id="B11_FS11",
        step1="1. Flooding.",
        source="imported",
        status="calibration",
    )
    ResponseItem.objects.create(response=r1, step=1, position=1, text="Water prices rise.")
    ResponseItem.objects.create(response=r1, step=1, position=2, text="Farms fail.")
    ResponseItem.objects.create(response=r1, step=3, position=1, text="Desalination.")
    ResponseItem.objects.create(response=r1, step=4, position=1, text="Cost.")
    ResponseItem.objects.create(response=r2, step=1, position=1, text="Flooding.")

    ScoringGroup, Assignment = get("scoring", "ScoringGroup"), get("scoring", "Assignment")
    group = ScoringGroup.objects.create(
        study=study,
        scenario=fs10,
        condition=team,
        rater_a=raters[0],
        rater_b=raters[1],
        created_by=coordinator,
    )
    old_group = ScoringGroup.objects.create(
        study=study,
        scenario=fs11,
        condition=single,
        rater_a=raters[1],
        rater_b=raters[0],
        archived_at=T0 + 2 * hour,
        archived_reason="Pair changed.",
    )
    a1 = Assignment.objects.create(
        rater=raters[0], response=r1, group=group, order_key=101, created_by=coordinator
    )
    a2 = Assignment.objects.create(rater=raters[1], response=r1, group=group, order_key=202)
    a3 = Assignment.objects.create(rater=raters[2], response=r1, role="calibration", order_key=303)
    a4 = Assignment.objects.create(
        rater=raters[0],
        response=r2,
        group=old_group,
        order_key=404,
        archived_at=T0 + 3 * hour,
        archived_reason="Group archived.",
    )

    ScoreSheet = get("scoring", "ScoreSheet")
    sheets = [
        ScoreSheet.objects.create(
            assignment=assignment,
            status="submitted" if n < 4 else "draft",
            version=n + 2,
            rubric_version="cgpst-v1",
            source=["web", "workbook", "web", "import"][n - 1],
            condition_phrase="Given that water is scarce",
            stem="how might we",
            kvp="keep",
            purpose="so that farms survive",
            comments={"1": "清楚", "6": "Thorough."},
            totals={"fluency": 4 + n, "flexibility": 3, "step1": {"valid": 2}},
            overall=40 + n,
            last_batch_id=f"batch-{n}",
            submitted_at=T0 + n * hour if n < 4 else None,
        )
        for n, assignment in enumerate([a1, a2, a3, a4], start=1)
    ]
    ItemScore, DimensionScore = get("scoring", "ItemScore"), get("scoring", "DimensionScore")
    SheetEvent = get("scoring", "SheetEvent")
    for sheet in sheets:
        ItemScore.objects.create(
            sheet=sheet, step=1, position=1, category="economy", elaboration=2, originality=1, relevance=1
        )
        ItemScore.objects.create(
            sheet=sheet, step=3, position=1, invalid_type="duplicate", comment="Same as 1."
        )
        DimensionScore.objects.create(sheet=sheet, dimension="fluency", value=4)
        DimensionScore.objects.create(sheet=sheet, dimension="flexibility", value=None)
        SheetEvent.objects.create(sheet=sheet, kind="create", actor=sheet.assignment.rater)
        SheetEvent.objects.create(
            sheet=sheet,
            kind="change",
            path="items.1.1.category",
            old_value=None,
            new_value={"category": "economy", "score": [1, 2]},
            version=1,
            actor=sheet.assignment.rater,
            note="autosave",
        )

    ResponseAgreement = get("scoring", "ResponseAgreement")
    ResponseAgreement.objects.create(
        response=r1,
        sheet_a=sheets[0],
        sheet_b=sheets[1],
        pcc=0.412345678901,
        p_value=0.0512,
        threshold=Decimal("0.625"),
        flagged=True,
        after_pcc=0.83,
    )
    ResponseAgreement.objects.create(response=r2, reason="constant sheet", threshold=Decimal("0.650"))
    GroupAgreement = get("scoring", "GroupAgreement")
    GroupAgreement.objects.create(
        study=study,
        scenario=fs10,
        group=group,
        stage="before",
        n_responses=1,
        forms={"ICC3k": {"value": 0.71, "ci": [0.5, 0.86]}, "ICC1": None},
    )
    GroupAgreement.objects.create(study=study, scenario=fs10, stage="after", reason="too few responses")
    CalibrationDecision = get("scoring", "CalibrationDecision")
    CalibrationDecision.objects.create(
        response=r1, assignment=a3, decided_by=raters[2], decided_at=T0 + 5 * hour, reason="H02 is closer."
    )
    FinalScore = get("scoring", "FinalScore")
    final = FinalScore.objects.create(
        response=r1,
        overall=Decimal("87.25"),
        steps={"1": 20.5, "2": 8, "6": 12.25},
        dimensions={"fluency": 5.5, "originality": 3},
        rule="calibrator_and_closer",
        calibrated=True,
        note="Calibrated by H03.",
    )
    final.sheets.set([sheets[1], sheets[2]])
    FinalScore.objects.create(response=r2, overall=Decimal("61.00"), rule="imported")
    ExportJob = get("scoring", "ExportJob")
    ExportJob.objects.create(
        kind="results_table1",
        params={"study": study.pk, "stage": "after", "forms": ["ICC3k"]},
        status="done",
        progress=4,
        total=4,
        file_path="exports/2026/table1.xlsx",
        file_name="table1.xlsx",
        created_by=coordinator,
        finished_at=T0 + 6 * hour,
    )

    GenerationBatch, GenerationRun = get("generation", "GenerationBatch"), get("generation", "GenerationRun")
    batch = GenerationBatch.objects.create(
        study=study, name="Pilot", status="finished", created_by=coordinator, finished_at=T0 + 7 * hour
    )
    run = GenerationRun.objects.create(
        batch=batch,
        study=study,
        scenario=fs10,
        endpoint=ep05,
        condition=team,
        status="succeeded",
        settings_snapshot={"rounds": 3, "temperature": 0.9, "roles": ["Plant", "Shaper"]},
        current_step=6,
        current_phase="done",
        calls_done=14,
        calls_total=14,
        prompt_tokens=12000,
        completion_tokens=3400,
        attempts=1,
        response=r1,
        started_at=T0,
        finished_at=T0 + hour,
        heartbeat_at=T0 + hour,
    )
    GenerationRun.objects.create(study=study, scenario=fs11, endpoint=ep11, condition=single, status="failed")
    Turn = get("generation", "Turn")
    for seq, (step, phase, role) in enumerate([(0, "warmup", "Plant"), (1, "ideas", "Shaper")], start=1):
        Turn.objects.create(
            run=run,
            seq=seq,
            step=step,
            phase=phase,
            role=role,
            messages=[{"role": "system", "content": "You are a Plant."}, {"role": "user", "content": "FS10"}],
            request_params={"temperature": 0.9, "max_tokens": 2048},
            reply="Ideas…",
            reasoning="thinking",
            prompt_tokens=900,
            completion_tokens=300,
            latency_ms=1234,
            attempts=2,
        )

    Session = get("sessions", "Session")
    Session.objects.create(session_key="k" * 32, session_data="e30:signed", expire_date=T0 + 24 * hour)
    # django-axes (login throttling): a locked-out attempt, its expiry, the logs
    access = {"user_agent": "Mozilla/5.0", "ip_address": "192.0.2.7", "username": "rater-1",
              "http_accept": "text/html", "path_info": "/accounts/login/"}  # fmt: skip
    attempt = get("axes", "AccessAttempt").objects.create(
        **access, get_data="", post_data="username=rater-1", failures_since_start=10
    )
    get("axes", "AccessAttemptExpiration").objects.create(access_attempt=attempt, expires_at=T0 + hour)
    get("axes", "AccessFailureLog").objects.create(**access, locked_out=True)
    get("axes", "AccessLog").objects.create(**access, session_hash="0" * 64)
    LogEntry = get("admin", "LogEntry")

    def log(content_type, obj, flag):
        return LogEntry.objects.create(
            user=coordinator,
            content_type=content_type,
            object_id=str(obj.pk),
            object_repr=str(obj.pk),
            action_flag=flag,
            change_message='[{"changed": {"fields": ["Status"]}}]',
            action_time=T0 + 8 * hour,
        )

    response_type = ContentTypeOld.objects.get(app_label="scoring", model="response")
    final_type = ContentTypeOld.objects.get(app_label="scoring", model="finalscore")
    return {
        "response": r1.pk,
        "response_type": response_type.pk,
        "final": final.pk,
        "final_sheets": {sheets[1].pk, sheets[2].pk},
        "run": run.pk,
        "view_response": view_response.pk,
        "raters_group": raters_group.pk,
        "rater": raters[0].pk,
        "calibrator": raters[2].pk,
        "response_log": log(response_type, r1, 2).pk,
        "final_log": log(final_type, final, 1).pk,
    }


# --------------------------------------------------------------------------- the tests


def test_previous_main_database_migrates_forward_with_every_row_kept():
    ContentType.objects.clear_cache()
    try:
        old = migrate_to_previous_main()
        # Migrating back returned the moved models' content types to their old apps ...
        moved_models = [model for _, model in MOVED]
        left = list(
            ContentType.objects.filter(app_label__in=NEW_APPS, model__in=moved_models).values_list(
                "app_label", "model"
            )
        )
        assert not left, f"unapplying the new apps left their content types behind: {left}"
        # ... and the previous main's `migrate` would have made these content types and permissions.
        emit_post_migrate_signal(0, False, connection.alias, apps=old, plan=[])
        ContentType.objects.clear_cache()

        ids = fill_previous_main(old)
        schema_before = schema()
        rows_before = table_rows()
        models_before = model_rows(old)
        empty = sorted(table for table, rows in rows_before.items() if not rows)
        assert not empty, f"the test leaves tables of the previous schema empty: {empty}"
        ContentTypeOld = old.get_model("contenttypes", "ContentType")
        old_type_ids = {
            model._meta.db_table: ContentTypeOld.objects.get(
                app_label=model._meta.app_label, model=model._meta.model_name
            ).pk
            for model in old.get_models()
        }

        split = migrate_to_split()

        # The schema is untouched: same tables, columns, constraints and indexes.
        schema_after = schema()
        assert sorted(schema_after) == sorted(schema_before)
        for table, before in schema_before.items():
            assert schema_after[table] == before, f"the schema of {table} changed"

        # Every row kept: same number per table, same values (the content types only change app).
        rows_after = table_rows()
        assert {t: len(r) for t, r in rows_after.items()} == {t: len(r) for t, r in rows_before.items()}
        for row in rows_before["django_content_type"]:
            row["app_label"] = moved_label(row["app_label"], row["model"])
        rows_before["django_content_type"].sort(key=repr)
        for table, before in rows_before.items():
            assert rows_after[table] == before, f"rows of {table} changed"

        # ... and read through the split's models: every old table has its model, same fields, same values.
        tables_read = {model._meta.label: model._meta.db_table for model in split.get_models()}
        lost = {label: table for label, table in tables_read.items() if table not in models_before}
        assert not lost, f"the split's models read tables the previous main did not have: {lost}"
        models_after = model_rows(split)
        assert sorted(models_after) == sorted(models_before)
        moved = {}
        for table, before in models_before.items():
            after = models_after[table]
            assert after["fields"] == before["fields"], f"{after['model']} reads {table} differently"
            if table == "django_content_type":
                expected = [(moved_label(app, model), pk, model) for app, pk, model in before["rows"]]
                assert after["rows"] == expected
            else:
                assert after["rows"] == before["rows"], f"{after['model']} reads other values from {table}"
            assert after["m2m"] == before["m2m"], f"{after['model']}: many-to-many pairs changed"
            old_label, new_label = before["model"], after["model"]
            if old_label != new_label:
                moved[tuple(old_label.split("."))] = new_label.split(".")[0]
        assert moved == MOVED

        # Content types moved with their models, keeping their ids; none stale, none duplicated.
        for model in split.get_models():
            content_type = ContentType.objects.get_for_model(model)
            assert content_type.pk == old_type_ids[model._meta.db_table], model._meta.label
        assert all(content_type.model_class() for content_type in ContentType.objects.all())

        # The migrations made since the split keep every row, and today's models read them.
        migrate_to_latest()
        assert pending_migrations() == []
        rows_latest = table_rows()
        assert not set(RENAMED) & set(rows_latest), "a moved model's table kept its old app's name"
        assert {t: len(rows_latest[RENAMED.get(t, t)]) for t in rows_after} == {
            t: len(r) for t, r in rows_after.items()
        }
        check_moved_rows(ids)
        check_later_migrations()

        # The models and the migrations agree.
        out = StringIO()
        try:
            call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
        except SystemExit as exc:
            pytest.fail(
                f"makemigrations finds changes after migrating forward (exit {exc.code}):\n{out.getvalue()}"
            )
        assert "No changes detected" in out.getvalue()
        check_models_match_database(schema())
    finally:
        leave_fully_migrated()


def check_moved_rows(ids: dict) -> None:
    """Spot checks through today's models: relations, the M2M, JSON, decimals, permissions, admin log."""
    from django.contrib.admin.models import LogEntry
    from django.contrib.auth.models import Group, Permission, User

    from calibration.models import CalibrationDecision, FinalScore, GroupAgreement, ResponseAgreement
    from generation.models import GenerationRun
    from research.models import ExportJob
    from scoring.models import Assignment, ScoreSheet
    from studies.models import Response

    response = Response.objects.get(pk=ids["response"])
    assert ContentType.objects.get_for_model(Response).pk == ids["response_type"]
    assert ContentType.objects.get(pk=ids["response_type"]).natural_key() == ("studies", "response")
    assert (response.study.name, response.scenario.code, response.condition.letter) == (
        "FPSP 2026",
        "FS10",
        "A",
    )
    assert response.model.model_number == "05"
    assert response.study.agreement_threshold == Decimal("0.625")
    assert response.grid == {"criteria": ["cost", "time"], "scores": [[1, 2], [2, 1]]}
    assert response.parse_notes == ["step 4 had no numbering", "全角标点"]
    assert list(response.items.values_list("step", "position")) == [(1, 1), (1, 2), (3, 1), (4, 1)]
    assert response.agreement.sheet_a.assignment.response == response
    assert ResponseAgreement.objects.get(response=response).pcc == 0.412345678901
    assert response.calibration_decision.assignment.role == "calibration"
    assert response.generation_run.pk == ids["run"]
    assert GenerationRun.objects.get(pk=ids["run"]).turns.count() == 2
    assert Assignment.objects.filter(response=response).count() == 3
    assert GroupAgreement.objects.get(group__isnull=False).forms["ICC3k"]["ci"] == [0.5, 0.86]

    final = FinalScore.objects.get(pk=ids["final"])
    assert final.response == response
    assert final.overall == Decimal("87.25")
    assert final.steps == {"1": 20.5, "2": 8, "6": 12.25}
    assert set(final.sheets.values_list("pk", flat=True)) == ids["final_sheets"]
    assert all(isinstance(sheet, ScoreSheet) for sheet in final.sheets.all())
    assert CalibrationDecision.objects.get().decided_at == T0 + dt.timedelta(hours=5)
    assert ExportJob.objects.get().params["forms"] == ["ICC3k"]

    # A group's permission on a moved model is now that permission on the model in its new app.
    view_response = Permission.objects.get(pk=ids["view_response"])
    assert view_response.content_type.model_class() is Response
    assert Group.objects.get(pk=ids["raters_group"]).permissions.filter(pk=view_response.pk).exists()
    assert User.objects.get(pk=ids["rater"]).has_perm("studies.view_response")
    assert User.objects.get(pk=ids["calibrator"]).has_perm("calibration.change_finalscore")
    assert not Permission.objects.filter(content_type__app_label="scoring", codename="view_response").exists()

    # The admin history points at the moved objects.
    response_log = LogEntry.objects.get(pk=ids["response_log"])
    assert response_log.content_type.app_label == "studies"
    assert response_log.get_edited_object() == response
    assert response_log.get_admin_url() == f"/admin/studies/response/{response.pk}/change/"
    final_log = LogEntry.objects.get(pk=ids["final_log"])
    assert final_log.get_edited_object() == final


def check_later_migrations() -> None:
    """What the migrations after the split did to the previous main's rows."""
    from research.models import ExportJob

    # An export's path under MEDIA_ROOT became its name in the storage.
    assert ExportJob.objects.get().file.name == "exports/2026/table1.xlsx"

    # A sheet's change events became one event per save listing its changes (scoring 0010).
    from scoring.models import SheetEvent

    changes = list(SheetEvent.objects.filter(kind="change").values_list("changes", "version", "note"))
    assert len(changes) == 4
    for listed, version, note in changes:
        assert listed == [
            {"path": "items.1.1.category", "old": None, "new": {"category": "economy", "score": [1, 2]}}
        ]
        assert (version, note) == (1, "autosave")
    assert all(c == [] for c in SheetEvent.objects.filter(kind="create").values_list("changes", flat=True))


def check_models_match_database(db_schema: dict) -> None:
    """Today's models find their tables, columns, constraints and indexes under the names they expect."""
    for model in current_apps.get_models(include_auto_created=True):
        meta = model._meta
        assert meta.db_table in db_schema, f"{meta.label}: no table {meta.db_table}"
        table = db_schema[meta.db_table]
        columns = {column[0] for column in table["columns"]}
        missing = {field.column for field in meta.concrete_fields} - columns
        assert not missing, f"{meta.label}: {meta.db_table} has no column(s) {sorted(missing)}"
        names = {constraint.name for constraint in [*meta.constraints, *meta.indexes]}
        missing = names - set(table["constraints"])
        assert not missing, f"{meta.label}: no constraint or index named {sorted(missing)} in the database"


def test_fresh_database_has_the_schema_of_an_old_one_migrated_forward():
    """From an empty database: the previous main's migrations, then today's, give exactly the schema
    that today's migrations give on their own (tables, columns, constraint and index names)."""
    try:
        empty_database()
        migrate_to_previous_main()
        previous_main = schema()
        migrate_to_split()
        split = schema()
        migrate_to_latest()
        old_then_forward = schema()

        empty_database()
        migrate_to_latest()
        fresh = schema()
    finally:
        leave_fully_migrated()

    assert sorted(fresh) == sorted(old_then_forward)
    for table, expected in old_then_forward.items():
        assert fresh[table] == expected, f"{table} differs between a fresh and a migrated database"
    assert sorted(split) == sorted(previous_main)
    for table, expected in previous_main.items():
        assert split[table] == expected, f"the split changed {table}"
