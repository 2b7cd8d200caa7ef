// SPDX-License-Identifier: GPL-2.0
/*
 * -e lists (event_list.h): each comma-separated token is one event
 * (pm_event_parse_one()) or the topdown group (td_expand()).
 */
#include "event_list.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "topdown.h"
#include "util.h"

int pm_events_parse(const char *spec, struct pm_event_list *out, char *err, size_t err_len)
{
	char *copy, *tok, *save = NULL;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	copy = strdup(spec);
	if (!copy)
		return pm_set_err(err, err_len, -ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool trig;

		if (!strncmp(tok, "topdown", 7) && (!tok[7] || tok[7] == ':')) {
			ret = tok[7] ? pm_set_err(err, err_len, -EINVAL, "'%s': topdown takes no "
					       "modifiers", tok) : td_expand(out, err, err_len);
			if (ret)
				break;
			continue;
		}
		if (out->nr == PMIPROF_MAX_EVENTS) {
			ret = pm_set_err(err, err_len, -E2BIG, "too many events: at most %d per recording",
				      PMIPROF_MAX_EVENTS);
			break;
		}
		ret = pm_event_parse_one(tok, &out->ev[out->nr], &trig, err, err_len);
		if (ret)
			break;
		if (trig) {
			if (out->trigger_marked) {
				ret = pm_set_err(err, err_len, -EINVAL,
					      "only one event can be the trigger (:T on '%s' and '%s')",
					      out->ev[out->trigger].name, tok);
				break;
			}
			out->trigger_marked = true;
			out->trigger = out->nr;
		}
		out->nr++;
	}
	if (!ret && !out->nr)
		ret = pm_set_err(err, err_len, -EINVAL, "empty event list");
	free(copy);
	return ret;
}
