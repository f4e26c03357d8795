#!/bin/sh
# Inside the VM: a run of the rt-throttled policy says whether RT throttling
# was in force (kernel.rt_throttling), and warns when the policy's
# sched_rt_runtime_us held nothing back: Debian's 6.12 has no RT groups,
# and with the fair server there is no RT throttling at all; its 6.1 still
# throttles by the global values. Passes when the report and its warning agree.
json=/tmp/rt-throttled-$$.json
inputlat run --policy rt-throttled --input uinput --present drm --work none --quiet \
	--events 5 --timeout-ms 20000 --json "$json"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL rt-throttled run: exit $rc"; exit 1; }
line=$(tr -d '\n\t' < "$json" | sed -n 's/.*"rt_throttling":{\([^}]*\)}.*/\1/p')
echo "# $(uname -r): rt_throttling {$line}"
warned=no
grep -q 'asks for RT throttling' "$json" && warned=yes
case "$line" in
*'"in_force":false'*) want=yes ;;
*'"in_force":true'*) want=no ;;
*) echo "FAIL: no rt_throttling.in_force in the report"; exit 1 ;;
esac
if [ "$warned" != "$want" ]; then
	echo "FAIL: warning that RT throttling was not in force: $warned, want $want"
	exit 1
fi
echo "PASS rt_throttled: in force and warning agree (warned: $warned)"
