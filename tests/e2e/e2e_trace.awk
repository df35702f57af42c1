# SPDX-License-Identifier: GPL-2.0
# Summarises a kprof trace.json (one event per line, as kprof_trace.c
# writes it; docs/formats.md) into one line per event, for the VM tests
# (busybox awk, no JSON tool in the VM). Times become integer ns (the
# file's "us.nnn" without the dot). Output lines:
#   meta zone_slices VALUE        the head's otherData (spaces as _)
#   track PID TID NAME            thread_name metadata (device: core or
#                                 group tracks tid < 1000000, zone tracks
#                                 1000000 + core * 10 + RISC)
#   slice TID SEQ TS DUR NAME     device op slice (pid 1, ph X, cat op)
#   zone TID SEQ TS DUR NAME      device zone slice (pid 1, ph X, cat zone)
#   host TID TS DUR SEQ ROLE      host ioctl slice (pid 2, ph X)
#   flow s|f ID PID TID TS        flow start (launch) / end (device)
#   counter NAME TS VALUE         ph C; NAME with spaces as _
#   bad LINENO                    a line that is not an event of this layout
#   head OK|BAD, tail OK|BAD      the opening and closing lines
function val(key,    s) {
	if (!match($0, "\"" key "\":")) return ""
	s = substr($0, RSTART + RLENGTH)
	if (substr(s, 1, 1) == "\"") {
		s = substr(s, 2)
		return substr(s, 1, index(s, "\"") - 1)
	}
	match(s, /^-?[0-9.e+]+/)
	return substr(s, 1, RLENGTH)
}
# a string, not a number: awk may print big numbers as 1.2e+11
function ns(us,    i, s) {
	i = index(us, ".")
	s = i ? substr(us, 1, i - 1) substr(us, i + 1) : us "000"
	sub(/^0+/, "", s)
	return s == "" ? "0" : s
}
NR == 1 {
	if ($0 !~ /^\{"displayTimeUnit":"ns","otherData":\{"zone_slices":"[^"]*"\},"traceEvents":\[$/) {
		print "head BAD"
		next
	}
	print "head OK"
	z = val("zone_slices")
	gsub(/ /, "_", z)
	print "meta zone_slices " z
	next
}
$0 == "]}" { tail = 1; next }
{
	if (tail || $0 !~ /^\{"ph":"[MXCsf]",.*\},?$/) {
		print "bad " NR
		next
	}
	ph = val("ph")
	pid = val("pid")
	if (ph == "M") {
		if (val("name") == "thread_name") {
			n = $0
			sub(/.*"args":\{"name":"/, "", n)
			sub(/"\}\},?$/, "", n)
			gsub(/ /, "_", n)
			print "track " pid " " val("tid") " " n
		}
	} else if (ph == "X" && pid == 1) {
		n = val("name")
		gsub(/ /, "_", n)
		print (val("cat") == "zone" ? "zone " : "slice ") val("tid") " " val("seq") " " \
			ns(val("ts")) " " ns(val("dur")) " " n
	} else if (ph == "X") {
		print "host " val("tid") " " ns(val("ts")) " " ns(val("dur")) " " val("seq") " " val("name")
	} else if (ph == "s" || ph == "f") {
		print "flow " ph " " val("id") " " pid " " val("tid") " " ns(val("ts"))
	} else {
		n = val("name")
		gsub(/ /, "_", n)
		v = $0
		sub(/.*"args":\{"[^"]*":/, "", v)
		sub(/\}\},?$/, "", v)
		print "counter " n " " ns(val("ts")) " " v
	}
}
END { print (tail ? "tail OK" : "tail BAD") }
