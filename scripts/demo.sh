#!/bin/bash
# make demo: from a fresh machine, install, build, boot, and show perf's
# view of Debian's own perl (no .sframe: tables from its .eh_frame) and of
# an SFrame-built test program at the default kernel.sframe_unwind=2 and
# at 0 (the stock walk), the bytes per sample against --call-graph dwarf,
# and a flame graph of each recording
# (build/<arch>/flamegraph-{perl,dso}-{on,off}.svg).  It boots the
# bench kernel (KFLAVOR=bench: the series without debug options or KUnit,
# as a distribution would build it; quicker to build than the test one).
#   scripts/demo.sh [ARCH]
set -euo pipefail
. "$(dirname "$0")/common.sh"
export KFLAVOR=${KFLAVOR:-bench}
set_arch "${1:-}"

"$TOP/scripts/deps.sh"
guest_run demo "demo=1" 900 '^=== DEMO END ==='
echo
tr -d '\r' < "$ARCHBUILD/demo.log" |
	sed -n '/^=== DEMO: /,/^=== DEMO END ===/p' |
	sed '/^=== DEMO FOLDED /,/^=== DEMO FOLDED END ===/d'

# Each recording's folded stacks, once: a flame graph of them
# (scripts/flamegraph.py) and the samples whose chain goes through libc's
# start-up to _start (main's, or exit's after main returned), or through
# ld.so's start-up before main.  A stock walk on arm64 may reach _start
# but skip frames: those miss __libc_start_call_main and do not count.
folded=$ARCHBUILD/demo.folded
counts=()
for prog in perl dso; do
	for v in 2 0; do
		case $v in 2) name=on ;; 0) name=off ;; esac
		tr -d '\r' < "$ARCHBUILD/demo.log" |
			sed -n "/^=== DEMO FOLDED $prog $v ===/,/^=== DEMO FOLDED END ===/{/^===/d;p}" \
			> "$folded"
		"$TOP/scripts/flamegraph.py" \
			"$ARCH: perf record -g -- $prog, kernel.sframe_unwind=$v" \
			< "$folded" > "$ARCHBUILD/flamegraph-$prog-$name.svg"
		counts+=("$(awk -v p="$prog" -v v="$v" '
			{ n = $NF; t += n; split($0, f, ";")
			  if ($0 ~ /;_start;__libc_start_main[^;]*;__libc_start_call_main[; ]/ ||
			      $0 ~ /;_start;_dl_start[; ]/ || f[2] == "_dl_start_user") c += n }
			END { printf "  %-4s at kernel.sframe_unwind=%s: %d samples, %d complete", p, v, t, c }' \
			"$folded")")
	done
done
rm -f "$folded"
echo
echo "Chains down to the program's entry:"
printf '%s\n' "${counts[@]}"
echo
echo "Flame graphs (open them in a browser):"
echo "  $ARCHBUILD/flamegraph-perl-on.svg"
echo "      Debian's perl at the default setting: every stack goes from"
echo "      libc's memcmp and malloc through perl's sort to main and _start"
echo "  $ARCHBUILD/flamegraph-perl-off.svg"
if [ "$ARCH" = x86_64 ]; then
	echo "      the same at kernel.sframe_unwind=0, the stock walk: the leaf"
	echo "      and garbage"
else
	echo "      the same at kernel.sframe_unwind=0, the stock walk: Debian's"
	echo "      arm64 code keeps frame records, so it gets most of perl's"
	echo "      chains too; dso-off.svg shows what it loses without them"
fi
echo "  $ARCHBUILD/flamegraph-dso-{on,off}.svg"
echo "      the SFrame-built test program, through a library and a callback"
