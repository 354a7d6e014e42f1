#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# inject.sh MODE DIR MS: run DIR/dso while the kernel's reads of object
# files fail (fail_function on sframe_read_file(), which every read of
# the tables goes through), then check what became of the tables made
# then.  run-tests.sh runs it under perf record -g; the chain of the
# `dso dlopen` run must be complete.
#
#   retry    `dso wait-dlopen` starts while every read fails with EIO, so
#            the tables of the program, libc and ld.so cannot be made;
#            then reads work again and its dlopen() updates the mm's
#            table, which must make those tables again.
#   nocache  a first `dso wait-dlopen` starts while every read fails with
#            ERESTARTSYS (an error that may not last that no file system
#            on the guest returns) and keeps the files mapped; a second
#            `dso dlopen`, started when reads work again, must get the
#            files' tables: nothing made while reads failed is cached.
#
# Needs CONFIG_FAIL_FUNCTION (the test kernel's debug.config); exits 2
# without it.
FF=/sys/kernel/debug/fail_function
mode=$1 dir=$2 ms=$3
pfx=${TMPDIR:-/tmp}/inject.$$

[ -d "$FF" ] || { echo "inject.sh: no $FF" >&2; exit 2; }

# inject_on ERRNO: every call of sframe_read_file() returns -ERRNO
inject_on() {
	echo 0 > "$FF/verbose" &&
	echo 100 > "$FF/probability" &&
	echo 1 > "$FF/interval" &&
	echo -1 > "$FF/times" &&
	echo sframe_read_file > "$FF/inject" &&
	printf '%#x' "-$1" > "$FF/sframe_read_file/retval"
}
inject_off() { echo > "$FF/inject"; }
trap 'inject_off 2>/dev/null' EXIT

wait_file() {
	i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -gt 3000 ] && { echo "inject.sh: no $1" >&2; return 1; }
		usleep 10000
	done
}

# start_dso ERRNO: `dso wait-dlopen` in the background (pid in $pid),
# started while every read fails with ERRNO; reads work again once it
# has started
start_dso() {
	inject_on "$1" || exit 1
	"$dir/dso" wait-dlopen "$pfx" "$ms" &
	pid=$!
	wait_file "$pfx.ready" || rc=1
	inject_off
}

rc=0
case $mode in
retry)
	start_dso 5
	: > "$pfx.go"
	wait $pid || rc=1
	;;
nocache)
	start_dso 512
	"$dir/dso" dlopen "$ms" || rc=1
	kill $pid
	wait $pid 2>/dev/null
	;;
*)
	echo "usage: inject.sh retry|nocache DIR MS" >&2
	rc=2
	;;
esac
rm -f "$pfx.ready" "$pfx.go"
exit $rc
