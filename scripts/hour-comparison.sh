#!/usr/bin/env bash
# Trains GammaE and its four baselines for the same CPU budget and compares
# them on the test queries: the protocol behind docs/comparison.md's
# tables. Each run gets CPU-MINUTES of one core's CPU time (default 120: an
# hour of a two-core machine) on one thread, two runs at a time, one per
# core, so that runs sharing the machine do equal work. A run directory
# that exists is resumed and a finished one left as it is: stop the script
# and start it again at will. Then every run's best validation checkpoint
# is scored on all test queries (DIR/comparison.{md,json,csv}) and the
# validation curves are drawn against CPU-seconds (DIR/compare.svg).
#
#   bash scripts/hour-comparison.sh [CPU-MINUTES [DIR]]
#
# GRAPH (default ../shared/data/FB15k-237-betae) is the graph whose query
# sets are generated into DIR/data.gqd; KINDS (default "gammae gqe q2b
# betae cone") picks the models; PAPER (default fb15k-237, "" for none)
# the paper's rows to list beside them; BASELINE_PRESET (default
# fb15k-237-hour, the authors' loss) the baselines' preset: fast trains
# them with the softmax loss, as GammaE's runs here.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
minutes=${1:-120}
dir=${2:-hour-comparison}
graph=${GRAPH:-../shared/data/FB15k-237-betae}
kinds=${KINDS:-gammae gqe q2b betae cone}
paper=${PAPER-fb15k-237}
bpreset=${BASELINE_PRESET:-fb15k-237-hour}
mkdir -p "$dir"
bin=$dir/gammae.bin # not $dir/gammae: the GammaE run
GOEXPERIMENT=simd go build -o "$bin" ./cmd/gammae
data=$dir/data.gqd
[ -f "$data" ] || "$bin" data generate --graph "$graph" --out "$data"

# train KIND: one run, resumed when its directory holds one. GammaE trains
# with --preset fast (the softmax loss); every baseline with its hour
# configuration ($bpreset); validation about 15 times a run.
train() {
  local kind=$1 run=$dir/$1 args
  case $kind in
  gammae) args=(--preset fast --valid-every 1000 --valid-queries 200) ;;
  gqe | q2b) args=(--preset "$bpreset" --model-kind "$kind" --valid-every 500 --valid-queries 100) ;;
  *) args=(--preset "$bpreset" --model-kind "$kind" --valid-every 250 --valid-queries 100) ;;
  esac
  if [ -f "$run/state.json" ]; then
    "$bin" train --data "$data" --out "$run" --resume >"$run.log" 2>&1
  else
    "$bin" train --data "$data" --out "$run" --cpu-minutes "$minutes" --threads 1 "${args[@]}" >"$run.log" 2>&1
  fi
  echo "$kind: $(tail -n 1 "$run.log")"
}
export -f train
export bin data dir minutes bpreset
# shellcheck disable=SC2086
printf '%s\n' $kinds | xargs -P 2 -I{} bash -c 'train {}'

runs=()
for k in $kinds; do runs+=("$dir/$k"); done
paperArgs=()
[ -n "$paper" ] && paperArgs=(--paper "$paper")
"$bin" compare --quiet "${paperArgs[@]}" --json "$dir/comparison.json" --csv "$dir/comparison.csv" "${runs[@]}" | tee "$dir/comparison.md"
"$bin" plot --x cpu --out "$dir/compare.svg" "${runs[@]}"
