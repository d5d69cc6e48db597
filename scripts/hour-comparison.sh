#!/usr/bin/env bash
# Trains GammaE and its four baselines for the same CPU budget and compares
# them on the test queries: the protocol behind docs/comparison.md's
# tables. Each run gets CPU-MINUTES of one core's CPU time (default 120: an
# hour of a two-core machine) on one thread, two runs at a time
# (scripts/cpu-budget.sh: resumable). Then every run's best validation
# checkpoint is scored on all test queries (DIR/comparison.{md,json,csv})
# and the validation curves are drawn against CPU-seconds
# (DIR/compare.svg).
#
#   bash scripts/hour-comparison.sh [CPU-MINUTES [DIR]]
#
# GRAPH (default ../shared/data/FB15k-237-betae) is the graph whose query
# sets are generated into DIR/data.gqd (or DATA, a dataset); KINDS
# (default "gammae gqe q2b betae cone") picks the models; PAPER (default
# fb15k-237, "" for none) the paper's rows to list beside them;
# BASELINE_PRESET (default fb15k-237-hour, the authors' loss) the
# baselines' preset: fast trains them with the softmax loss, as GammaE's
# runs here.
set -euo pipefail
source "$(dirname "$0")/cpu-budget.sh"
minutes=${1:-120}
budget_setup "${2:-hour-comparison}"
kinds=${KINDS:-gammae gqe q2b betae cone}
paper=${PAPER-fb15k-237}
export bpreset=${BASELINE_PRESET:-fb15k-237-hour}

# model KIND: GammaE with --preset fast (the softmax loss), every baseline
# with its hour configuration ($bpreset); validation about 15 times a run.
model() {
	case $1 in
	gammae) budget_train "$1" --preset fast --valid-every 1000 --valid-queries 200 ;;
	gqe | q2b) budget_train "$1" --preset "$bpreset" --model-kind "$1" --valid-every 500 --valid-queries 100 ;;
	*) budget_train "$1" --preset "$bpreset" --model-kind "$1" --valid-every 250 --valid-queries 100 ;;
	esac
}
export -f model
# shellcheck disable=SC2086
budget_pairs model $kinds

runs=()
for k in $kinds; do runs+=("$dir/$k"); done
paperArgs=()
[ -n "$paper" ] && paperArgs=(--paper "$paper")
"$bin" compare --quiet "${paperArgs[@]}" --json "$dir/comparison.json" --csv "$dir/comparison.csv" "${runs[@]}" | tee "$dir/comparison.md"
"$bin" plot --x cpu --out "$dir/compare.svg" "${runs[@]}"
