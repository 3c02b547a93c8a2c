#!/usr/bin/env bash
# The one test entry point, for people and CI alike: install, start services, run pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install -q -r requirements-local.txt -e '.[test,lint]'

bash scripts/services.sh

export MEMWARDEN_TEST_PG_URL=${MEMWARDEN_TEST_PG_URL:-postgresql+psycopg://postgres:postgres@127.0.0.1:5432/memwarden_test}
export MEMWARDEN_TEST_REDIS_URL=${MEMWARDEN_TEST_REDIS_URL:-redis://127.0.0.1:6379/15}
# The public development set lives beside the repository; the suite runs it when present.
if [ -z "${MEMWARDEN_DEVSET:-}" ] && [ -f ../shared/eval/devset.jsonl ]; then
  export MEMWARDEN_DEVSET=$(cd ../shared/eval && pwd)/devset.jsonl
fi

exec .venv/bin/python -m pytest "$@"
