/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmiprof top's full-screen view (ncurses): the header, the rows of a view
 * laid out for the terminal's width (columns left out from the right
 * before a name is cut, and a name cut only where its cut form stays
 * unique among the rows shown, format.h's cut_names_unique()), the
 * selected row, and the keys on the bottom line as htop shows them; the
 * help screen; and what each key does to the screen's state.  What a
 * zoom or a new sort means for the rows is the caller's (the command).
 */
#ifndef PMIPROF_REPORT_TOP_SCREEN_H
#define PMIPROF_REPORT_TOP_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/top_view.h"
#include "output/top_table.h"

/* What the user chose on the screen. */
struct top_ui {
	uint32_t cursor;	/* selected row */
	uint32_t first;		/* first row shown */
	uint32_t focus;		/* e: the event whose rate column comes first */
	uint32_t sort;		/* s: 0 samples, 1.. events, then metrics, then name */
	bool help;		/* ?: the help screen */
	bool editing;		/* f: typing the filter */
	char filter[64];
};

/* What a key asks of the command. */
enum top_action {
	TOP_NONE,		/* nothing changed */
	TOP_REDRAW,		/* the same rows, drawn again (cursor, help, resize) */
	TOP_REBUILD,		/* sort or filter changed: rows built again */
	TOP_ZOOM,		/* Enter on ui->cursor */
	TOP_BACK,		/* Esc, Backspace */
	TOP_PAUSE,		/* p */
	TOP_QUIT,		/* q */
};

/* Terminal set up for the screen (stdin must be a terminal): 0 or -errno. */
int top_screen_open(void);
void top_screen_close(void);
/* The next key (ncurses KEY_* codes, KEY_RESIZE after a resize), or -1 when none waits. */
int top_screen_key(void);
/* Keys to actions; v: the rows on screen (cursor bounds, sort choices). */
enum top_action top_screen_handle(struct top_ui *ui, int key, const struct top_view *v);
/* The sort a ui->sort choice means for v's recording, and its name. */
void top_screen_sort(const struct top_ui *ui, const struct top_view *v, struct top_sort *so,
		     char *name, size_t size);
void top_screen_draw(struct top_ui *ui, const struct top_view *v, const struct top_origin *o);

#endif /* PMIPROF_REPORT_TOP_SCREEN_H */
