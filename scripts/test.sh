#!/usr/bin/env bash
# The one test entry point, for people and CI alike: install, check the code's shape (lint,
# format, types, import contracts), start services, run pytest.
#
#   bash scripts/test.sh [--quick] [pytest args]
#
# --quick leaves out the tests that start processes (marker `slow`) and the fault suite
# (marker `faults`): the inner loop. Without it the whole suite runs, as CI does.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
args=()
for arg in "$@"; do
  if [ "$arg" = "--quick" ]; then quick=1; else args+=("$arg"); fi
done

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install -q -r requirements-local.txt -e '.[test,lint]'

# Every check runs even when one fails, so one run names every failure; pytest runs only
# when all of them pass.
failed=()
check() {
  local name=$1
  shift
  echo "check: $name"
  if ! "$@"; then
    echo "scripts/test.sh: check failed: $name" >&2
    failed+=("$name")
  fi
}
check "ruff check" .venv/bin/ruff check .
check "ruff format --check" .venv/bin/ruff format --check .
check "mypy (strict, pyproject [tool.mypy])" .venv/bin/mypy
if grep -q '^\[tool\.importlinter\]' pyproject.toml || [ -f .importlinter ]; then
  check "import contracts (lint-imports)" .venv/bin/lint-imports
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "scripts/test.sh: ${#failed[@]} check(s) failed: ${failed[*]}; tests not run" >&2
  exit 1
fi

bash scripts/services.sh

export MEMWARDEN_TEST_PG_URL=${MEMWARDEN_TEST_PG_URL:-postgresql+psycopg://postgres:postgres@127.0.0.1:5432/memwarden_test}
export MEMWARDEN_TEST_REDIS_URL=${MEMWARDEN_TEST_REDIS_URL:-redis://127.0.0.1:6379/15}
# The public development set lives beside the repository; the suite runs it when present.
if [ -z "${MEMWARDEN_DEVSET:-}" ] && [ -f ../shared/eval/devset.jsonl ]; then
  export MEMWARDEN_DEVSET=$(cd ../shared/eval && pwd)/devset.jsonl
fi

if [ "$quick" = 1 ]; then
  args=(-m "not slow and not faults" "${args[@]}")
fi
exec .venv/bin/python -m pytest "${args[@]}"
