#!/bin/sh
# Inside the VM: one case of a cmocka test program copied in with --with,
# for what this machine cannot run (the VM is root with every capability).
#   cmocka_one.sh PROGRAM CASE
# Passes when the case ran and passed: a skip is a failure here, since the
# VM is where the case is meant to run.
prog=$1
case=$2
out=/tmp/cmocka-$$.out
IL_BUILD_DIR=/opt/with IL_TEST_ONLY="$case" "$prog" >"$out" 2>&1
rc=$?
cat "$out"
if [ $rc -ne 0 ]; then
	echo "FAIL $prog $case: exit $rc"
	exit 1
fi
if grep -q "SKIPPED" "$out" || ! grep -q "PASSED  \] 1 test" "$out"; then
	echo "FAIL $prog $case: did not run and pass (skipped, or filtered out)"
	exit 1
fi
echo "PASS $prog $case"
