#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One copy of the unwind tables per file, whatever the number of
# processes: run one process of an SFrame-built program, then N more, and
# read the kernel's account of its tables (/sys/kernel/debug/sframe_tables:
# "files F" and "bytes B") at each step.  N processes must not add a byte;
# once they have exited, the tables must be freed (back to the count
# before the first one started).
#
#   tables.sh [N]      (default 20; runs in the guest, prints one line
#                       "ok"/"not ok" for run-tests.sh to number)
#
# Exit status 0 when the test passed.

N=${1:-20}
T=$(cd "$(dirname "$0")" && pwd)
STATS=/sys/kernel/debug/sframe_tables
PROG="$T/shapes-nopie"

if [ ! -r "$STATS" ]; then
	echo "# tables: no $STATS"
	exit 1
fi

# stat FIELD: a field of the kernel's account
stat() {
	awk -v f="$1" '$1 == f { print $2 }' "$STATS"
}

# wait_for FILES: poll until the account shows FILES files (10 s at most)
wait_for() {
	_i=0
	while [ "$(stat files)" != "$1" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# running PID...: poll until every PID has run in user space (20 s at
# most): the tables of what exec maps are registered before the first
# user instruction runs
running() {
	for _p in "$@"; do
		_i=0
		while { [ "$(readlink "/proc/$_p/exe")" != "$PROG" ] ||
			[ "$(awk '{ print $14 }' "/proc/$_p/stat")" = 0 ]; } &&
		      [ $_i -lt 200 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
	done
}

f0=$(stat files)
b0=$(stat bytes)
"$PROG" leaf 60000 >/dev/null 2>&1 &
first=$!
running $first
f1=$(stat files)
b1=$(stat bytes)
pids=
i=0
while [ $i -lt "$N" ]; do
	"$PROG" leaf 60000 >/dev/null 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
# shellcheck disable=SC2086 # a list of pids
running $pids
f2=$(stat files)
b2=$(stat bytes)
# shellcheck disable=SC2086 # a list of pids
kill $first $pids 2>/dev/null
wait 2>/dev/null
wait_for "$f0"
sleep 0.5
f3=$(stat files)
b3=$(stat bytes)

echo "# tables: before: $f0 files, $b0 bytes; 1 process: $f1 files, $b1 bytes;" \
	"$((N + 1)) processes: $f2 files, $b2 bytes; after exit: $f3 files, $b3 bytes"
if [ "$f1" -gt "$f0" ] && [ "$b1" -gt "$b0" ] &&
   [ "$f2" = "$f1" ] && [ "$b2" = "$b1" ] &&
   [ "$f3" = "$f0" ] && [ "$b3" = "$b0" ]; then
	exit 0
fi
echo "# tables: expected one copy per file and none left after exit"
exit 1
