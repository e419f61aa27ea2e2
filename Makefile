.PHONY: run start test lint bench messages

run:  ## set up and run web + worker + LLM stub with demo data (Ctrl-C stops)
	scripts/run.sh

start:  ## the same without the demo: an empty install in var/lab, an admin account asked for
	scripts/run.sh --empty

test:  ## install what is missing, run the gates (ruff, import layers, mypy) and the whole test suite
	scripts/test.sh

lint:  ## the gates make test runs first: ruff, import layers, types
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/lint-imports --no-cache && .venv/bin/mypy

messages:  ## refresh and compile the translations
	.venv/bin/python manage.py makemessages -l zh_Hans --no-obsolete -i ".venv/*" -i "var/*" -i "tests/*" -i "bench/*"
	.venv/bin/python manage.py compilemessages -l zh_Hans -i ".venv" -i "var"
