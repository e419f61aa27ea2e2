"""``/api/v1/`` response import (read-write token of an admin): the import page's service,
all-or-nothing, every problem listed."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Field, Schema, Status

from api.views.auth import caller
from api.views.v1 import api, study_for
from core.accounts.roles import is_admin
from studies.response_files import RecordError, RecordProblems, records_from_text
from studies.services.responses import responses_import


class ResponsesIn(Schema):
    content: str = Field(
        description=(
            "the file as the import page takes it: the study's data_A.json format, or JSON Lines "
            "(research_id, scenario, model, condition, steps)"
        )
    )
    create_missing: bool = False


@api.post(
    "/studies/{study_id}/responses/import",
    response={201: dict, 400: dict, 403: dict},
    summary="Import responses, all or nothing (admins)",
)
def responses_import_api(request: HttpRequest, study_id: int, body: ResponsesIn):
    if not is_admin(caller(request)):
        return Status(403, {"detail": "responses are imported by admins"})
    study = study_for(request, study_id)
    try:
        report = responses_import(
            records=records_from_text(body.content),
            study=study,
            create_missing=body.create_missing,
            actor=caller(request),
            source="API",
        )
    except RecordProblems as exc:
        return Status(400, {"detail": "nothing was imported", "problems": [str(p) for p in exc.problems]})
    except RecordError as exc:
        return Status(400, {"detail": "nothing was imported", "problems": [str(exc)]})
    return Status(
        201,
        {
            "summary": report.summary(),
            "created": report.created,
            "unchanged": report.unchanged,
            "held": report.held,
            # why each was held: [{"code": "blind_text", "step": 2, "terms": [...]}, ...]
            "held_reasons": {rid: report.hold_reasons.get(rid, []) for rid in report.held},
            "created_objects": report.created_objects,
            "warnings": [str(w) for w in report.warnings],
        },
    )
