"""Development and test tools (the LLM stub). Not part of the deployed app: nothing
in ``generation``, ``scoring`` or ``teamllm_web`` imports this package."""
