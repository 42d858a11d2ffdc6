#!/bin/sh
# The board probe image under QEMU: the NPU model answers, so every probe
# must name the reading the model implements. The probes and their readings
# (the model's first) are the table "Board probes" of sim/ASSUMPTIONS.md:
# every probe listed there must print `reading=<the model's>` (a listed
# probe the image lacks fails), every entry whose text says UNSURE must have
# a probe there (the rows without one are HARDWARE.md §9 questions no probe
# can decide, each saying why), and the image runs no probe the table lacks. Then the summary, a subset run alone, an unknown id, and a job that
# does not complete.
. "$(dirname "$0")/lib.sh"

TABLE=$ROOT/sim/ASSUMPTIONS.md

# "id reading" per probe row: | `id` | An | question | `model`, `other`... |
rows=$(awk -F'|' '/^## Board probes/ { on = 1; next } /^## / { on = 0 }
	on && $2 ~ /`/ { id = $2; gsub(/[ `]/, "", id); r = $5; sub(/,.*/, "", r);
		gsub(/[ `]/, "", r); print id, r }' "$TABLE")
[ -n "$rows" ] || fail "no probe rows in the Board probes table of $TABLE"
count=$(echo "$rows" | wc -l)

# Entries whose text says UNSURE, each with a probe of its own (a row with
# a probe id; the rows without one are the open questions of HARDWARE.md §9
# no probe can decide, each saying why).
unsure=$(awk '/^\*\*A[0-9]+ / { sub(/^\*\*/, ""); split($0, f, " "); a = f[1] }
	/^## / { a = "" } a != "" && /UNSURE/ { print a }' "$TABLE" | sort -u)
covered=$(awk -F'|' '/^## Board probes/ { on = 1; next } /^## / { on = 0 }
	on && $2 ~ /`/ && $3 ~ /A[0-9]/ { gsub(/ /, "", $3); n = split($3, a, ",");
		for (i = 1; i <= n; i++) print a[i] }' "$TABLE" | sort -u)
for a in $unsure; do
	echo "$covered" | grep -qx "$a" ||
		{ echo "FAIL: probe.sh: $a says UNSURE but has no probe in Board probes"; exit 1; }
done
awk -F'|' '/^## Board probes/ { on = 1; next } /^## / { on = 0 }
	on && $2 ~ /—/ && $3 ~ /A[0-9]/ { bad = 1; print "FAIL: probe.sh: a row of " $3 " without a probe" }
	END { exit bad }' "$TABLE" || exit 1

run_qemu "$IMG_DIR/Image" "rkbare.probe=all"
echo "$rows" | while read -r id model; do
	grep -qF -- "probe $id reading=$model (as modelled): " "$OUT" ||
		fail "no line 'probe $id reading=$model (as modelled)'"
done || exit 1
ran=$(grep -c '^probe [^ ]* \(reading=\|failed:\)' "$OUT")
[ "$ran" -eq "$count" ] || fail "$ran probes ran, the table lists $count"
expect_no_line "(the model reads "
expect_no_line "reading=none"
expect_no_line "reading=ambiguous"
expect_line "---- probe summary (paste into an issue) ----"
expect_line "$count probes: $count as modelled, 0 another reading, 0 none, 0 failed"
expect_no_line "model: "
expect_status 0

run_qemu "$IMG_DIR/Image" "rkbare.probe=A9-m1,cores"
expect_line "probe A9-m1 reading=signed (as modelled): "
expect_line "probe cores reading=all-cores (as modelled): "
expect_no_line "probe version"
expect_line "2 probes: 2 as modelled"
expect_status 0

run_qemu "$IMG_DIR/Image" "rkbare.probe=nonsense"
expect_line "probe: 'nonsense' names no probe"
expect_nonzero

# A job that does not complete (the model's hang fault) is a failure of its
# own, with the driver's error, never a reading.
run_qemu "$IMG_DIR/Image" "rkbare.probe=all rkbare.fault=hang"
expect_line " failed: the control matmul failed ("
expect_no_line "(the model reads "
expect_line "0 another reading, 0 none, 1 failed"
expect_nonzero
