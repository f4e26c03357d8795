/*
 * ilspin-oncpu: publishes per-TID on-CPU state for il_spin mutexes in
 * other processes. Loads the sched_switch BPF program, pins its map and
 * link under /sys/fs/bpf/inputlat (mode 0600) and exits; the pinned link
 * keeps the program attached until `ilspin-oncpu --stop`.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_env.h"
#include "il_oncpu.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ilspin-oncpu [--pin-dir DIR] [--status | --stop]\n"
		"  --help          show this help\n"
		"  --pin-dir DIR   bpffs directory for the pins (default %s)\n"
		"  --status        print whether the records are published and live (exit 0\n"
		"                  only when both)\n"
		"  --stop          unpin the map and link (the program detaches)\n"
		"  --version       print the version\n"
		"Without --status/--stop: load, attach and pin, then exit.\n",
		IL_ONCPU_PIN_DIR);
}

static int status(const char *dir)
{
	struct il_oncpu *o;
	uint32_t tid = (uint32_t)getpid();
	int r = il_oncpu_open_pinned(dir, &o);

	if (r == -ENOENT) {
		printf("not published (nothing pinned under %s)\n", dir ? dir : IL_ONCPU_PIN_DIR);
		return 1;
	}
	if (r < 0) {
		/* Something is pinned there, and it is not records this can read. */
		printf("unreadable: %s/%s: %s\n", dir ? dir : IL_ONCPU_PIN_DIR, IL_ONCPU_PIN_MAP,
		       r == -EPROTO ? "not an on-CPU records map" : strerror(-r));
		return 1;
	}
	/* Sleeps until the records show this process switching, or give up. */
	r = il_oncpu_check_live(o, tid);
	if (r == 0)
		printf("published: %u entries, this process's switches are recorded (live)\n",
		       o->entries);
	else if (r == -ERANGE)
		printf("published: %u entries, this process's TID %u is beyond them: liveness "
		       "not checked\n",
		       o->entries, tid);
	else
		printf("published: %u entries, this process's switches are not recorded (stale: "
		       "no program attached?)\n",
		       o->entries);
	il_oncpu_free(o);
	return r == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"help", no_argument, NULL, 'h'},	 {"pin-dir", required_argument, NULL, 'd'},
	    {"status", no_argument, NULL, 's'},	 {"stop", no_argument, NULL, 'x'},
	    {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
	};
	const char *dir = IL_ONCPU_PIN_DIR;
	int c, stop = 0, stat = 0, help = 0, version = 0, r;

	opterr = 0; /* one line of ours, not getopt's and then the usage */
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help = 1;
			break;
		case 'd':
			dir = optarg;
			break;
		case 's':
			stat = 1;
			break;
		case 'x':
			stop = 1;
			break;
		case 'V':
			version = 1;
			break;
		case ':':
			fprintf(stderr, "ilspin-oncpu: %s needs a value (see --help)\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr,
				"ilspin-oncpu: unknown or ambiguous option '%s' (see --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	/* Before --help and --version act: '--version x' printed the version. */
	if (optind < argc) {
		fprintf(stderr, "ilspin-oncpu: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return 2;
	}
	if (help) {
		usage(stdout);
		return 0;
	}
	if (version) {
		printf("ilspin-oncpu %s\n", IL_VERSION);
		return 0;
	}
	if (!dir[0]) {
		fprintf(stderr, "ilspin-oncpu: --pin-dir: an empty directory name\n");
		return 2;
	}
	if (il_env_switch_check("ilspin-oncpu", "IL_BPF_DEBUG") < 0)
		return 2;
	if (stop && stat) {
		fprintf(
		    stderr,
		    "ilspin-oncpu: unexpected arguments; use at most one of --status, --stop\n");
		return 2;
	}
	if (stat)
		return status(dir);
	if (stop) {
		r = il_oncpu_unpublish(dir);
		if (r < 0) {
			fprintf(stderr, "ilspin-oncpu: nothing pinned under %s\n", dir);
			return 1;
		}
		return 0;
	}
	r = il_oncpu_publish(dir);
	if (r == -EEXIST) {
		fprintf(stderr, "ilspin-oncpu: already published under %s (--stop first)\n", dir);
		return 1;
	}
	if (r == -EMEDIUMTYPE) {
		fprintf(stderr,
			"ilspin-oncpu: %s is not on a BPF filesystem (mount -t bpf bpf DIR)\n",
			dir);
		return 2;
	}
	if (r < 0) {
		fprintf(stderr, "ilspin-oncpu: cannot load the sched_switch BPF program: %s%s\n",
			strerror(-r), r == -EPERM ? " (needs root: CAP_BPF and CAP_PERFMON)" : "");
		return 1;
	}
	printf("published under %s\n", dir);
	return 0;
}
