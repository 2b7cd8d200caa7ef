/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event lists users type after -e: comma-separated events (events.h)
 * and the named group "topdown" (topdown.h), with at most one :T trigger.
 * Above both so neither includes the other.
 */
#ifndef PMIPROF_EVENT_LIST_H
#define PMIPROF_EVENT_LIST_H

#include <stddef.h>

#include "events.h"

/*
 * Parse a comma-separated event list.  Returns 0, or -EINVAL/-ENOENT/-E2BIG
 * with a complete message in err ("unknown event 'instrucions'; did you mean
 * 'instructions'?").
 */
int pm_events_parse(const char *spec, struct pm_event_list *out, char *err, size_t err_len);

#endif /* PMIPROF_EVENT_LIST_H */
