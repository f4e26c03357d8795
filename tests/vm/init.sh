#!/bin/busybox sh
# shellcheck shell=dash
# PID 1 of the test VM: load the real modules, run the test programs, print
# one VMTEST line per program and the verdict, then power off. The host
# (tests/vm/run) reads the verdict from the serial console.
/bin/busybox --install -s /bin
echo # end the firmware's last line, so VMTEST lines start at column 0
export PATH=/opt/with:/opt/with/bin:/bin:/tests
# Shared libraries of dynamic --with programs (there is no ld.so.cache).
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu
mkdir -p /proc /sys /dev /tmp /run /var/lib /var/tmp
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mkdir -p /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
echo "VMTEST kernel $(uname -r), $(nproc) CPUs"

# insmod in dependency order (computed on the host): no depmod, no udev.
while read -r ko <&3; do
	insmod "/lib/modules/$ko" || echo "VMTEST insmod $ko FAILED"
done 3< /etc/modules.order
# The uinput node and the DRM cards appear asynchronously: waited for,
# up to 30 s (TCG on a loaded host is slow; this is a bound, not a pace).
i=0
while [ $i -lt 300 ] && ! { [ -e /dev/uinput ] && ls /dev/dri/card* >/dev/null 2>&1; }; do
	sleep 0.1
	i=$((i + 1))
done
echo "VMTEST devices: $(ls /dev/uinput /dev/dri/ 2>&1 | tr '\n' ' ')"

failed=0
run() {
	name=$1
	shift
	echo "VMTEST-BEGIN $name"
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "VMTEST-PASS $name"
	else
		echo "VMTEST-FAIL $name (exit $rc)"
		failed=$((failed + 1))
	fi
}

run uinput /tests/vm_test_uinput
run drm /tests/vm_test_drm
if [ -d /sys/kernel/debug/sched/fair_server ]; then
	run fair-server-tuning sh /tests/fair_server.sh
fi
# Extra commands from `tests/vm/run -- CMD...`, one per line. fd 3, so a
# command that reads stdin cannot swallow the ones after it.
n=0
while read -r cmd <&3; do
	n=$((n + 1))
	run "cmd$n: $cmd" sh -c "cd /opt/with 2>/dev/null; $cmd" </dev/null
done 3< /etc/vm-commands

echo "VMTEST-FAILED=$failed"
[ $failed -eq 0 ] && echo "VMTEST-EXIT=0" || echo "VMTEST-EXIT=1"
sync
poweroff -f
