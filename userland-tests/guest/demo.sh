#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of "make demo": two programs profiled with perf record -g at
# the default kernel.sframe_unwind=2 and at 0 (the stock frame-pointer
# walk), each recording's stacks also printed folded (fold.awk) for the
# host's flame graphs:
#   perl     Debian's own /usr/bin/perl (perl-base), unmodified: no
#            .sframe, no frame pointers; its tables come from .eh_frame.
#            It sorts strings with a long common prefix, so that most
#            samples are in libc's memcmp (and malloc).
#   dso      a test program built -O2 -fomit-frame-pointer -Wa,--gsframe
#            that calls into a shared library that calls back into it:
#            main -> do_callback -> lib_call (libsfchain.so) -> cb_entry
#            -> cb_mid -> cb_hot
# Then perl again with --call-graph dwarf: the bytes per sample of both.
PERL_SORT='$p = "x" x 256; @a = map { $p . (($_ * 7919) % 100000) } 0..99999; for (1..3) { $n = () = sort @a }'

dmesg -n 1	# keep the console for perf's output

# bytes FILE: average size of the sample records of a recording
bytes() {
	perf script -D -F comm,tid -i "$1" 2>/dev/null | awk '
		function hex(s,   i, n) {
			n = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++)
				n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n
		}
		/\]: PERF_RECORD_SAMPLE/ {
			s = $0; sub(/\]: PERF_RECORD_SAMPLE.*/, "", s); sub(/.*\[0x/, "", s)
			b += hex(s); n++
		}
		END { if (n) printf "%d", b / n; else printf "-" }'
}

# show NAME LEVEL LEAF COMMAND...: record at LEVEL, print perf report's
# top entry and the first sample whose leaf is the function LEAF (or a
# variant of it: __LEAF_avx2, ...), and the folded stacks
show() {
	name=$1 level=$2 leaf=$3
	shift 3
	sysctl -qw kernel.sframe_unwind="$level"
	echo "=== DEMO: $name, kernel.sframe_unwind=$level: perf record -g -- $* ==="
	perf record -q -e cpu-clock:u -F 1000 -g -o /tmp/demo.data -- "$@" 2>&1
	echo "--- perf report --stdio --no-children (top entry) ---"
	perf report -i /tmp/demo.data --stdio --no-children 2>/dev/null |
		awk '/^#/ || /^$/ { next }
		     /^ +[0-9.]+%/ { if (seen++) exit }
		     seen { print }'
	echo "--- perf script: first sample in $leaf ---"
	perf script -i /tmp/demo.data -F comm,tid,ip,sym,dso 2>/dev/null |
		awk -v leaf=" (__)?${leaf}[a-z0-9_]* [(]" '
		     /^[^ \t]/ { blk = $0; first = 1; keep = 0; next }
		     /^$/ { if (keep) { print blk; done = 1; exit } next }
		     { if (first) keep = $0 ~ leaf; first = 0; blk = blk "\n" $0 }
		     END { if (keep && !done) print blk }'
	echo "=== DEMO FOLDED $name $level ==="
	perf script -i /tmp/demo.data -F comm,ip,sym 2>/dev/null |
		awk -f "$(dirname "$0")/fold.awk"
	echo "=== DEMO FOLDED END ==="
}

show perl 2 memcmp perl -e "$PERL_SORT"
sframe_bytes=$(bytes /tmp/demo.data)
show perl 0 memcmp perl -e "$PERL_SORT"
show dso 2 cb_hot /tests/dso callback "${1:-1000}"
show dso 0 cb_hot /tests/dso callback "${1:-1000}"
sysctl -qw kernel.sframe_unwind=2

echo "=== DEMO: perl, perf record --call-graph dwarf ==="
perf record -q -e cpu-clock:u -F 1000 --call-graph dwarf \
	-o /tmp/demo.data -- perl -e "$PERL_SORT" 2>&1
echo "bytes per sample of perl: $sframe_bytes with perf record -g," \
	"$(bytes /tmp/demo.data) with --call-graph dwarf"
echo "=== DEMO END ==="
