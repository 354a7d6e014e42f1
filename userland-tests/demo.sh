#!/bin/sh
# Guest side of "make demo": the same program profiled with perf record -g,
# with SFrame unwinding on and off (kernel.sframe_unwind); each recording's
# stacks are also printed folded (fold.awk) for the host's flame graphs.  The program
# calls into a shared library that calls back into the program:
#   main -> do_callback -> lib_call (libsfchain.so) -> cb_entry -> cb_mid -> cb_hot
# everything built -O2 -fomit-frame-pointer -Wa,--gsframe.
PROG="/tests/dso callback ${1:-1000}"

dmesg -n 1	# keep the console for perf's output

show() {
	sysctl -qw kernel.sframe_unwind="$1"
	echo "=== DEMO: kernel.sframe_unwind=$1: perf record -g -- $PROG ==="
	# shellcheck disable=SC2086
	perf record -q -e cpu-clock:u -F 1000 -g -o /tmp/demo.data -- $PROG 2>&1
	echo "--- perf report --stdio --no-children (top entry) ---"
	perf report -i /tmp/demo.data --stdio --no-children 2>/dev/null |
		awk '/^#/ || /^$/ { next }
		     /^ +[0-9.]+%/ { if (seen++) exit }
		     seen { print }'
	echo "--- perf script: first sample in cb_hot ---"
	perf script -i /tmp/demo.data -F comm,tid,ip,sym,dso 2>/dev/null |
		awk '/^[^ \t]/ { blk = $0; first = 1; keep = 0; next }
		     /^$/ { if (keep) { print blk; done = 1; exit } next }
		     { if (first) keep = / cb_hot /; first = 0; blk = blk "\n" $0 }
		     END { if (keep && !done) print blk }'
	# every sample's stack, folded, for the host's flame graph
	echo "=== DEMO FOLDED sframe_unwind=$1 ==="
	perf script -i /tmp/demo.data -F comm,ip,sym 2>/dev/null |
		awk -f "$(dirname "$0")/fold.awk"
	echo "=== DEMO FOLDED END ==="
}

show 1
show 0
sysctl -qw kernel.sframe_unwind=1
echo "=== DEMO END ==="
