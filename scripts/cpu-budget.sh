# Sourced by hour-comparison.sh and levers.sh: runs of one CPU budget, one
# thread each, two at a time, one per core, so that runs sharing the
# machine do equal work; a run directory that exists is resumed and a
# finished one left as it is, so a script can be stopped and started again
# at will.
#
# budget_setup DIR builds DIR/gammae.bin (not DIR/gammae: a run may be
# called so) and sets bin and data: DATA, or DIR/data.gqd generated from
# GRAPH (default ../shared/data/FB15k-237-betae).
budget_setup() {
	cd "$(dirname "${BASH_SOURCE[0]}")/.."
	export PATH=/usr/local/go/bin:$PATH
	dir=$1
	mkdir -p "$dir"
	bin=$dir/gammae.bin
	GOEXPERIMENT=simd go build -o "$bin" ./cmd/gammae
	data=${DATA:-$dir/data.gqd}
	[ -f "$data" ] || "$bin" data generate --graph "${GRAPH:-../shared/data/FB15k-237-betae}" --out "$data"
	export bin data dir
}

# budget_train NAME ARGS... trains DIR/NAME with ARGS (after the data and
# the budget of $minutes CPU-minutes on one thread), or resumes it, into
# DIR/NAME.log, and prints the log's last line.
budget_train() {
	local name=$1 run=$dir/$1
	shift
	if [ -f "$run/state.json" ]; then
		"$bin" train --data "$data" --out "$run" --resume >"$run.log" 2>&1
	else
		"$bin" train --data "$data" --out "$run" --cpu-minutes "$minutes" --threads 1 "$@" >"$run.log" 2>&1
	fi
	echo "$name: $(tail -n 1 "$run.log")"
}

# budget_pairs FUNC ITEM... calls FUNC ITEM for every item, two at a time;
# FUNC and what it reads must be exported.
budget_pairs() {
	local fn=$1
	shift
	export -f budget_train
	export minutes
	printf '%s\n' "$@" | xargs -P 2 -I{} bash -c "$fn"' "$1"' _ {}
}
