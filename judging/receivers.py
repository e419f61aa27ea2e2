"""What the judging app wires up when Django is ready: its kind of job (the judge task)
registered with the LLM batch engine (generation's), and the judge's gate following a change of
an endpoint's model, in every process."""

from django.dispatch import receiver

from generation.signals import endpoint_model_changed
from judging.services import runs  # noqa: F401  (registers the judge kind)
from judging.services.qualification import judge_opt_in_revoke_for_endpoint


@receiver(endpoint_model_changed, dispatch_uid="judging.opt_in_after_model_change")
def _opt_in_after_model_change(sender, endpoint_id: int, actor=None, **kwargs) -> None:
    judge_opt_in_revoke_for_endpoint(endpoint_id=endpoint_id, actor=actor)
