#!/bin/sh
# Runs the benchmark programs named on the command line (make bench);
# each prints its own figures. Exit status: 1 if any failed.
status=0
for b in "$@"; do
	"$b" || { echo "$b: FAILED" >&2; status=1; }
done
exit $status
