# SPDX-License-Identifier: GPL-2.0
# Checks one capture's ops.csv and host_events.csv against the sim's ground
# truth (debugfs truth, docs/sim.md) for the ops with seq in (lo, hi].
#
#   awk -f e2e_ops.awk -v lo=SEQ -v hi=SEQ -v riscs=N -v bound=NS \
#       -v tol=0.01 -v lost=zero|any [-v reclo=SEQ -v rechi=SEQ] \
#       TRUTH FS=, HOST_EVENTS_CSV OPS_CSV
# reclo..rechi: ops the device's record queue lost OP/COUNTERS records
# for (params.json stats.device_records_lost_first_op/_last_op): those
# may have an empty OP CODE.
#
# Prints "PASS what" / "FAIL what" per check, "# ..." details (the worst
# offenders first), and "LOSTSUM n" (sum of ops.csv MARKERS LOST).
# lost=zero: every op must be complete with MARKERS LOST 0. lost=any: ops
# with MARKERS LOST > 0 are left out of the device-time checks (their
# markers may be missing); all others must be complete.
# Numbers stay below 2^53 (boot-relative ns, reference cycles), so awk's
# doubles hold them exactly. busybox awk compatible (no gawk extensions).

BEGIN {
	# exact integers in messages (busybox uses CONVFMT even for them)
	CONVFMT = "%.17g"
	OFMT = "%.17g"
}

function abs(x) { return x < 0 ? -x : x }

# note(check, seq, value, text): record a failing op; keep the worst one
function note(c, s, v, t) {
	nfail[c]++
	if (nfail[c] <= 5)
		ex[c] = ex[c] "#   seq " s ": " t "\n"
	if (!(c in worst) || v > worst[c]) {
		worst[c] = v
		worsttxt[c] = "seq " s ": " t
	}
}

function result(c, what) {
	if (nfail[c] + 0 == 0) {
		print "PASS " what
		return
	}
	print "FAIL " what
	printf "# %d op(s) fail; worst: %s\n", nfail[c], worsttxt[c]
	printf "# first failures:\n%s", ex[c]
}

function colmap(   i, h) {
	delete col
	for (i = 1; i <= NF; i++) {
		h = $i
		gsub(/^"|"$/, "", h)
		col[h] = i
	}
}

function need(name, file) {
	if (!(name in col)) {
		print "FAIL " file " has column '" name "'"
		missing = 1
	}
}

FNR == 1 { file++ }

# ---- truth: seq name first_core num_cores mhz launch_ns start_ns end_ns
#      fw_start_cycles fw_end_cycles kernel_start_cycles kernel_end_cycles
file == 1 {
	if ($1 == "seq")
		next
	s = $1 + 0
	if (s <= lo || s > hi)
		next
	if (s in tname)
		tdup++
	ntruth++
	tname[s] = $2
	tcores[s] = $4 + 0
	tlaunch[s] = $6 + 0
	tstart[s] = $7 + 0
	tend[s] = $8 + 0
	tfws[s] = $9 + 0
	tfwe[s] = $10 + 0
	tks[s] = $11 + 0
	tke[s] = $12 + 0
	next
}

# ---- host_events.csv
file == 2 {
	if (FNR == 1) {
		colmap()
		need("ROLE", "host_events.csv"); need("ENTER TS [ns]", "host_events.csv")
		need("EXIT TS [ns]", "host_events.csv"); need("RET", "host_events.csv")
		need("SEQ", "host_events.csv")
		next
	}
	role = $col["ROLE"]
	if (role == "launch" && $col["RET"] == 0) {
		s = $col["SEQ"] + 0
		if (s <= lo || s > hi) {
			hforeign++
			next
		}
		if (s in lenter)
			hdup++
		nlaunch++
		lenter[s] = $col["ENTER TS [ns]"] + 0
		lexit[s] = $col["EXIT TS [ns]"] + 0
	} else if (role == "sync") {
		nsync++
		senter[nsync] = $col["ENTER TS [ns]"] + 0
		sexit[nsync] = $col["EXIT TS [ns]"] + 0
		sseq[nsync] = $col["SEQ"] + 0
	}
	next
}

# ---- ops.csv
file == 3 {
	if (FNR == 1) {
		colmap()
		split("OP CODE|GLOBAL CALL COUNT|CORE COUNT|HOST START TS|HOST END TS|" \
		      "DEVICE FW START CYCLE|DEVICE FW END CYCLE|DEVICE FW DURATION [ns]|" \
		      "DEVICE KERNEL DURATION [ns]|DEVICE FW START TS [ns]|" \
		      "DEVICE FW END TS [ns]|MARKERS|MARKERS LOST|ZONE MARKERS", want, "|")
		for (i = 1; i in want; i++)
			need(want[i], "ops.csv")
		next
	}
	nrows++
	s = $col["GLOBAL CALL COUNT"] + 0
	if (s in row) {
		note("rows", s, 1, "row appears twice")
		next
	}
	row[s] = 1
	if (!(s in tname)) {
		note("rows", s, 1, "row for an op the workload did not launch (not in truth range)")
		next
	}
	code[s] = $col["OP CODE"]
	ccount[s] = $col["CORE COUNT"] + 0
	hstart[s] = $col["HOST START TS"]
	hend[s] = $col["HOST END TS"] + 0
	fwsc[s] = $col["DEVICE FW START CYCLE"]
	fwec[s] = $col["DEVICE FW END CYCLE"]
	fwdur[s] = $col["DEVICE FW DURATION [ns]"]
	kdur[s] = $col["DEVICE KERNEL DURATION [ns]"]
	fwsts[s] = $col["DEVICE FW START TS [ns]"]
	fwets[s] = $col["DEVICE FW END TS [ns]"]
	mk[s] = $col["MARKERS"] + 0
	mlost[s] = $col["MARKERS LOST"] + 0
	zmk[s] = $col["ZONE MARKERS"] + 0
	next
}

END {
	if (missing)
		exit 1
	n = hi - lo
	# -- the op set
	print (ntruth == n && !tdup ? "PASS" : "FAIL") \
		" truth holds every launched op (" ntruth " of " n ")"
	print (nlaunch == n && !hdup ? "PASS" : "FAIL") \
		" host_events.csv: one successful launch per op (" nlaunch " of " n \
		", " hdup + 0 " duplicate, " hforeign + 0 " from other seqs)"
	for (s = lo + 1; s <= hi; s++)
		if (!(s in row))
			note("rows", s, 1, "no ops.csv row")
	result("rows", "ops.csv: exactly one row per launched op (" nrows " rows, " n " ops)")
	for (s = lo + 1; s <= hi; s++) {
		if (!(s in row) || !(s in tname))
			continue
		kinds[tname[s]] = 1
		# an op whose OP record the device's queue dropped has no OP
		# CODE; allowed only inside the op range params.json reports
		if (code[s] == "" && s >= reclo && s <= rechi) {
			excused++
			continue
		}
		if (code[s] != tname[s])
			note("code", s, 1, "OP CODE '" code[s] "', truth '" tname[s] "'")
	}
	if (excused)
		printf "#   %d op(s) without OP CODE inside the reported device records lost range %d-%d\n", excused, reclo, rechi
	nk = 0
	for (k in kinds)
		nk++
	print (nk >= 4 ? "PASS" : "FAIL") " at least 4 op kinds (" nk ")"
	result("code", "OP CODE matches the sim's op name")

	# -- per op checks
	for (s = lo + 1; s <= hi; s++) {
		if (!(s in row) || !(s in tname))
			continue
		# host side: BPF launch entry is HOST START TS; the sim queued
		# the op inside that ioctl
		if (!(s in lenter) || hstart[s] == "" || hstart[s] + 0 != lenter[s])
			note("hstart", s, 1, "HOST START TS '" hstart[s] "' vs launch entry '" lenter[s] "'")
		else if (tlaunch[s] < hstart[s] + 0 || tlaunch[s] > hend[s])
			note("hstart", s, abs(tlaunch[s] - hstart[s]),
			     "sim queued at " tlaunch[s] ", outside launch ioctl [" hstart[s] ", " hend[s] "]")
		# lost mode "any": ops in a LOST record's range may lack markers
		if (lost == "any" && mlost[s] > 0) {
			nskip++
			lostsum += mlost[s]
			continue
		}
		# covering sync: first to return among those entered after the
		# launch that waited for this seq, a later one, or all (seq 0)
		best = -1
		for (i = 1; i <= nsync; i++)
			if (senter[i] >= lenter[s] && (sseq[i] == 0 || sseq[i] >= s) &&
			    (best < 0 || sexit[i] < best))
				best = sexit[i]
		if (fwsts[s] == "" || fwets[s] == "") {
			note("order", s, 1e18, "no device FW times")
		} else if (best < 0) {
			note("order", s, 1e18, "no sync ioctl covers it")
		} else {
			a = fwsts[s] - hstart[s]	# must be >= 0 (empty HOST START: huge)
			if (hstart[s] == "")
				a = -1e18
			b = best - fwets[s]		# must be >= 0
			if (a < minls || !haveml) { minls = a; minls_s = s; haveml = 1 }
			if (b < minse || !havems) { minse = b; minse_s = s; havems = 1 }
			if (a < 0 || b < 0)
				note("order", s, -(a < b ? a : b),
				     "launch entry " hstart[s] ", FW start " fwsts[s] ", FW end " fwets[s] ", sync exit " best)
		}
		# device cycles are raw: exactly the sim's
		if (fwsc[s] == "" || fwsc[s] + 0 != tfws[s] || fwec[s] + 0 != tfwe[s])
			note("cycles", s, abs(fwsc[s] - tfws[s]) + abs(fwec[s] - tfwe[s]),
			     "FW cycles " fwsc[s] ".." fwec[s] ", truth " tfws[s] ".." tfwe[s])
		# mapped start against the sim's exact host time
		if (fwsts[s] != "") {
			d = abs(fwsts[s] - tstart[s])
			if (d > maxmap) { maxmap = d; maxmap_s = s }
			if (d > bound)
				note("map", s, d, "FW START TS " fwsts[s] ", truth start " tstart[s] " (off " d " ns)")
		}
		# durations within tol of the truth
		tf = tend[s] - tstart[s]
		if (tf <= 0 || tfwe[s] <= tfws[s]) {
			note("fwdur", s, 1, "truth has no FW duration: " tstart[s] ".." tend[s])
			continue
		}
		tk = (tke[s] - tks[s]) * tf / (tfwe[s] - tfws[s])
		ef = fwdur[s] == "" ? 1 : abs(fwdur[s] - tf) / tf
		ek = kdur[s] == "" ? 1 : abs(kdur[s] - tk) / tk
		if (ef > maxef) { maxef = ef; maxef_s = s }
		if (ek > maxek) { maxek = ek; maxek_s = s }
		if (ef > tol)
			note("fwdur", s, ef, sprintf("FW DURATION %s ns, truth %.0f ns (%.4f%%)", fwdur[s], tf, ef * 100))
		if (ek > tol)
			note("kdur", s, ek, sprintf("KERNEL DURATION %s ns, truth %.0f ns (%.4f%%)", kdur[s], tk, ek * 100))
		# every core and every FW/KERNEL marker of the op arrived
		lostsum += mlost[s]
		if (ccount[s] != tcores[s] || mk[s] - zmk[s] != 4 * riscs * tcores[s])
			note("markers", s, 1, "CORE COUNT " ccount[s] " (truth " tcores[s] "), FW/KERNEL markers " \
			     mk[s] - zmk[s] " (expected " 4 * riscs * tcores[s] ")")
		if (mlost[s] != 0)
			note("lost", s, mlost[s], "MARKERS LOST " mlost[s])
	}
	result("hstart", "HOST START TS is the BPF launch entry and brackets the sim's launch time")
	result("order", "launch entry <= device FW start (host time) <= FW end <= covering sync exit")
	printf "#   smallest FW start - launch entry: %.0f ns (seq %d); smallest sync exit - FW end: %.0f ns (seq %d)\n",
		minls, minls_s, minse, minse_s
	result("cycles", "DEVICE FW START/END CYCLE equal the sim's truth exactly")
	result("map", "DEVICE FW START TS within the time-sync error bound (" bound " ns) of the sim's start")
	printf "#   largest |FW START TS - truth start|: %.0f ns (seq %d)\n", maxmap, maxmap_s
	result("fwdur", "DEVICE FW DURATION within " tol * 100 "% of truth")
	result("kdur", "DEVICE KERNEL DURATION within " tol * 100 "% of truth")
	printf "#   largest relative error: FW %.5f%% (seq %d), kernel %.5f%% (seq %d)\n",
		maxef * 100, maxef_s, maxek * 100, maxek_s
	if (lost == "any")
		printf "#   %d ops with MARKERS LOST > 0 left out of the device checks\n", nskip
	result("markers", "CORE COUNT and FW/KERNEL markers complete for every op without MARKERS LOST")
	if (lost == "zero")
		result("lost", "MARKERS LOST is 0 for every op")
	print "LOSTSUM " lostsum + 0
}
