/*
 * The file descriptors the orchestrator hands each child (besides the
 * control channel on fd 3). One place, so both ends agree.
 */
#ifndef IL_FDS_H
#define IL_FDS_H

/* browser-sim */
#define IL_FD_BROWSER_INPUT 4	 /* synthetic input_event stream (read) */
#define IL_FD_BROWSER_TO_RENDER 5 /* browser io -> render io */
#define IL_FD_BROWSER_FEEDBACK 6 /* viz io -> browser io: presentation feedback */
/* render-sim */
#define IL_FD_RENDER_FROM_BROWSER 4
#define IL_FD_RENDER_TO_VIZ 5 /* render compositor -> viz io */
/* viz-sim */
#define IL_FD_VIZ_FROM_RENDER 4
#define IL_FD_VIZ_FEEDBACK 5 /* -> browser io */
#define IL_FD_VIZ_RECORDS 6  /* finished records -> orchestrator */

#endif
