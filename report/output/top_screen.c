// SPDX-License-Identifier: GPL-2.0
/* pmiprof top's ncurses screen and keys (top_screen.h). */
#include "output/top_screen.h"

#include <curses.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define KEY_COL_W	7
#define SHARE_W		6
#define TREND_W		6
#define RATE_W		10
#define METRIC_W	12
#define NAME_MIN	12
#define MAX_COLS	(PMIPROF_MAX_EVENTS + MAX_METRICS * 2)

int top_screen_open(void)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -ENOTTY;
	if (!initscr())
		return -EIO;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	/* Esc alone must act at once, not after ncurses' default second */
	set_escdelay(25);
	curs_set(0);
	return 0;
}

void top_screen_close(void)
{
	endwin();
}

int top_screen_key(void)
{
	int k = getch();

	return k == ERR ? -1 : k;
}

static uint32_t nr_sorts(const struct top_view *v)
{
	return 1 + v->nr_events + v->ms.n + 1;
}

void top_screen_sort(const struct top_ui *ui, const struct top_view *v, struct top_sort *so,
		     char *name, size_t size)
{
	uint32_t k = ui->sort % nr_sorts(v);

	if (k == 0) {
		*so = (struct top_sort){ TOP_SORT_SAMPLES, 0 };
		snprintf(name, size, "samples");
	} else if (k <= v->nr_events) {
		*so = (struct top_sort){ TOP_SORT_EVENT, (int)k - 1 };
		snprintf(name, size, "%s", v->h->events[k - 1].name);
	} else if (k <= v->nr_events + v->ms.n) {
		*so = (struct top_sort){ TOP_SORT_METRIC, (int)(k - 1 - v->nr_events) };
		snprintf(name, size, "%s", v->ms.m[k - 1 - v->nr_events].name);
	} else {
		*so = (struct top_sort){ TOP_SORT_NAME, 0 };
		snprintf(name, size, "name");
	}
}

static int rows_room(void)
{
	/* header, column heading and the key line */
	int n = LINES - TOP_HEADER_LINES - 2;

	return n > 1 ? n : 1;
}

static enum top_action edit_filter(struct top_ui *ui, int key)
{
	size_t n = strlen(ui->filter);

	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		ui->editing = false;
		return TOP_REBUILD;
	}
	if (key == 27) {
		ui->editing = false;
		ui->filter[0] = '\0';
		return TOP_REBUILD;
	}
	if ((key == KEY_BACKSPACE || key == 127 || key == 8) && n) {
		ui->filter[n - 1] = '\0';
		return TOP_REDRAW;
	}
	if (key >= 32 && key < 127 && n + 1 < sizeof(ui->filter)) {
		ui->filter[n] = (char)key;
		ui->filter[n + 1] = '\0';
		return TOP_REDRAW;
	}
	return key == KEY_RESIZE ? TOP_REDRAW : TOP_NONE;
}

static void move_cursor(struct top_ui *ui, const struct top_view *v, long d)
{
	long c = (long)ui->cursor + d;

	if (c >= (long)v->nr)
		c = (long)v->nr - 1;
	if (c < 0)
		c = 0;
	ui->cursor = (uint32_t)c;
}

enum top_action top_screen_handle(struct top_ui *ui, int key, const struct top_view *v)
{
	if (ui->editing)
		return edit_filter(ui, key);
	if (ui->help) {
		ui->help = key == KEY_RESIZE;
		return TOP_REDRAW;
	}
	switch (key) {
	case KEY_UP: case 'k':
		move_cursor(ui, v, -1);
		return TOP_REDRAW;
	case KEY_DOWN: case 'j':
		move_cursor(ui, v, 1);
		return TOP_REDRAW;
	case KEY_PPAGE:
		move_cursor(ui, v, -rows_room());
		return TOP_REDRAW;
	case KEY_NPAGE: case ' ':
		move_cursor(ui, v, rows_room());
		return TOP_REDRAW;
	case KEY_HOME:
		ui->cursor = 0;
		return TOP_REDRAW;
	case KEY_END:
		move_cursor(ui, v, (long)v->nr);
		return TOP_REDRAW;
	case '\n': case '\r': case KEY_ENTER:
		return v->nr ? TOP_ZOOM : TOP_NONE;
	case 27: case KEY_BACKSPACE: case 127: case 8: case KEY_LEFT:
		return TOP_BACK;
	case 's':
		ui->sort = (ui->sort + 1) % nr_sorts(v);
		return TOP_REBUILD;
	case 'e':
		ui->focus = v->nr_events ? (ui->focus + 1) % v->nr_events : 0;
		return TOP_REDRAW;
	case 'f': case '/':
		ui->editing = true;
		return TOP_REDRAW;
	case 'p':
		return TOP_PAUSE;
	case 'q': case 'Q':
		return TOP_QUIT;
	case '?': case 'h': case KEY_F(1):
		ui->help = true;
		return TOP_REDRAW;
	case KEY_RESIZE:
		return TOP_REDRAW;
	}
	return TOP_NONE;
}

/* The columns shown between the share and the name: events (focus first), metrics. */
struct layout {
	int cols[MAX_COLS];	/* event e as e, metric m as PMIPROF_MAX_EVENTS + m */
	int nr_cols;
	int name_w;
	bool cut[1024];
};

static int fixed_width(const struct top_view *v, const struct layout *l)
{
	int w = (top_key_head(v)[0] ? KEY_COL_W + 1 : 0) + SHARE_W + 1 + TREND_W, i;

	for (i = 0; i < l->nr_cols; i++)
		w += 1 + (l->cols[i] < PMIPROF_MAX_EVENTS ? RATE_W : METRIC_W);
	return w + 2;
}

/*
 * Every column that fits beside a name of NAME_MIN; then, while a name of a
 * shown row can neither be shown whole nor cut to a form no other shown
 * name has, the rightmost column gives way.
 */
static void lay_out(const struct top_ui *ui, const struct top_view *v, uint32_t first,
		    uint32_t n, struct layout *l)
{
	const char *names[1024];
	uint32_t i, e;
	size_t longest;

	l->nr_cols = 0;
	for (i = 0; i < v->nr_events; i++) {
		e = (ui->focus + i) % v->nr_events;
		l->cols[l->nr_cols++] = (int)e;
		if (fixed_width(v, l) + NAME_MIN > COLS) {
			l->nr_cols--;
			break;
		}
	}
	for (i = 0; i < v->ms.n && l->nr_cols == (int)v->nr_events; i++) {
		l->cols[l->nr_cols++] = PMIPROF_MAX_EVENTS + (int)i;
		if (fixed_width(v, l) + NAME_MIN > COLS) {
			l->nr_cols--;
			break;
		}
	}
	if (n > ARRAY_SIZE(names))
		n = ARRAY_SIZE(names);
	for (i = 0; i < n; i++)
		names[i] = v->rows[first + i].name;
	for (;;) {
		l->name_w = COLS - fixed_width(v, l);
		if (l->name_w < 1)
			l->name_w = 1;
		memset(l->cut, 0, sizeof(l->cut));
		if (cut_names_unique(names, n, l->name_w, l->cut))
			return;		/* no memory: names shown whole */
		for (i = 0, longest = 0; i < n; i++)
			if (!l->cut[i] && strlen(names[i]) > longest)
				longest = strlen(names[i]);
		if (longest <= (size_t)l->name_w || !l->nr_cols)
			return;
		l->nr_cols--;
	}
}

static void draw_help(void)
{
	static const char *const lines[] = {
		"pmiprof top: keys",
		"",
		"  Up/Down, j/k     move the selection",
		"  PgUp/PgDn, Space a page up or down; Home/End first/last row",
		"  Enter            zoom: a process's (thread's, DSO's) functions, a function's lines",
		"  Esc, Backspace   back to the view before the zoom",
		"  s                next sort column: samples, each event, each metric, name",
		"  e                next event: its rate column comes first",
		"  f, /             filter rows by name (Enter keeps it, Esc clears it)",
		"  p                pause: keep this screen (recording goes on)",
		"  q                quit",
		"  ?, h, F1         this help",
		"",
		"Rates are per second over the last -d (or --decay) seconds; TREND is the",
		"change of the share since the previous refresh; IPC, MPKI and the",
		"branch-miss rate appear when their events are recorded.",
		"",
		"Press any key to return.",
	};
	size_t i;

	erase();
	for (i = 0; i < ARRAY_SIZE(lines) && (int)i < LINES; i++)
		mvaddnstr((int)i, 0, lines[i], COLS);
	refresh();
}

static void draw_keys(const struct top_ui *ui)
{
	static const char *const keys[][2] = {
		{ "Enter", "Zoom" }, { "Esc", "Back" }, { "s", "Sort" }, { "e", "Event" },
		{ "f", "Filter" }, { "p", "Pause" }, { "q", "Quit" }, { "?", "Help" },
	};
	size_t i;

	move(LINES - 1, 0);
	clrtoeol();
	if (ui->editing) {
		attron(A_REVERSE);
		addnstr("filter:", COLS);
		attroff(A_REVERSE);
		printw(" %s_", ui->filter);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		int y, x;

		getyx(stdscr, y, x);
		(void)y;
		if (x + (int)(strlen(keys[i][0]) + strlen(keys[i][1])) + 1 > COLS)
			break;
		attron(A_REVERSE);
		addstr(keys[i][0]);
		attroff(A_REVERSE);
		printw("%s ", keys[i][1]);
	}
}

static void draw_heading(const struct top_view *v, const struct layout *l, int y,
			 const char *sort)
{
	char b[192], cn[64];
	int i;

	move(y, 0);
	clrtoeol();
	attron(A_BOLD | A_UNDERLINE);
	if (top_key_head(v)[0])
		printw("%*s ", KEY_COL_W, top_key_head(v));
	printw("%*s %*s", SHARE_W, "%", TREND_W, "TREND");
	for (i = 0; i < l->nr_cols; i++) {
		if (l->cols[i] < PMIPROF_MAX_EVENTS)
			printw(" %*.*s", RATE_W, RATE_W,
			       top_rate_head(v, (uint32_t)l->cols[i], b, sizeof(b)));
		else
			printw(" %*.*s", METRIC_W, METRIC_W, column_name(
			       v->ms.m[l->cols[i] - PMIPROF_MAX_EVENTS].name, cn, sizeof(cn)));
	}
	printw("  %s", top_name_head(v));
	attroff(A_BOLD | A_UNDERLINE);
	getyx(stdscr, y, i);
	snprintf(b, sizeof(b), "  sort: %s", sort);
	if (i + (int)strlen(b) < COLS)
		addstr(b);
}

static void draw_row(const struct top_view *v, const struct top_row *r, const struct layout *l,
		     bool cut, bool selected, int y)
{
	char b[96], nb[300];
	int i, x, y0 = y;

	move(y, 0);
	clrtoeol();
	if (selected)
		attron(A_REVERSE);
	if (top_key_head(v)[0])
		printw("%*s ", KEY_COL_W, top_key_cell(v, r, b, sizeof(b)));
	printw("%*.1f %*s", SHARE_W, r->share, TREND_W, top_trend_cell(r, b, sizeof(b)));
	for (i = 0; i < l->nr_cols; i++) {
		if (l->cols[i] < PMIPROF_MAX_EVENTS)
			printw(" %*s", RATE_W, top_rate_cell(v, r, (uint32_t)l->cols[i], b,
							     sizeof(b), RATE_W));
		else
			printw(" %*s", METRIC_W, top_metric_cell(
			       v, r, (uint32_t)(l->cols[i] - PMIPROF_MAX_EVENTS), b, sizeof(b)));
	}
	printw("  %s", cut ? fit(nb, sizeof(nb), r->name, l->name_w) : r->name);
	getyx(stdscr, y, x);
	/* the detail (a function's DSO, exited) only where it fits whole */
	snprintf(nb, sizeof(nb), "%s%s%s", r->detail[0] ? "  " : "", r->detail,
		 r->exited ? "  (exited)" : "");
	if (y == y0 && x + (int)strlen(nb) < COLS)
		addstr(nb);
	if (selected) {
		for (getyx(stdscr, y, x); y == y0 && x < COLS - 1; x++)
			addch(' ');
		attroff(A_REVERSE);
	}
}

void top_screen_draw(struct top_ui *ui, const struct top_view *v, const struct top_origin *o)
{
	char lines[TOP_HEADER_LINES][320], sort[160];
	struct top_sort so;
	struct layout l;
	uint32_t i, n, room = (uint32_t)rows_room();
	int k;

	if (ui->help) {
		draw_help();
		return;
	}
	if (ui->cursor >= v->nr)
		ui->cursor = v->nr ? v->nr - 1 : 0;
	if (ui->cursor < ui->first)
		ui->first = ui->cursor;
	if (ui->cursor >= ui->first + room)
		ui->first = ui->cursor - room + 1;
	if (ui->first + room > v->nr)
		ui->first = v->nr > room ? v->nr - room : 0;
	n = v->nr - ui->first < room ? v->nr - ui->first : room;
	erase();
	top_header(v, o, lines);
	for (k = 0; k < TOP_HEADER_LINES; k++)
		mvaddnstr(k, 0, lines[k], COLS);
	if (ui->filter[0] && !ui->editing) {
		char fl[96];

		snprintf(fl, sizeof(fl), "  filter: %s", ui->filter);
		mvaddnstr(TOP_HEADER_LINES - 1, COLS - (int)strlen(fl) > 0 ?
			  COLS - (int)strlen(fl) : 0, fl, COLS);
	}
	top_screen_sort(ui, v, &so, sort, sizeof(sort));
	lay_out(ui, v, ui->first, n, &l);
	draw_heading(v, &l, TOP_HEADER_LINES, sort);
	for (i = 0; i < n; i++)
		draw_row(v, &v->rows[ui->first + i], &l, i < ARRAY_SIZE(l.cut) && l.cut[i],
			 ui->first + i == ui->cursor, TOP_HEADER_LINES + 1 + (int)i);
	if (!v->nr)
		mvaddnstr(TOP_HEADER_LINES + 1, 0, "(no samples in the last seconds)", COLS);
	draw_keys(ui);
	refresh();
}
