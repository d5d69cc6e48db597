#!/usr/bin/env bash
# Fuzzes every fuzz target of the module in turn for DURATION each (a Go
# duration, default 60s) and prints a table: package, target, executions,
# executions per second, new corpus entries, result. A failure's input is
# kept by go test under the package's testdata/fuzz/<target>/, where
# `go test ./...` replays it from then on. Minimisation is bounded to 3 s an
# input: with go test's default (60 s) the rate of a target that keeps
# finding new coverage was mostly time spent minimising.
#
#   bash scripts/fuzz.sh 10m      # the documented campaign
#   bash scripts/fuzz.sh 20s      # a quick pass
set -u
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
dur=${1:-60s}
fails=0
printf "%-22s %-20s %12s %9s %6s  %s\n" package target execs execs/s new result
while read -r file; do
  pkg=./$(dirname "${file#./}")
  for name in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
    out=$(go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$dur" -fuzzminimizetime 3s -parallel 2 2>&1)
    rc=$?
    last=$(printf '%s\n' "$out" | grep 'fuzz: elapsed' | tail -1)
    execs=$(printf '%s\n' "$last" | sed -n 's/.*execs: \([0-9]*\).*/\1/p')
    # elapsed: 45s, 9m57s or 1h0m3s
    el=$(printf '%s\n' "$last" | sed -n 's/.*elapsed: \([0-9hms]*\),.*/\1/p')
    secs=$(printf '%s\n' "$el" | awk '{ s = 0; n = ""; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1); if (c ~ /[0-9]/) n = n c; else { if (c == "h") s += n * 3600; else if (c == "m") s += n * 60; else s += n; n = "" } } print s }')
    new=$(printf '%s\n' "$last" | sed -n 's/.*new interesting: \([0-9]*\).*/\1/p')
    rate=-
    if [ -n "$execs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ]; then rate=$((execs / secs)); fi
    result=ok
    if [ $rc -ne 0 ]; then
      result="FAIL: $(printf '%s\n' "$out" | grep -m1 -o 'testdata/fuzz/[^ ]*' || echo 'see go test output')"
      fails=$((fails + 1))
    fi
    printf "%-22s %-20s %12s %9s %6s  %s\n" "$pkg" "$name" "${execs:--}" "$rate" "${new:--}" "$result"
  done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | sort)
exit $((fails > 0))
