"""python manage.py add_endpoint NAME --model-number NN --base-url URL --model-name M --as ADMIN"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from generation.services.endpoints import endpoint_create
from studies.management.options import admin_named


class Command(BaseCommand):
    help = (
        "Add a model endpoint (an OpenAI-compatible API) as the endpoints page does: validated "
        "(the base URL must be a host the operator allows for its key), audited under --as."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--model-number", required=True, help="two digits, as in research IDs (e.g. 11)")
        parser.add_argument("--base-url", required=True, help="e.g. https://api.openai.com/v1")
        parser.add_argument("--model-name", required=True, help="the provider's model name")
        parser.add_argument(
            "--api-key-env", default="", help="the variable holding its key (TEAMLLM_LLM_KEY_...)"
        )
        parser.add_argument("--concurrency", type=int, default=4, help="calls at once (default 4)")
        parser.add_argument("--as", dest="admin", required=True, help="the admin account acting")

    def handle(
        self, *args, name, model_number, base_url, model_name, api_key_env, concurrency, admin, **opts
    ):
        actor = admin_named(admin)
        values = {
            "name": name,
            "model_number": model_number,
            "base_url": base_url,
            "model_name": model_name,
            "api_key_env": api_key_env,
            "concurrency_limit": concurrency,
        }
        try:
            endpoint = endpoint_create(actor=actor, values=values)
        except ValidationError as exc:
            problems = [f"{field}: {' '.join(messages)}" for field, messages in exc.message_dict.items()]
            raise CommandError("; ".join(problems)) from exc
        self.stdout.write(f"endpoint {endpoint.model_number} {endpoint.name} added ({endpoint.base_url})")
