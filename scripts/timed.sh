#!/bin/sh
# Runs a command and says how long it took, wall clock, so a make test log shows where
# its minutes went (the suite must stay under ten on two cores). Exits as the command did.
# Usage: scripts/timed.sh LABEL COMMAND [ARG...]
label=$1
shift
start=$(date +%s)
"$@"
rc=$?
echo "make test: $label took $(($(date +%s) - start)) s (exit $rc)"
exit $rc
