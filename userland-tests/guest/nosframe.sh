#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Callchains of a real program whose time goes mostly to code without
# .sframe: lua (built from Debian's lua5.4 source with -Wa,--gsframe by
# host-tests, copied to /tests/lua by mk-initramfs.sh) running
# nosframe.lua, which spends most of its samples in Debian's libc and
# libm (string copies, comparisons, malloc, snprintf, math).  Runs in the
# guest; run-tests.sh calls it as the test nosframe-complete.
#
#   nosframe.sh [-s SECONDS] [-d SECONDS] [-k]
#
#   -s SECONDS  CPU time of the workload per recording (default 4)
#   -d SECONDS  CPU time of the --call-graph dwarf recording (-F 500,
#               default 2; 0 skips the comparison with perf's DWARF
#               unwinder)
#   -k          keep the perf data and scripts in $TMPDIR/nosframe
#
# NOSFRAME_DUMP=1 in the environment (also from the kernel command line,
# QEMU_APPEND=nosframe_dump=1 ...): every incomplete chain with the
# addresses of its frames, the executable mappings, and each distinct
# chain with its count, as comments.
#
# Records `perf record -e cpu-clock:u -F 1000 -g` of the workload with
# kernel.sframe_unwind=2 (.sframe, and tables from .eh_frame for code
# without it), then with 1 (.sframe only, as before), and prints TAP
# comment lines:
#   # nosframe ARCH: N samples, C complete          (sframe_unwind=2)
#   # nosframe-before ARCH: N samples, C complete   (sframe_unwind=1)
# A sample is complete when its chain reaches main's caller
# (__libc_start_call_main) or a thread's start (start_thread), or, before
# main runs, the entry point: the program's _start (libc's start-up) or
# ld.so's (start-up of the dynamic linker: _start calls _dl_start; on
# x86-64 the return address is named _dl_start_user); "leaf
# without .sframe" counts the samples whose leaf is outside the program
# (libc, libm, ld.so).  Then, unless -d 0, the same workload under
# --call-graph dwarf (perf unwinds in user space with .eh_frame/libdw):
# the share of the SFrame recording's samples whose exact chain (symbols)
# also occurs in the DWARF recording, per leaf symbol (a comment, not a
# test).
#
# Exit status: 0 if C/N >= 0.99 in the sframe_unwind=2 recording, 1 if
# not, 2 if it could not be measured.
T=$(cd "$(dirname "$0")" && pwd)
PERF=${PERF:-perf}
TMPDIR=${TMPDIR:-/tmp}
SYSCTL=${SFT_SYSCTL:-/proc/sys/kernel/sframe_unwind}
SECS=4
DSECS=2
KEEP=0
DUMP=${NOSFRAME_DUMP:-${nosframe_dump:-0}}
PROG=$T/lua
SCRIPT=$T/nosframe.lua
# Fewest samples that make C/N >= 0.99 mean something.
MINSAMPLES=500

while [ $# -gt 0 ]; do
	case "$1" in
	-s) SECS=$2; shift 2 ;;
	-d) DSECS=$2; shift 2 ;;
	-k) KEEP=1; shift ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "nosframe.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

if [ -r "$T/ARCH" ]; then
	ARCH=$(cat "$T/ARCH")
else
	ARCH=$(uname -m)
fi
case "$ARCH" in
aarch64) ARCH=arm64 ;;
esac

D=$TMPDIR/nosframe
mkdir -p "$D"
LOG=$D/log.txt

fail() {
	echo "# nosframe: $*"
	exit 2
}

[ -x "$PROG" ] || fail "no $PROG: mk-initramfs.sh copies it from build/host/corpus/lua-<arch> (make -C host-tests)"
[ -r "$SCRIPT" ] || fail "no $SCRIPT"
[ -w "$SYSCTL" ] || fail "no writable $SYSCTL (kernel without the series?)"
ORIG=$(cat "$SYSCTL")
# shellcheck disable=SC2317 # called by the trap
restore() {
	echo "$ORIG" >"$SYSCTL" 2>/dev/null
	if [ "$KEEP" = 0 ]; then
		rm -rf "$D"
	fi
}
trap restore EXIT
trap 'exit 2' INT TERM

# record NAME SYSCTL-VALUE CALLGRAPH FREQ SECONDS: $D/NAME.txt
record() {
	if ! echo "$2" >"$SYSCTL" 2>>"$LOG"; then
		echo "# nosframe: cannot set $SYSCTL to $2 (kernel without CONFIG_USER_UNWINDER_EH_FRAME?)"
		return 1
	fi
	_t0=$(date +%s)
	# shellcheck disable=SC2086 # CALLGRAPH is split on purpose
	if ! $PERF record -q -B -e cpu-clock:u -F "$4" $3 -o "$D/$1.data" -- \
		"$PROG" "$SCRIPT" "$5" >"$D/$1.out" 2>>"$LOG"; then
		echo "# nosframe: perf record of $1 failed:"
		sed 's/^/# /' "$LOG" "$D/$1.out"
		return 1
	fi
	_t1=$(date +%s)
	if ! $PERF script -i "$D/$1.data" -F comm,tid,ip,sym,dso --no-inline \
		>"$D/$1.txt" 2>>"$LOG"; then
		echo "# nosframe: perf script of $1 failed:"
		sed 's/^/# /' "$LOG"
		return 1
	fi
	echo "# nosframe: $1 (sframe_unwind=$2, $3): $(cat "$D/$1.out"), record $((_t1 - _t0)) s, script $(($(date +%s) - _t1)) s"
}

# Samples of `perf script -F comm,tid,ip,sym,dso` into one line each:
# "F1<TAB>F2<TAB>...", a frame being "sym@dso-basename" (leaf first).
# shellcheck disable=SC2016 # an awk program
FRAMES_AWK='
function flush() {
	if (nf)
		print s
	nf = 0
	s = ""
}
/^[^ \t]/ { flush(); next }
/^[ \t]*$/ { flush(); next }
{
	line = $0
	sub(/^[ \t]+/, "", line)
	sub(/[ \t]+$/, "", line)
	ip = line
	sub(/[ \t].*$/, "", ip)
	rest = substr(line, length(ip) + 1)
	sub(/^[ \t]+/, "", rest)
	dso = "?"
	if (match(rest, /\([^()]*\)$/)) {
		dso = substr(rest, RSTART + 1, RLENGTH - 2)
		rest = substr(rest, 1, RSTART - 1)
		sub(/[ \t]+$/, "", rest)
	}
	if (dso == "inlined")
		next
	n = split(dso, parts, "/")
	if (n)
		dso = parts[n]
	if (rest == "")
		rest = "[unknown]"
	if (raw)
		rest = rest "+" ip
	s = s (nf++ ? "\t" : "") rest "@" dso
}
END { flush() }'

# summarize NAME LABEL: "# LABEL ARCH: N samples, C complete" and details;
# leaves "N C" in $D/NAME.nc.
summarize() {
	awk "$FRAMES_AWK" "$D/$1.txt" >"$D/$1.chains"
	awk -v raw=1 "$FRAMES_AWK" "$D/$1.txt" >"$D/$1.raw"
	awk -F '\t' -v prog="$(basename "$PROG")" -v label="$2" -v arch="$ARCH" \
		-v nc="$D/$1.nc" -v rawfile="$D/$1.raw" -v dump="$DUMP" '
	function top(arr, k, what,    i, best, bk, key) {
		split("", tdone)
		for (i = 1; i <= k; i++) {
			best = 0
			for (key in arr)
				if (!(key in tdone) && arr[key] > best) {
					best = arr[key]
					bk = key
				}
			if (!best)
				break
			tdone[bk] = 1
			printf("#   %5d %s\n", best, what == "chain" ? chainstr(bk) : bk)
		}
	}
	function chainstr(c,    m, f, i, out) {
		m = split(c, f, "\t")
		out = f[1]
		for (i = 2; i <= m && i <= 14; i++)
			out = out " <- " f[i]
		if (m > 14)
			out = out " <- ... (" m " frames)"
		return out
	}
	{
		getline r <rawfile
		n++
		ld = $1
		sub(/.*@/, "", ld)
		leafdso[ld]++
		if (ld != prog)
			nosf++
		ok = 0
		for (i = 1; i <= NF; i++)
			if ($i ~ /^(__libc_start_call_main|start_thread)@/) {
				ok = 1
				break
			}
		# before main: the dynamic linker at work (its _start calls
		# _dl_start, returning to _dl_start_user) or libc before it
		# calls main (the _start of the program)
		if (!ok && ($NF ~ /^(_start|_dl_start_user)@ld-/ || $NF == "_start@" prog)) {
			ok = 1
			early++
		}
		if (ok) {
			c++
			next
		}
		inc[$0]++
		incleaf[$1]++
		if (dump && ++dumped <= 40) {
			gsub(/\t/, " <- ", r)
			printf("# %s %s: incomplete: %s\n", label, arch, r)
		}
		incend["ends at " $NF " (" NF " frames)"]++
	}
	END {
		n += 0
		c += 0
		nosf += 0
		early += 0
		printf("# %s %s: %d samples, %d complete\n", label, arch, n, c)
		if (n) {
			printf("# %s %s: %.2f%% complete (%d of them before main); leaf without .sframe (not in %s): %d (%.1f%%);", label, arch, 100 * c / n, early, prog, nosf, 100 * nosf / n)
			printf(" leaf DSOs:")
			for (d in leafdso)
				printf(" %s %d", d, leafdso[d])
			printf("\n")
		}
		if (n > c) {
			printf("# %s %s: incomplete samples by leaf:\n", label, arch)
			top(incleaf, 8, "leaf")
			printf("# %s %s: incomplete samples by last frame:\n", label, arch)
			top(incend, 6, "end")
			printf("# %s %s: most frequent incomplete chains:\n", label, arch)
			top(inc, 4, "chain")
		}
		print n, c >nc
	}' "$D/$1.chains"
	if [ "$DUMP" = 1 ]; then
		$PERF script -i "$D/$1.data" --show-mmap-events 2>/dev/null |
			grep 'MMAP.*r-xp' | sed "s/^/# $2 $ARCH: /"
		sort "$D/$1.chains" | uniq -c | sort -rn |
			sed "s/^/# $2 $ARCH: chain /"
	fi
}

# compare A B WHAT OTHER: how many samples of recording A have a chain
# that recording B has too, by leaf symbol (only leaves that both have),
# and how many have only caller-callee pairs that B has too and end
# where some chain of B ends (a rarely taken path needs less luck to meet
# these than a whole chain).  perf
# names a return address of a DWARF-unwound frame by the address - 1 and
# one of a kernel chain by the address itself: they differ where a call
# is the last instruction of a function, as in ld.so's _start, which
# calls _dl_start and is followed by _dl_start_user.
compare() {
	awk -F '\t' '
	function norm() {
		sub(/\t_dl_start_user@ld-/, "\t_start@ld-")
	}
	FNR == 1 { file++ }
	file == 1 {
		norm()
		have[$0] = 1
		lead[$1] = 1
		for (i = 1; i < NF; i++)
			edge[$i "\t" $(i + 1)] = 1
		last[$NF] = 1
		next
	}
	{ norm() }
	$1 in lead {
		m++
		tot[$1]++
		if ($0 in have) {
			hit++
			same[$1]++
		} else {
			miss[$0]++
		}
		for (i = 1; i < NF; i++)
			if (!(($i "\t" $(i + 1)) in edge))
				break
		if (i == NF && ($NF in last))
			ehit++
	}
	END {
		printf("# nosframe dwarf agreement (%s): %d of %d %s samples have a chain that the %s recording has (%.1f%%), %d (%.1f%%) only caller-callee pairs and a last frame that it has\n",
		       what, hit, m, what, other, m ? 100 * hit / m : 0, ehit, m ? 100 * ehit / m : 0)
		if (what == "sframe") {
			printf("# nosframe dwarf agreement by leaf (20 samples or more):")
			for (l in tot)
				if (tot[l] >= 20)
					printf(" %s %d/%d", l, same[l], tot[l])
			printf("\n")
		}
		best = 0
		for (c in miss)
			if (miss[c] > best) {
				best = miss[c]
				bc = c
			}
		if (best) {
			nf = split(bc, f, "\t")
			bc = f[1]
			for (i = 2; i <= nf && i <= 20; i++)
				bc = bc " <- " f[i]
			if (nf > 20)
				bc = bc " <- ... (" nf " frames)"
			printf("# most frequent %s chain that the %s recording lacks (%d samples): %s\n",
			       what, other, best, bc)
		}
	}' what="$3" other="$4" "$D/$2.chains" "$D/$1.chains"
}

: >"$LOG"
echo "# nosframe: $PROG $SCRIPT $SECS under perf record -e cpu-clock:u -F 1000 -g; $SYSCTL was $ORIG"
# mk-initramfs.sh GLIBC_SFRAME=1 puts a libc with .sframe in the guest:
# then "leaf without .sframe" (leaf outside the program) is not that
if [ -r "$T/LIBC" ] && [ "$(cat "$T/LIBC")" != debian ]; then
	echo "# nosframe: the guest's libc is \"$(cat "$T/LIBC")\": its code has .sframe too"
fi
START=$(date +%s)
record after 2 -g 1000 "$SECS" || exit 2
summarize after nosframe
record before 1 -g 1000 "$SECS" || exit 2
summarize before nosframe-before

if [ "$DSECS" != 0 ]; then
	# perf script unwinds every sample of a DWARF recording in user
	# space, slowly under TCG: fewer samples
	if record dwarf 2 "--call-graph dwarf,32768" 500 "$DSECS"; then
		summarize dwarf nosframe-dwarf | grep -v '^#   ' |
			grep -v 'incomplete samples by\|most frequent incomplete'
		read -r DN DC <"$D/dwarf.nc"
		# perf's DWARF unwinder must work for a comparison to
		# mean anything (in the arm64 guest it stops after one
		# or two frames)
		if [ "$DN" -gt 0 ] && [ $((DC * 10)) -ge $((DN * 9)) ]; then
			compare after dwarf sframe dwarf
			compare dwarf after dwarf sframe
		else
			echo "# nosframe: perf's DWARF unwinding completes too few chains here: no comparison"
		fi
	else
		echo "# nosframe: no DWARF comparison"
	fi
fi
echo "# nosframe: $(($(date +%s) - START)) s in all"

read -r N C <"$D/after.nc"
if [ "$N" -lt $MINSAMPLES ]; then
	echo "# nosframe: only $N samples (at least $MINSAMPLES needed)"
	exit 1
fi
if [ $((C * 100)) -ge $((N * 99)) ]; then
	exit 0
fi
echo "# nosframe: fewer than 99% of the samples complete"
exit 1
