# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the guest scripts (run-tests.sh, tables.sh, stress.sh): the
# kernel's account of its unwind tables, /sys/kernel/debug/sframe_tables
# (Documentation/admin-guide/sframe-unwind.rst lists its fields).

TABLES=/sys/kernel/debug/sframe_tables

# tables_stat FIELD: a field of the account, empty if there is none
tables_stat() {
	awk -v f="$1" '$1 == f { print $2 }' "$TABLES" 2>/dev/null
}

# drop_idle_tables: evict the tables that no process maps (the shrinker
# runs on drop_caches 2; 4 first only to keep the kernel log quiet)
drop_idle_tables() {
	echo 4 >/proc/sys/vm/drop_caches && echo 2 >/proc/sys/vm/drop_caches
}

# stall_count: the RCU stall and soft lockup reports of the kernel log
stall_count() {
	dmesg | grep -c -e 'rcu.*stall' -e 'soft lockup'
}

# memcg_new NAME MAX_KB: a new cgroup v2 NAME whose memory.max is MAX_KB
# (cgroup2 mounted and its memory controller enabled first, as needed);
# prints its directory
memcg_new() {
	_cg=/sys/fs/cgroup
	if ! grep -q " $_cg cgroup2 " /proc/mounts; then
		mount -t cgroup2 none "$_cg" || { echo "# no cgroup2" >&2; return 4; }
	fi
	echo +memory >"$_cg/cgroup.subtree_control" || return 4
	rmdir "$_cg/$1" 2>/dev/null
	mkdir "$_cg/$1" && echo $(($2 * 1024)) >"$_cg/$1/memory.max" || return 4
	echo "$_cg/$1"
}

# memcg_hostile [-m] FILES MAX_KB [WRAPPER]: one unprivileged process (uid
# 1000) in a new memory cgroup whose memory.max is MAX_KB maps FILES dense
# files (hostile-map -d: about 1.5 MiB of honest table each; -m: the mix
# of hostile-map -m, sparse, CIE-cycling and dense), run under
# WRAPPER (wantstacks: a perf event that wants user stacks; none while
# perf record -a -g runs).  The tables are charged to the cgroup: those
# that do not fit are not made, nothing is OOM-killed (the program ends
# normally), and files whose tables do not fit are not read again and
# again (at most twice as many reads as files: an update that runs out of
# memory reads no further file).  Once the process is gone its tables are
# idle in the cache, still charged to the cgroup; the cgroup's own
# reclaim (memory.reclaim) must evict them.  Prints "# memcg ARCH: ..."
# (the cgroup's peak, the tables made, the longest mmap(), the files
# read, the OOM kills, the idle tables before and after the reclaim) and
# diagnostics; returns 0 if all holds, 4 if the test cannot run.  Sets
# HOSTILE_LINE to hostile-map's summary ("F files, peak K kB, max mmap T
# ms").  Needs $T, $ARCH and $TMPDIR.
memcg_hostile() {
	_o=-d
	[ "$1" = -m ] && _o=-m && shift
	_n=$1 _max=$2
	shift 2
	[ -r "$TABLES" ] || { echo "# no $TABLES"; return 4; }
	_g=$(memcg_new sframe-hostile "$_max") || return 4
	_d=$TMPDIR/hostile-memcg
	rm -rf "$_d" && mkdir "$_d" || return 4
	# the program's own libraries get their tables here, outside the
	# cgroup (a usage error: it maps nothing of its own)
	"$@" "$T/hostile-map" >/dev/null 2>&1
	_i0=$(tables_stat idle_bytes)
	_b0=$(tables_stat builds)
	"$@" "$T/hostile-map" $_o -c "$_g" -u 1000 "$_d" "$_n" >"$_d/out"
	_rc=$?
	HOSTILE_LINE=$(sed -n 's/^hostile-map: //p' "$_d/out")
	rm -rf "$_d"
	_k=$(echo "$HOSTILE_LINE" | sed -n 's/.*peak \(-*[0-9]*\) kB.*/\1/p')
	_t=$(echo "$HOSTILE_LINE" | sed -n 's/.*max mmap \([0-9.]*\) ms.*/\1/p')
	_oom=$(awk '$1 == "oom_kill" { print $2 }' "$_g/memory.events")
	_peak=$(($(cat "$_g/memory.peak" 2>/dev/null || echo 0) / 1024))
	_i1=$(tables_stat idle_bytes)
	_b=$(($(tables_stat builds) - _b0))
	# may fail with EAGAIN: less than asked for was reclaimable
	echo 1G >"$_g/memory.reclaim" 2>/dev/null
	sleep 1
	_i2=$(tables_stat idle_bytes)
	rmdir "$_g"
	echo "# memcg $ARCH: $_n files, limit $_max kB, cgroup peak $_peak kB, tables ${_k:-?} kB, max mmap ${_t:-?} ms, files read $_b, exit $_rc, oom kills ${_oom:-?}, idle $(((_i1 - _i0) / 1024)) kB, after reclaim $(((_i2 - _i0) / 1024)) kB"
	[ "$_rc" = 0 ] && [ "$_oom" = 0 ] && [ -n "$_k" ] && [ "$_k" -gt 0 ] &&
		[ "$_k" -le "$_max" ] && [ "$_peak" -le "$_max" ] &&
		[ "$_b" -le $((2 * _n)) ] &&
		[ $((_i1 - _i0)) -ge $((_k * 1024 / 2)) ] &&
		[ $((_i2 - _i0)) -le 65536 ] && return 0
	echo "# expected: exit 0, no OOM kill, 0 < tables <= the limit, files read at most twice the files, at least half of the tables idle after the exit, at most 64 kB of them left after memory.reclaim"
	return 1
}
