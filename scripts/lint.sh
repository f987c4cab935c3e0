#!/usr/bin/env bash
# The static checks CI runs after the tests (.ci/run): ruff (lint + import order), import-linter's
# contracts and mypy (strict on openclaw_memtui/engine), configured in pyproject.toml.
#
#   scripts/lint.sh         the checks that are enforced: any finding fails
#   scripts/lint.sh --all   every check, including the pending ones below (what the finished step must pass)
#
# PENDING lists the checks not yet enforced; empty it when they pass.
set -uo pipefail
cd "$(dirname "$0")/.."

PENDING=()
CONTRACTS=(engine-headless engine-own-settings front-ends-apart no-circles no-circles-tui layers)

all=0
[[ "${1:-}" == "--all" ]] && all=1
enforced() { [[ $all == 1 ]] || [[ ! " ${PENDING[*]} " == *" $1 "* ]]; }

failed=()
run() {  # run NAME COMMAND...: print a header, record a failure
    echo "== $1: ${*:2}"
    "${@:2}" || failed+=("$1")
}

if enforced ruff-package; then
    run ruff ruff check .
else
    run ruff ruff check . --extend-exclude openclaw_memtui
fi

contract_args=()
for id in "${CONTRACTS[@]}"; do
    enforced "contract-$id" && contract_args+=(--contract "$id")
done
run lint-imports lint-imports --no-logo "${contract_args[@]}"

if enforced mypy; then
    run mypy mypy
fi

if [[ $all == 0 && ${#PENDING[@]} -gt 0 ]]; then
    echo "== not yet enforced (scripts/lint.sh --all runs them): ${PENDING[*]}"
fi
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "== FAILED: ${failed[*]}"
    exit 1
fi
echo "== lint: all enforced checks passed"
