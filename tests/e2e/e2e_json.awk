# SPDX-License-Identifier: GPL-2.0
# Flattens json-c's pretty-printed output (params.json) into one
# "path value" line per scalar, e.g. "stats.lost_markers 0" or
# "config.ring.lost_records 2"; array elements get the path component "[]".
# Only for the layout json-c writes (one member per line); busybox awk.
{
	line = $0
	sub(/^[ \t]+/, "", line)
	sub(/,$/, "", line)
	key = ""
	val = line
	if (line ~ /^"[^"]*" *: */) {
		key = line
		sub(/^"/, "", key)
		sub(/".*$/, "", key)
		val = line
		sub(/^"[^"]*" *: */, "", val)
	}
	if (val == "{" || val == "[") {
		stack[++depth] = (key == "" ? "[]" : key)
		next
	}
	if (val == "}" || val == "]") {
		depth--
		next
	}
	path = ""
	for (i = 2; i <= depth; i++)
		path = path stack[i] "."
	if (key == "")
		key = "[]"
	gsub(/^"|"$/, "", val)
	print path key " " val
}
