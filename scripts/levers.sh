#!/usr/bin/env bash
# Measures training recipes against each other at one CPU budget: the
# protocol of docs/evaluation.md's lever tables. Each lever is `gammae
# train --preset fast` (GammaE's hour recipe) with extra options, given
# CPU-MINUTES of one core's CPU time on one thread, two runs at a time
# (scripts/cpu-budget.sh: resumable). Then every run's last parameters are
# scored on the same sample of validation queries
# (DIR/levers.{md,json,csv}; the test queries are kept for the winners)
# and the validation curves drawn against CPU-seconds (DIR/levers.svg).
#
#   bash scripts/levers.sh CPU-MINUTES DIR NAME=OPTIONS...
#   bash scripts/levers.sh 30 levers fast= shared='--loss shared --negatives 2048'
#
# DATA (default DIR/data.gqd, generated from GRAPH, default
# ../shared/data/FB15k-237-betae) is the dataset; SAMPLE (default 200)
# the validation queries per structure of the table; VALID_EVERY (default
# 1000) how often a run validates on 100 queries a structure.
set -euo pipefail
source "$(dirname "$0")/cpu-budget.sh"
if [ $# -lt 3 ]; then
	echo "usage: bash scripts/levers.sh CPU-MINUTES DIR NAME=OPTIONS..." >&2
	exit 2
fi
minutes=$1
budget_setup "$2"
shift 2
for lever in "$@"; do
	case $lever in
	*=*) ;;
	*) echo "levers.sh: $lever: want NAME=OPTIONS (OPTIONS may be empty)" >&2; exit 2 ;;
	esac
done

# lever NAME=OPTIONS: one run of the fast preset with OPTIONS.
lever() {
	# shellcheck disable=SC2086 # the options are words
	budget_train "${1%%=*}" --preset fast --valid-every "${VALID_EVERY:-1000}" --valid-queries 100 ${1#*=}
}
export -f lever
budget_pairs lever "$@"

runs=()
for lever in "$@"; do runs+=("$dir/${lever%%=*}"); done
"$bin" compare --quiet --last --split valid --per-structure "${SAMPLE:-200}" --data "$data" \
	--json "$dir/levers.json" --csv "$dir/levers.csv" "${runs[@]}" | tee "$dir/levers.md"
"$bin" plot --x cpu --out "$dir/levers.svg" "${runs[@]}"
