/*
 * The hop chain of DESIGN.md, defined once: its processes, its threads,
 * its stamps and hops, and the channels between the processes. The
 * orchestrator wires the processes from this table, each child starts its
 * threads from it, the report, the trace, the benchmarks and the plots
 * take hop names and kinds from it.
 *
 * Adding a hop: a stamp below, a row in il_chain.c's hop table (and a
 * thread or channel if the hop needs a new one), and the handler that
 * does its work. Frame sizes, reports and traces follow from the table.
 */
#ifndef IL_CHAIN_H
#define IL_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "il_role.h"

/* The orchestrator's children. IL_PROC_ORCH stands for inputlat itself
 * where a channel ends there. */
enum il_proc_id {
	IL_PROC_BROWSER,
	IL_PROC_RENDER,
	IL_PROC_VIZ,
	IL_PROC_WORKLOAD,
	IL_PROC_COUNT,
	IL_PROC_ORCH = IL_PROC_COUNT,
};

/* The pipeline threads, in the order of their first stamp. */
enum il_thread_id {
	IL_T_BROWSER_EVDEV,
	IL_T_BROWSER_UI,
	IL_T_BROWSER_IO,
	IL_T_RENDER_IO,
	IL_T_RENDER_COMP,
	IL_T_RENDER_MAIN,
	IL_T_VIZ_IO,
	IL_T_VIZ_COMP,
	IL_T_VIZ_GPU,
	IL_T_VIZ_DRM,
	IL_T_COUNT,
	IL_T_NONE = -1, /* the injector (orchestrator) or the display */
};

/*
 * Stamps: stamp 0 is the injector's write, stamp k the start of hop k's
 * handler. Hop k is the time from stamp k-1 to stamp k.
 */
enum il_stamp {
	IL_STAMP_INJECT,       /* orchestrator writes the mouse-down */
	IL_STAMP_EVDEV,	       /* browser:evdev reads it */
	IL_STAMP_UI,	       /* browser:ui handles it */
	IL_STAMP_BROWSER_IO,   /* browser:io sends it to the renderer */
	IL_STAMP_RENDER_IO,    /* render:io receives it */
	IL_STAMP_RENDER_INPUT, /* render:comp's input handler */
	IL_STAMP_MAIN,	       /* render:main runs the page's handler */
	IL_STAMP_COMMIT,       /* render:comp commits, submits a frame */
	IL_STAMP_VIZ_IO,       /* viz:io receives the frame */
	IL_STAMP_VIZ_COMP,     /* viz:comp aggregates */
	IL_STAMP_GPU,	       /* viz:gpu draws and swaps */
	IL_STAMP_DRM,	       /* viz:drm requests the page flip */
	IL_STAMP_FLIP,	       /* the flip is done (vblank) */
	IL_NSTAMPS
};

#define IL_NHOPS (IL_NSTAMPS - 1)

/* Processing latency is FLIP_REQUEST - INJECT; presentation FLIP - INJECT. */
#define IL_STAMP_PROCESSED IL_STAMP_DRM
#define IL_STAMP_PRESENTED IL_STAMP_FLIP

enum il_hop_kind {
	IL_HOP_INPUT,	      /* kernel/pipe input into the evdev thread */
	IL_HOP_IN_PROCESS,    /* queue + eventfd wake-up between two threads */
	IL_HOP_CROSS_PROCESS, /* framed write on a Unix stream socket */
	IL_HOP_DISPLAY,	      /* page flip completion */
};

/* Channels between processes: one socket pair (or pipe) each. */
enum il_channel {
	IL_CH_INPUT,	      /* orchestrator -> browser:evdev: input_event stream */
	IL_CH_BROWSER_RENDER, /* browser:io -> render:io (hop 4) */
	IL_CH_RENDER_VIZ,     /* render:comp -> viz:io (hop 8) */
	IL_CH_FEEDBACK,	      /* viz:io -> browser:io: presentation feedback */
	IL_CH_RECORDS,	      /* viz:io -> orchestrator: finished records */
	IL_CH_COUNT
};

/* Every child has its control channel on fd 3 (wire/il_ctl.h). */
#define IL_FD_CONTROL 3
/* The highest fd a child is handed, plus one. */
#define IL_CHILD_MAX_FDS 7

struct il_proc_desc {
	const char *program; /* "browser-sim": the executable and process name */
	const char *prefix;  /* "browser": thread names are "<prefix>:<role>" */
	bool in_chain;	     /* carries hop threads (not il-workload) */
};

struct il_thread_desc {
	const char *name; /* "browser:ui" (15 characters at most) */
	enum il_proc_id proc;
	enum il_role role;
	uint64_t default_work_us; /* CPU work per handler, modelled on Chrome */
	const char *chrome;	  /* the Chrome thread it stands for */
	/* A wake-up per event that is not a hop, by design (NULL: none): the
	 * report sets the wakes it measures beside the hops plus this. */
	const char *other_wake;
};

struct il_hop_desc {
	int index;	  /* 1..IL_NHOPS: ends at stamp `index` */
	const char *name; /* "ui->io" */
	int from, to;	  /* enum il_thread_id, IL_T_NONE for inject/display */
	enum il_hop_kind kind;
	const char *chrome; /* Chrome counterpart */
};

struct il_channel_desc {
	const char *name;
	enum il_proc_id writer, reader;
	int writer_fd, reader_fd; /* fd number in that process; -1 in the orchestrator */
};

/* Table rows; NULL for an out-of-range index. */
const struct il_proc_desc *il_chain_proc(enum il_proc_id p);
const struct il_thread_desc *il_chain_thread(enum il_thread_id t);
const struct il_hop_desc *il_chain_hop(int index);
const struct il_channel_desc *il_chain_channel(enum il_channel ch);

/* A hop's ends by name: the thread's name, or "inject" / "display". */
const char *il_chain_hop_from(const struct il_hop_desc *h);
const char *il_chain_hop_to(const struct il_hop_desc *h);

/* "browser:ui" -> IL_T_BROWSER_UI; -EINVAL for an unknown name. */
int il_chain_thread_parse(const char *name);

/* "browser-sim" -> IL_PROC_BROWSER; -EINVAL for an unknown program. */
int il_chain_proc_parse(const char *program);

/* "in-process", "cross-process", ... */
const char *il_hop_kind_name(enum il_hop_kind k);

/* The fd that process p holds for channel ch, or -1 when p is not an end. */
int il_chain_fd(enum il_channel ch, enum il_proc_id p);

#endif
