# SPDX-License-Identifier: GPL-2.0
#
# Folds `perf script -F comm,ip,sym` (a sample: a line with the command,
# then one line per frame, leaf first, then an empty line) into one line
# per distinct stack, root first, as flame graph tools read them:
#
#   COMM;ROOT;...;LEAF COUNT
#
# Frames without a symbol are "[unknown]".  Used by demo.sh (make demo).

function flush() {
	if (comm == "")
		return
	s = comm
	for (i = n; i >= 1; i--)
		s = s ";" f[i]
	count[s]++
	comm = ""
	n = 0
}

/^[^ \t]/ {
	flush()
	comm = $1
	next
}

/^[ \t]+[0-9a-f]+/ {
	sym = $2
	for (i = 3; i <= NF; i++)
		sym = sym " " $i
	if (sym == "")
		sym = "[unknown]"
	gsub(/;/, ":", sym)
	f[++n] = sym
	next
}

/^$/ {
	flush()
}

END {
	flush()
	for (s in count)
		print s, count[s]
}
