# SPDX-License-Identifier: GPL-2.0
#
# Check the user callchains of `perf script -F comm,tid,ip,sym,dso` output.
# POSIX/busybox awk.
#
#   awk -v expect='CHAIN[;CHAIN...]' [-v min=50] [-v prefix=0] -f chaincheck.awk FILE
#
# CHAIN is a comma separated list of frames, leaf first; a frame is one or
# more alternatives separated by '|'; an alternative ending in '*' matches
# any frame that starts with the rest; a frame written "?FRAME" may be
# missing from the sample (perf's own insertions, see run-tests.sh's
# pac_chain).  A frame of the perf output is its
# symbol, or "[unknown]@<dso basename>" when perf has no symbol for it
# (e.g. a libc without debug symbols).  The first frame of each CHAIN (a
# single name) is its hot function.
#
# Samples whose leaf is the hot function of a CHAIN must all be exactly that
# CHAIN (with prefix=1: start with it); samples with other leaves are
# ignored.  Each CHAIN needs at least `min` such samples.
#
# An entry "!FRAME" instead of a CHAIN ignores the samples that have a
# frame FRAME anywhere in their chain (alternatives and '*' as in a
# CHAIN), whatever their leaf: e.g. "!_dl_start|_dl_start_user", the
# samples of ld.so's start-up, which runs some of the hot functions of an
# ld.so test before main.
#
# Exit status: 0 pass, 1 some chain differs, 2 too few samples (and no
# wrong chain), 3 no sample at all.  Diagnostics go to stdout as "# " lines.

# Does frame F match the expected frame E (alternatives, '*')?
function match_frame(f, e,    alts, na, a) {
	na = split(e, alts, "|")
	for (a = 1; a <= na; a++)
		if (f == alts[a] ||
		    (alts[a] ~ /\*$/ &&
		     substr(f, 1, length(alts[a]) - 1) == \
		     substr(alts[a], 1, length(alts[a]) - 1)))
			return 1
	return 0
}

# Do the sample's frames from J on match the expected frames of chain C
# from I on?  "?FRAME" matches FRAME or nothing.
function match_from(c, i, j,    e) {
	if (i > elen[c])
		return prefix || j > nf
	e = eframe[c, i]
	if (substr(e, 1, 1) == "?") {
		if (j <= nf && match_frame(frame[j], substr(e, 2)) &&
		    match_from(c, i + 1, j + 1))
			return 1
		return match_from(c, i + 1, j)
	}
	return j <= nf && match_frame(frame[j], e) && match_from(c, i + 1, j + 1)
}

function flush(    i, c, k, j, s) {
	if (nf == 0)
		return
	nsamples++
	for (k = 1; k <= nign; k++)
		for (i = 1; i <= nf; i++)
			if (match_frame(frame[i], ign[k])) {
				ignored++
				nf = 0
				return
			}
	c = 0
	for (k = 1; k <= nexp; k++)
		if (frame[1] == hot[k]) {
			c = k
			break
		}
	if (!c) {
		other++
		oleaf[frame[1]]++
		nf = 0
		return
	}
	count[c]++
	if (match_from(c, 1, 1)) {
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
	n = split(expect, all, ";")
	nexp = nign = 0
	for (k = 1; k <= n; k++)
		if (substr(all[k], 1, 1) == "!")
			ign[++nign] = substr(all[k], 2)
		else
			chains[++nexp] = all[k]
	for (k = 1; k <= nexp; k++) {
		elen[k] = split(chains[k], tmp, ",")
		for (i = 1; i <= elen[k]; i++)
			eframe[k, i] = tmp[i]
		hot[k] = tmp[1]
		count[k] = good[k] = bad[k] = 0
	}
	nf = 0
	nsamples = other = ignored = 0
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
	if (nign)
		printf("# %d samples in all, %d with another leaf, %d ignored (!FRAME)\n",
		       nsamples, other, ignored)
	else
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
	# where the samples went instead: the three most frequent other leaves
	if (rc == 2)
		for (i = 1; i <= 3; i++) {
			best = ""
			for (l in oleaf)
				if (best == "" || oleaf[l] > oleaf[best])
					best = l
			if (best == "")
				break
			printf("# other leaf: %s (%d samples)\n", best, oleaf[best])
			delete oleaf[best]
		}
	exit rc
}
