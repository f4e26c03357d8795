#include "il_chain.h"

#include <errno.h>
#include <string.h>

static const struct il_proc_desc procs[IL_PROC_COUNT] = {
    [IL_PROC_BROWSER] = {"browser-sim", "browser", true},
    [IL_PROC_RENDER] = {"render-sim", "render", true},
    [IL_PROC_VIZ] = {"viz-sim", "viz", true},
    [IL_PROC_WORKLOAD] = {"il-workload", "il", false},
};

/* Default work modelled on Chrome; evdev decoding is a few us. */
static const struct il_thread_desc threads[IL_T_COUNT] = {
    [IL_T_BROWSER_EVDEV] = {"browser:evdev", IL_PROC_BROWSER, IL_ROLE_EVDEV, 10,
			    "EventThreadEvdev (ozone evdev input thread)",
			    "the button's release: a click is a press and a release, and only "
			    "the press is a hop"},
    [IL_T_BROWSER_UI] = {"browser:ui", IL_PROC_BROWSER, IL_ROLE_UI, 100,
			 "CrBrowserMain (browser UI thread)", NULL},
    [IL_T_BROWSER_IO] = {"browser:io", IL_PROC_BROWSER, IL_ROLE_IO, 20,
			 "Chrome_IOThread (browser IO thread)",
			 "presentation feedback from viz-sim: the frame was shown"},
    [IL_T_RENDER_IO] = {"render:io", IL_PROC_RENDER, IL_ROLE_IO, 20,
			"Chrome_ChildIOThread (renderer IO thread)", NULL},
    [IL_T_RENDER_COMP] = {"render:comp", IL_PROC_RENDER, IL_ROLE_COMPOSITOR, 150,
			  "Compositor (renderer compositor thread)", NULL},
    [IL_T_RENDER_MAIN] = {"render:main", IL_PROC_RENDER, IL_ROLE_MAIN, 400,
			  "CrRendererMain (Blink main thread, runs JavaScript)", NULL},
    [IL_T_VIZ_IO] = {"viz:io", IL_PROC_VIZ, IL_ROLE_IO, 20,
		     "Chrome_ChildIOThread (GPU process IO thread)",
		     "after the flip: the feedback to browser-sim, the record to inputlat"},
    [IL_T_VIZ_COMP] = {"viz:comp", IL_PROC_VIZ, IL_ROLE_COMPOSITOR, 200,
		       "VizCompositorThread (display compositor)", NULL},
    [IL_T_VIZ_GPU] = {"viz:gpu", IL_PROC_VIZ, IL_ROLE_GPU, 300, "CrGpuMain (GPU main thread)",
		      NULL},
    [IL_T_VIZ_DRM] = {"viz:drm", IL_PROC_VIZ, IL_ROLE_DRM, 50, "DRMThread (page flips)", NULL},
};

static const struct il_hop_desc hops[IL_NHOPS] = {
    {IL_STAMP_EVDEV, "inject->evdev", IL_T_NONE, IL_T_BROWSER_EVDEV, IL_HOP_INPUT,
     "kernel input -> EventThreadEvdev"},
    {IL_STAMP_UI, "evdev->ui", IL_T_BROWSER_EVDEV, IL_T_BROWSER_UI, IL_HOP_IN_PROCESS,
     "EventConverterEvdev -> UI loop"},
    {IL_STAMP_BROWSER_IO, "ui->io", IL_T_BROWSER_UI, IL_T_BROWSER_IO, IL_HOP_IN_PROCESS,
     "RenderWidgetHost -> IO thread"},
    {IL_STAMP_RENDER_IO, "browser-io->render-io", IL_T_BROWSER_IO, IL_T_RENDER_IO,
     IL_HOP_CROSS_PROCESS, "Mojo IPC"},
    {IL_STAMP_RENDER_INPUT, "io->compositor", IL_T_RENDER_IO, IL_T_RENDER_COMP, IL_HOP_IN_PROCESS,
     "InputHandlerProxy"},
    {IL_STAMP_MAIN, "compositor->main", IL_T_RENDER_COMP, IL_T_RENDER_MAIN, IL_HOP_IN_PROCESS,
     "Blink dispatch, JS handler"},
    {IL_STAMP_COMMIT, "main->compositor", IL_T_RENDER_MAIN, IL_T_RENDER_COMP, IL_HOP_IN_PROCESS,
     "commit"},
    {IL_STAMP_VIZ_IO, "render-comp->viz-io", IL_T_RENDER_COMP, IL_T_VIZ_IO, IL_HOP_CROSS_PROCESS,
     "CompositorFrame submit"},
    {IL_STAMP_VIZ_COMP, "io->viz-compositor", IL_T_VIZ_IO, IL_T_VIZ_COMP, IL_HOP_IN_PROCESS,
     "VizCompositorThread"},
    {IL_STAMP_GPU, "compositor->gpu", IL_T_VIZ_COMP, IL_T_VIZ_GPU, IL_HOP_IN_PROCESS,
     "GPU main: draw, swap"},
    {IL_STAMP_DRM, "gpu->drm", IL_T_VIZ_GPU, IL_T_VIZ_DRM, IL_HOP_IN_PROCESS,
     "DRM thread: page-flip request"},
    {IL_STAMP_FLIP, "drm->flip", IL_T_VIZ_DRM, IL_T_NONE, IL_HOP_DISPLAY, "presentation"},
};

/* Child fds start at 4; fd 3 is the control channel. */
static const struct il_channel_desc channels[IL_CH_COUNT] = {
    [IL_CH_INPUT] = {"input", IL_PROC_ORCH, IL_PROC_BROWSER, -1, 4},
    [IL_CH_BROWSER_RENDER] = {"browser->render", IL_PROC_BROWSER, IL_PROC_RENDER, 5, 4},
    [IL_CH_RENDER_VIZ] = {"render->viz", IL_PROC_RENDER, IL_PROC_VIZ, 5, 4},
    [IL_CH_FEEDBACK] = {"feedback", IL_PROC_VIZ, IL_PROC_BROWSER, 5, 6},
    [IL_CH_RECORDS] = {"records", IL_PROC_VIZ, IL_PROC_ORCH, 6, -1},
};

const struct il_proc_desc *il_chain_proc(enum il_proc_id p)
{
	return (unsigned)p < IL_PROC_COUNT ? &procs[p] : NULL;
}

const struct il_thread_desc *il_chain_thread(enum il_thread_id t)
{
	return (unsigned)t < IL_T_COUNT ? &threads[t] : NULL;
}

const struct il_hop_desc *il_chain_hop(int index)
{
	return index >= 1 && index <= IL_NHOPS ? &hops[index - 1] : NULL;
}

const struct il_channel_desc *il_chain_channel(enum il_channel ch)
{
	return (unsigned)ch < IL_CH_COUNT ? &channels[ch] : NULL;
}

const char *il_chain_hop_from(const struct il_hop_desc *h)
{
	return h->from == IL_T_NONE ? "inject" : threads[h->from].name;
}

const char *il_chain_hop_to(const struct il_hop_desc *h)
{
	return h->to == IL_T_NONE ? "display" : threads[h->to].name;
}

int il_chain_thread_parse(const char *name)
{
	for (int t = 0; name && t < IL_T_COUNT; t++)
		if (strcmp(name, threads[t].name) == 0)
			return t;
	return -EINVAL;
}

int il_chain_proc_parse(const char *program)
{
	for (int p = 0; program && p < IL_PROC_COUNT; p++)
		if (strcmp(program, procs[p].program) == 0)
			return p;
	return -EINVAL;
}

const char *il_hop_kind_name(enum il_hop_kind k)
{
	switch (k) {
	case IL_HOP_INPUT:
		return "input";
	case IL_HOP_IN_PROCESS:
		return "in-process";
	case IL_HOP_CROSS_PROCESS:
		return "cross-process";
	case IL_HOP_DISPLAY:
		return "display";
	}
	return "?";
}

int il_chain_fd(enum il_channel ch, enum il_proc_id p)
{
	const struct il_channel_desc *c = il_chain_channel(ch);

	if (!c)
		return -1;
	if (c->writer == p)
		return c->writer_fd;
	if (c->reader == p)
		return c->reader_fd;
	return -1;
}
