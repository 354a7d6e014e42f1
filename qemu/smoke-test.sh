#!/bin/sh
# Temporary guest test (used as /tests/run-tests.sh while userland-tests/
# has none): perf record with callchains works in the guest.
# TAP output: "ok N name" / "not ok N name", comments start with "#".
n=0 failed=0
LOOP='i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'

ok()     { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; }

# check_callchains FILE: prints "SAMPLES MAXDEPTH" of perf script output
check_callchains() {
	awk '
	/^[^ \t].*:[ \t]*$/ || /^[^ \t].* [0-9]+\.[0-9]+: / { s++; if (d > max) max = d; d = 0; next }
	/^[ \t]+[0-9a-f]+ / { d++ }
	END { if (d > max) max = d; print s + 0, max + 0 }' "$1"
}

# perf_case NAME EVENT: record the busy loop with callchains, check samples
perf_case() {
	name=$1 ev=$2
	rm -f /tmp/p.data /tmp/p.txt
	t0=$(date +%s)
	if ! perf record -q -e "$ev" -F 999 -g -o /tmp/p.data -- \
		/bin/busybox sh -c "$LOOP" > /tmp/p.rec 2>&1; then
		sed 's/^/# /' /tmp/p.rec
		not_ok "$name # perf record -e $ev failed"
		return
	fi
	t1=$(date +%s)
	perf script -i /tmp/p.data > /tmp/p.txt 2> /tmp/p.err
	set -- $(check_callchains /tmp/p.txt)
	echo "# $ev: $1 samples in $((t1 - t0))s, deepest callchain $2 frames"
	if [ "${VERBOSE:-1}" = 1 ]; then head -40 /tmp/p.txt | sed 's/^/#   /'; fi
	if [ "$1" -gt 0 ] && [ "$2" -ge 1 ]; then
		ok "$name"
	else
		sed 's/^/# /' /tmp/p.err
		not_ok "$name # no samples with callchains"
	fi
}

echo "TAP version 13"
echo "1..3"
echo "# $(perf --version)"
perf_case perf-smoke cpu-clock
VERBOSE=0 perf_case perf-smoke-user cpu-clock:u
VERBOSE=0 perf_case perf-smoke-task-clock task-clock
[ "$failed" -eq 0 ]
