/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Phases drawn (analysis/phases.h gives them): a colour per phase for
 * legends and pages, and plot --phases' gnuplot bands.
 */
#ifndef PMIPROF_REPORT_PHASES_BANDS_H
#define PMIPROF_REPORT_PHASES_BANDS_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/phases.h"

/*
 * plot: gnuplot rectangles (objects from 'first') colouring the time axis
 * by phase; returns the number of phases (key entries: phases_color()).
 */
uint32_t phases_gnuplot_bands(FILE *f, const struct phases_result *r, uint32_t first);
const char *phases_color(uint32_t phase);

#endif /* PMIPROF_REPORT_PHASES_BANDS_H */
