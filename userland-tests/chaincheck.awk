# SPDX-License-Identifier: GPL-2.0
#
# Check the user callchains of `perf script -F comm,tid,ip,sym,dso` output.
# POSIX/busybox awk.
#
#   awk -v expect='CHAIN[;CHAIN...]' [-v min=50] [-v prefix=0] -f chaincheck.awk FILE
#
# CHAIN is a comma separated list of frames, leaf first; a frame is one or
# more alternatives separated by '|'; an alternative ending in '*' matches
# any frame that starts with the rest.  A frame of the perf output is its
# symbol, or "[unknown]@<dso basename>" when perf has no symbol for it
# (e.g. a libc without debug symbols).  The first frame of each CHAIN (a
# single name) is its hot function.
#
# Samples whose leaf is the hot function of a CHAIN must all be exactly that
# CHAIN (with prefix=1: start with it); samples with other leaves are
# ignored.  Each CHAIN needs at least `min` such samples.
#
# Exit status: 0 pass, 1 some chain differs, 2 too few samples (and no
# wrong chain), 3 no sample at all.  Diagnostics go to stdout as "# " lines.

function flush(    i, c, k, ok, j, alts, na, a, hit, s) {
	if (nf == 0)
		return
	nsamples++
	c = 0
	for (k = 1; k <= nexp; k++)
		if (frame[1] == hot[k]) {
			c = k
			break
		}
	if (!c) {
		other++
		nf = 0
		return
	}
	count[c]++
	ok = prefix ? (nf >= elen[c]) : (nf == elen[c])
	for (i = 1; ok && i <= elen[c]; i++) {
		na = split(eframe[c, i], alts, "|")
		hit = 0
		for (a = 1; a <= na; a++)
			if (frame[i] == alts[a] ||
			    (alts[a] ~ /\*$/ &&
			     substr(frame[i], 1, length(alts[a]) - 1) == \
			     substr(alts[a], 1, length(alts[a]) - 1)))
				hit = 1
		if (!hit)
			ok = 0
	}
	if (ok) {
		good[c]++
	} else {
		bad[c]++
		if (bad[c] == 1) {
			s = frame[1]
			for (j = 2; j <= nf; j++)
				s = s "," frame[j]
			firstbad[c] = s " (" head ")"
		}
	}
	nf = 0
}

BEGIN {
	if (min == "")
		min = 50
	nexp = split(expect, chains, ";")
	for (k = 1; k <= nexp; k++) {
		elen[k] = split(chains[k], tmp, ",")
		for (i = 1; i <= elen[k]; i++)
			eframe[k, i] = tmp[i]
		hot[k] = tmp[1]
		count[k] = good[k] = bad[k] = 0
	}
	nf = 0
	nsamples = other = 0
}

# Sample header: not indented.
/^[^ \t]/ {
	flush()
	head = $0
	sub(/[ \t]+$/, "", head)
	next
}

/^[ \t]*$/ {
	flush()
	next
}

# Callchain entry: "<ip> <sym> (<dso>)"
{
	line = $0
	sub(/^[ \t]+/, "", line)
	sub(/[ \t]+$/, "", line)
	ip = line
	sub(/[ \t].*$/, "", ip)
	rest = substr(line, length(ip) + 1)
	sub(/^[ \t]+/, "", rest)
	dso = ""
	if (match(rest, /\([^()]*\)$/)) {
		dso = substr(rest, RSTART + 1, RLENGTH - 2)
		rest = substr(rest, 1, RSTART - 1)
		sub(/[ \t]+$/, "", rest)
	}
	# Inline frames are perf's display, not return addresses.
	if (dso == "inlined")
		next
	sym = rest
	if (sym == "" || sym == "[unknown]") {
		n = split(dso, parts, "/")
		sym = "[unknown]@" (n ? parts[n] : "?")
	}
	frame[++nf] = sym
}

END {
	flush()
	rc = 0
	for (k = 1; k <= nexp; k++) {
		printf("# %s: %d samples, %d as expected, %d different\n",
		       hot[k], count[k], good[k], bad[k])
		if (bad[k]) {
			printf("# first different chain: %s\n", firstbad[k])
			printf("# expected chain:        %s\n", chains[k])
			rc = 1
		}
	}
	printf("# %d samples in all, %d with another leaf\n", nsamples, other)
	if (rc)
		exit 1
	if (nsamples == 0)
		exit 3
	for (k = 1; k <= nexp; k++)
		if (count[k] < min) {
			printf("# %s: fewer than %d samples\n", hot[k], min)
			rc = 2
		}
	exit rc
}
