# SPDX-License-Identifier: GPL-2.0
#
# Reads `perf script -D -F comm,tid,time` (the raw dump
# of each record, then perf script's own lines) for stress.sh and prints
# "KEY VALUE" lines:
#
#   samples N       samples perf script printed (a "COMM TID TIME:" line)
#   first T, last T time of the first and of the last of them (seconds)
#   window N        samples at first + FROM or later
#   window_churn N  those of processes named churn
#   raw N           PERF_RECORD_SAMPLE records in the raw dump
#   chains N        callchains in the raw dump ("... FP chain: nr:N")
#   max_entries N   most entries of one callchain, context markers
#                   (PERF_CONTEXT_KERNEL, _USER...) left out
#   at_limit N      callchains of exactly LIMIT entries
#   over N          callchains of more than LIMIT entries (the kernel
#                   never stores more than kernel.perf_event_max_stack)
#   over_example S  the raw header of such a sample (the first 3)
#   lost N, throttle N   PERF_RECORD_LOST* and PERF_RECORD_THROTTLE records
#   comm NAME N     samples per command, the 8 biggest
#
#   awk -v from=SECONDS -v limit=MAX_STACK -f stress.awk

BEGIN {
	in_chain = 0
}

function end_chain() {
	in_chain = 0
	chains++
	if (ents > max_entries)
		max_entries = ents
	if (ents == limit)
		at_limit++
	if (ents > limit) {
		over++
		if (over <= 3)
			over_example[over] = raw_line " (" ents " entries)"
	}
}

# raw dump: "[CPU ]TIME OFFSET [SIZE]: PERF_RECORD_SAMPLE(...): PID/TID: IP
# ..." (the CPU with perf record -a)
/^([0-9]+ )?[0-9]+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE/ {
	raw++
	raw_line = $0
	next
}

/^([0-9]+ )?[0-9]+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_LOST/ {
	lost++
	next
}

/^([0-9]+ )?[0-9]+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_THROTTLE/ {
	throttle++
	next
}

/^\.\.\. FP chain: nr:/ {
	nr = substr($0, index($0, "nr:") + 3) + 0
	ents = 0
	seen = 0
	in_chain = 1
	if (nr == 0)
		end_chain()
	next
}

# "..... I: ADDRESS"; context markers are (u64)-4095 and above
in_chain && /^\.\.\.\.\. +[0-9]+: [0-9a-f]+$/ {
	if ($NF !~ /^fffffffffffff/)
		ents++
	if (++seen == nr)
		end_chain()
	next
}

in_chain {
	end_chain()
}

# perf script's own line of a sample: "COMM TID SECONDS.MICROSECONDS:",
# COMM right-aligned (raw dump lines in between start with a dot or end
# otherwise)
/^[ \t]*[^ \t.]/ && $NF ~ /^[0-9]+\.[0-9]+:$/ && NF >= 3 {
	t = substr($NF, 1, length($NF) - 1) + 0
	comm = $1
	for (i = 2; i <= NF - 2; i++)
		comm = comm " " $i
	samples++
	if (samples == 1)
		first = t
	last = t
	per_comm[comm]++
	if (t >= first + from) {
		window++
		if (comm == "churn")
			window_churn++
	}
}

END {
	if (in_chain)
		end_chain()
	print "samples " samples + 0
	printf "first %.6f\n", first
	printf "last %.6f\n", last
	print "window " window + 0
	print "window_churn " window_churn + 0
	print "raw " raw + 0
	print "chains " chains + 0
	print "max_entries " max_entries + 0
	print "at_limit " at_limit + 0
	print "over " over + 0
	for (i = 1; i <= over && i <= 3; i++)
		print "over_example " over_example[i]
	print "lost " lost + 0
	print "throttle " throttle + 0
	# the 8 commands with the most samples
	for (k = 0; k < 8; k++) {
		best = ""
		for (c in per_comm)
			if (best == "" || per_comm[c] > per_comm[best])
				best = c
		if (best == "")
			break
		print "comm " best " " per_comm[best]
		delete per_comm[best]
	}
}
