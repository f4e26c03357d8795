#include "il_oncpu.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_bpf_attach.h"
#include "il_pidmax.h"
#include "il_tracefs.h"
#include "oncpu.skel.h"

#define BPFFS_ROOT	   "/sys/fs/bpf"
#define BPFFS_MAGIC_NUMBER 0xcafe4a11
/* A directory inside the pin dir that says "ilspin-oncpu mounted bpffs". */
#define MOUNT_MARKER "mounted_by_ilspin_oncpu" /* bpffs rejects "." in names */

static int map_records(int fd, struct il_oncpu *o)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		return -errno;
	if (info.type != BPF_MAP_TYPE_ARRAY || info.value_size != 8 ||
	    !(info.map_flags & BPF_F_MMAPABLE))
		return -EPROTO;
	o->map_len = ((size_t)info.max_entries * 8 + (size_t)page - 1) & ~((size_t)page - 1);
	/* Read-only: a reader must never be able to forge another thread's state. */
	p = mmap(NULL, o->map_len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	o->map = p;
	o->entries = info.max_entries;
	o->map_fd = fd;
	return 0;
}

/*
 * A reader of the records of map fd, which it takes over (closed on
 * failure too); program says where the map came from. *out is set only on
 * success.
 */
static int open_reader(int fd, const char *program, struct il_oncpu **out)
{
	struct il_oncpu *o = calloc(1, sizeof(*o));
	int r;

	if (!o) {
		close(fd);
		return -ENOMEM;
	}
	r = map_records(fd, o);
	if (r < 0) {
		close(fd);
		free(o);
		return r;
	}
	o->program = program;
	*out = o;
	return 0;
}

int il_oncpu_open_fd(int map_fd, struct il_oncpu **out)
{
	int fd;

	/* Our own descriptor: the caller keeps (and closes) theirs. */
	fd = fcntl(map_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	return open_reader(fd, "shared", out);
}

const char *il_oncpu_program(const struct il_oncpu *o)
{
	return o && o->program ? o->program : "?";
}

int il_oncpu_open_pinned(const char *pin_dir, struct il_oncpu **out)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pin_dir ? pin_dir : IL_ONCPU_PIN_DIR,
		 IL_ONCPU_PIN_MAP);
	/*
	 * Not BPF_F_RDONLY: mmap() drops VM_SHARED for a read-only descriptor
	 * and the kernel then refuses to map the array. The mapping itself is
	 * PROT_READ, and the kernel clears VM_MAYWRITE so it cannot be
	 * mprotect()ed writable; the 0600 pin limits who gets this far.
	 */
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	return open_reader(fd, "pinned", out);
}

/* The perf event ID of sched/sched_switch, whether or not tracefs is mounted. */
static int sched_switch_id(void)
{
	static const char *const ev[] = {"sched/sched_switch"};
	int id, rc = il_tracefs_event_ids(ev, 1, &id);

	return rc < 0 ? rc : id;
}

/* Attaches through a perf event (il_bpf_attach.h), since libbpf's needs tracefs. */
static int attach_switch(struct il_oncpu_bpf *skel)
{
	struct bpf_link *link;
	int id = sched_switch_id();

	if (id < 0)
		return id;
	link = il_bpf_attach_tracepoint(skel->progs.il_oncpu_switch, id);
	if (!link)
		return -errno;
	/* The skeleton destroys its links, and with this one the perf event. */
	skel->links.il_oncpu_switch = link;
	return 0;
}

static int attach_prog(struct bpf_program *prog, struct bpf_link **link)
{
	*link = bpf_program__attach(prog);
	return *link ? 0 : (errno ? -errno : -EINVAL);
}

/* The link of whichever program is attached. */
static struct bpf_link *skel_link(const struct il_oncpu_bpf *skel)
{
	if (skel->links.il_oncpu_switch_btf)
		return skel->links.il_oncpu_switch_btf;
	return skel->links.il_oncpu_switch_raw ? skel->links.il_oncpu_switch_raw
					       : skel->links.il_oncpu_switch;
}

/* Reads tid's record from src into *v: 0 or a negative errno. */
typedef int (*record_reader)(const void *src, uint32_t tid, uint64_t *v);

/*
 * The records work: after sleeps (a switch out and back in) the calling
 * thread's own record shows it (il_oncpu_record_live). A program whose
 * kernel reads come back 0 records nothing and fails here
 * (IL_ONCPU_LIVE_TRIES sleeps).
 */
static int wait_live(record_reader read_rec, const void *src, uint32_t tid)
{
	struct timespec ts = {0, 200000};
	uint64_t before = 0, v = 0;
	int r = read_rec(src, tid, &before);

	for (int i = 0; r == 0 && i < IL_ONCPU_LIVE_TRIES; i++) {
		nanosleep(&ts, NULL);
		r = read_rec(src, tid, &v);
		if (r == 0 && il_oncpu_record_live(before, v))
			return 0;
	}
	return r < 0 ? r : -ESTALE;
}

/* Before the map is mapped: through the system call. */
static int read_looked_up(const void *src, uint32_t tid, uint64_t *v)
{
	const struct il_oncpu_bpf *skel = src;

	if (bpf_map__lookup_elem(skel->maps.oncpu, &tid, sizeof(tid), v, sizeof(*v), 0) < 0)
		return -errno;
	return 0;
}

static int read_mapped(const void *src, uint32_t tid, uint64_t *v)
{
	*v = il_oncpu_record(src, tid);
	return 0;
}

/* Opens, sizes and loads one of the programs; attaches (and checks it) when asked. */
static int open_load_attach(struct il_oncpu_bpf **out, int do_attach, enum il_oncpu_prog prog)
{
	struct il_oncpu_bpf *skel;
	int r;

	skel = il_oncpu_bpf__open();
	if (!skel)
		return errno ? -errno : -EINVAL;
	/* Entries to record: every possible TID, bounded by IL_ONCPU_MAX_ENTRIES. */
	r = bpf_map__set_max_entries(skel->maps.oncpu, il_pidmax_get(IL_ONCPU_MAX_ENTRIES));
	if (r == 0)
		r = bpf_program__set_autoload(skel->progs.il_oncpu_switch_btf,
					      prog == IL_ONCPU_PROG_BTF);
	if (r == 0)
		r = bpf_program__set_autoload(skel->progs.il_oncpu_switch_raw,
					      prog == IL_ONCPU_PROG_RAW_TP);
	if (r == 0)
		r = bpf_program__set_autoload(skel->progs.il_oncpu_switch,
					      prog == IL_ONCPU_PROG_TRACEPOINT);
	if (r < 0)
		goto fail;
	r = il_oncpu_bpf__load(skel);
	if (r < 0)
		goto fail;
	if (do_attach) {
		if (prog == IL_ONCPU_PROG_BTF)
			r = attach_prog(skel->progs.il_oncpu_switch_btf,
					&skel->links.il_oncpu_switch_btf);
		else if (prog == IL_ONCPU_PROG_RAW_TP)
			r = attach_prog(skel->progs.il_oncpu_switch_raw,
					&skel->links.il_oncpu_switch_raw);
		else
			r = attach_switch(skel);
		if (r == 0)
			r = wait_live(read_looked_up, skel, (uint32_t)syscall(SYS_gettid));
		if (r < 0)
			goto fail;
	}
	*out = skel;
	return 0;
fail:
	il_oncpu_bpf__destroy(skel);
	return r;
}

/* libbpf warns on stderr by default: a library keeps it quiet around its
 * own calls and leaves the application's print function as it found it. */
static int load_variant(struct il_oncpu_bpf **out, int do_attach, enum il_oncpu_prog prog)
{
	libbpf_print_fn_t app = libbpf_set_print(il_bpf_debug_print);
	int r = open_load_attach(out, do_attach, prog);

	libbpf_set_print(app);
	return r;
}

/*
 * The cheapest program the kernel takes and runs correctly: BTF
 * tracepoint, raw tracepoint, classic tracepoint (see oncpu.bpf.c).
 */
static int load_skel(struct il_oncpu_bpf **out, int do_attach)
{
	int r = load_variant(out, do_attach, IL_ONCPU_PROG_BTF);

	if (r < 0)
		r = load_variant(out, do_attach, IL_ONCPU_PROG_RAW_TP);
	if (r < 0)
		r = load_variant(out, do_attach, IL_ONCPU_PROG_TRACEPOINT);
	return r;
}

int il_oncpu_load(struct il_oncpu **out)
{
	return il_oncpu_load_prog(IL_ONCPU_PROG_AUTO, out);
}

int il_oncpu_load_prog(enum il_oncpu_prog prog, struct il_oncpu **out)
{
	struct il_oncpu *o;
	int r, fd;

	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	if (prog == IL_ONCPU_PROG_AUTO)
		r = load_skel(&o->skel, 1);
	else
		r = load_variant(&o->skel, 1, prog);
	if (r < 0) {
		free(o);
		return r;
	}
	/* A second descriptor so il_oncpu_free() closes ours, not libbpf's. */
	fd = dup(bpf_map__fd(o->skel->maps.oncpu));
	if (fd < 0) {
		r = -errno;
		goto fail;
	}
	r = map_records(fd, o);
	if (r < 0) {
		close(fd);
		goto fail;
	}
	o->program = o->skel->links.il_oncpu_switch_btf	  ? "tp_btf"
		     : o->skel->links.il_oncpu_switch_raw ? "raw_tp"
							  : "tracepoint";
	*out = o;
	return 0;
fail:
	il_oncpu_bpf__destroy(o->skel);
	free(o);
	return r;
}

int il_oncpu_check_live(const struct il_oncpu *o, uint32_t tid)
{
	if (tid >= o->entries)
		return -ERANGE;
	return wait_live(read_mapped, o, tid);
}

void il_oncpu_free(struct il_oncpu *o)
{
	if (!o)
		return;
	/* map_fd is ours exactly when the records are mapped. */
	if (o->map) {
		munmap((void *)o->map, o->map_len);
		close(o->map_fd);
	}
	il_oncpu_bpf__destroy(o->skel);
	free(o);
}

void il_oncpu_retire(struct il_oncpu *o)
{
	if (!o)
		return;
	if (o->map) {
		/*
		 * MAP_FIXED swaps the pages under the mm's lock: a reader sees
		 * the old record or 0, never a hole. Should it fail, the old
		 * mapping stays (readable, frozen once the program goes).
		 */
		(void)mmap((void *)o->map, o->map_len, PROT_READ,
			   MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		close(o->map_fd);
		o->map_fd = -1;
	}
	il_oncpu_bpf__destroy(o->skel);
	o->skel = NULL;
}

static int is_bpffs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && (unsigned long)st.f_type == BPFFS_MAGIC_NUMBER;
}

int il_oncpu_publish(const char *pin_dir)
{
	char map_path[PATH_MAX], link_path[PATH_MAX], marker[PATH_MAX];
	struct il_oncpu_bpf *skel = NULL;
	int mounted = 0, r;
	bool made;

	if (!pin_dir)
		pin_dir = IL_ONCPU_PIN_DIR;
	snprintf(map_path, sizeof(map_path), "%s/%s", pin_dir, IL_ONCPU_PIN_MAP);
	snprintf(link_path, sizeof(link_path), "%s/%s", pin_dir, IL_ONCPU_PIN_LINK);
	snprintf(marker, sizeof(marker), "%s/%s", pin_dir, MOUNT_MARKER);

	/* Like bpftool: pinning needs bpffs, so mount it when it is missing. */
	if (strncmp(pin_dir, BPFFS_ROOT "/", strlen(BPFFS_ROOT "/")) == 0 &&
	    !is_bpffs(BPFFS_ROOT)) {
		if (mount("bpf", BPFFS_ROOT, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") <
		    0)
			return -errno;
		mounted = 1;
	}
	made = mkdir(pin_dir, 0700) == 0;
	if (!made && errno != EEXIST) {
		r = -errno;
		goto fail;
	}
	/* Pins live on bpffs only: elsewhere libbpf would print its own line
	 * and the pin fail with EINVAL. Said as what it is. */
	if (!is_bpffs(pin_dir)) {
		r = -EMEDIUMTYPE;
		if (made)
			rmdir(pin_dir);
		goto fail;
	}
	if (access(map_path, F_OK) == 0 || access(link_path, F_OK) == 0) {
		r = -EEXIST;
		goto fail;
	}
	r = load_skel(&skel, 1);
	if (r < 0)
		goto fail;
	r = bpf_map__pin(skel->maps.oncpu, map_path);
	if (r < 0)
		goto fail;
	r = bpf_link__pin(skel_link(skel), link_path);
	if (r < 0)
		goto fail;
	/* Pins are created with the umask; the design asks for owner-only. */
	if (chmod(map_path, 0600) < 0 || chmod(link_path, 0600) < 0) {
		r = -errno;
		goto fail;
	}
	if (mounted && mkdir(marker, 0700) < 0) {
		r = -errno;
		goto fail;
	}
	/* The pinned link and map outlive this descriptor set. */
	il_oncpu_bpf__destroy(skel);
	return 0;
fail:
	if (skel) {
		unlink(link_path);
		unlink(map_path);
		il_oncpu_bpf__destroy(skel);
	}
	if (mounted) {
		rmdir(marker);
		rmdir(pin_dir);
		umount2(BPFFS_ROOT, MNT_DETACH);
	}
	return r;
}

static int dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return 0;
	/* Names with a dot are bpffs's own preloaded iterators (maps.debug). */
	while ((e = readdir(d)))
		if (!strchr(e->d_name, '.'))
			empty = 0;
	closedir(d);
	return empty;
}

int il_oncpu_unpublish(const char *pin_dir)
{
	char map_path[PATH_MAX], link_path[PATH_MAX], marker[PATH_MAX];
	int found = 0, unmount = 0;

	if (!pin_dir)
		pin_dir = IL_ONCPU_PIN_DIR;
	snprintf(map_path, sizeof(map_path), "%s/%s", pin_dir, IL_ONCPU_PIN_MAP);
	snprintf(link_path, sizeof(link_path), "%s/%s", pin_dir, IL_ONCPU_PIN_LINK);
	snprintf(marker, sizeof(marker), "%s/%s", pin_dir, MOUNT_MARKER);

	if (unlink(link_path) == 0)
		found = 1;
	if (unlink(map_path) == 0)
		found = 1;
	if (rmdir(marker) == 0)
		unmount = 1;
	rmdir(pin_dir);
	/* Unmount only what we mounted, and only if nobody else pinned there. */
	if (unmount && dir_is_empty(BPFFS_ROOT))
		umount2(BPFFS_ROOT, 0);
	return found ? 0 : -ENOENT;
}
