from django.core.management.base import BaseCommand, CommandError

from studies.models import Study
from studies.services.studies import CGPST_RELEASE, EMPTY, StudySetupError, study_create


class Command(BaseCommand):
    help = (
        "Create a study: from the CGPST template (as the TeamLLM release: scenario FS10, the paper's ten "
        "models, the standard conditions, rubric version, threshold 0.65, headline ICC3k; our reading: "
        "the final-score rule after calibration) or empty."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        kind = parser.add_mutually_exclusive_group(required=True)
        kind.add_argument("--template", choices=[CGPST_RELEASE], help="Start from a template.")
        kind.add_argument("--empty", action="store_true", help="An empty study with the default settings.")
        parser.add_argument("--description", default="")
        parser.add_argument(
            "--response-language",
            choices=["zh", "en"],
            default="",
            help="The language the generation prompts ask for (default: the template's; the CGPST "
            "release's is Chinese: 'All responses should be in Chinese').",
        )
        parser.add_argument(
            "--rubric",
            default="",
            help="A shipped rubric (studies/rubric/: cgpst-v1, likert-hhh-v1); default cgpst-v1. The study's rubric "
            "page imports one of your own.",
        )

        parser.add_argument(
            "--task",
            choices=["cgpst", "text", "pair"],
            default="",
            help="What a response is: cgpst (six steps on a future scenario, the default), text (one "
            "prompt, one text; with --empty) or pair (two texts of a single-text study side by side, one "
            "preference; with --empty and --pairs-from). Fixed once the study exists.",
        )
        parser.add_argument(
            "--pairs-from",
            default="",
            help="A pairwise study: the single-text study whose responses it compares.",
        )

    def handle(
        self,
        *args,
        name,
        template,
        empty,
        description,
        response_language,
        rubric,
        task,
        pairs_from,
        **options,
    ):
        source = Study.objects.filter(name=pairs_from).first() if pairs_from else None
        if pairs_from and source is None:
            raise CommandError(f"No study named {pairs_from!r}.")
        try:
            study = study_create(
                name=name,
                template=EMPTY if empty else template,
                description=description,
                response_language=response_language,
                rubric_version=rubric,
                task_kind=task,
                pairs_from=source,
            )
        except StudySetupError as exc:
            raise CommandError(str(exc)) from exc
        scenarios = ", ".join(study.scenarios.values_list("code", flat=True)) or "none"
        self.stdout.write(
            self.style.SUCCESS(
                f"Study {study.name} created: scenarios {scenarios}; threshold {study.agreement_threshold}, "
                f"headline {study.headline_icc}, final-score rule {study.final_score_rule}, "
                f"rubric {study.rubric_version}, task {study.task_kind}."
            )
        )
        language = dict(study.Language.choices)[study.response_language]
        self.stdout.write(
            f"Responses will be asked for in {language} (response language {study.response_language})"
            + ("" if response_language else ", the template's default: --response-language en for English")
            + "; the study's Settings page changes it for later runs."
        )
