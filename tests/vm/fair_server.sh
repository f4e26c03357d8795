#!/bin/sh
# Inside the 6.12 VM: the fair server's debugfs knobs round trip. Sets
# 100 ms per 1 s on every CPU, reads the values back, then restores them.
# This is the only kernel here where the tuning path can run.
dir=/sys/kernel/debug/sched/fair_server
fail=0
pass=0
check() {
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL $1: read back '$2', want '$3'"
		fail=$((fail + 1))
	fi
}
for cpu in "$dir"/cpu*; do
	old_rt=$(cat "$cpu/runtime")
	old_period=$(cat "$cpu/period")
	echo "# $(basename "$cpu"): runtime $old_rt ns, period $old_period ns (defaults)"
	# Period first: a runtime above the period would be refused.
	echo 1000000000 > "$cpu/period"
	echo 100000000 > "$cpu/runtime"
	check "$(basename "$cpu") period" "$(cat "$cpu/period")" 1000000000
	check "$(basename "$cpu") runtime" "$(cat "$cpu/runtime")" 100000000
	echo "$old_rt" > "$cpu/runtime"
	echo "$old_period" > "$cpu/period"
	check "$(basename "$cpu") restored runtime" "$(cat "$cpu/runtime")" "$old_rt"
	check "$(basename "$cpu") restored period" "$(cat "$cpu/period")" "$old_period"
done
[ $pass -gt 0 ] || { echo "FAIL: no CPU under $dir"; fail=1; }
echo "fair_server: $pass passed, $fail failed"
[ $fail -eq 0 ]
