/* Running gnuplot for the commands that draw (plot, diff --plot). */
#ifndef PMIPROF_REPORT_GNUPLOT_H
#define PMIPROF_REPORT_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>

/* Is a gnuplot executable on PATH? */
bool gnuplot_found(void);
/*
 * gnuplot SCRIPT, or gnuplot -e EXPR; its exit status (127: not installed),
 * -1 on failure.  Its stderr never reaches the terminal: its start is kept in
 * err (errlen bytes; NULL: dropped), for the caller to show on failure.
 */
int gnuplot_run(const char *script, const char *expr, char *err, size_t errlen);
/* gnuplot's messages (from gnuplot_run()) on stderr, one indented line each. */
void gnuplot_print_errors(const char *err);
/* The terminal for OUT's extension (.png, .svg, .pdf; pngcairo when gnuplot has it), or NULL. */
const char *gnuplot_terminal(const char *out);

#endif
