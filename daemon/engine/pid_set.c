// SPDX-License-Identifier: GPL-2.0
/* Growable pid set with backward-shift deletion (see pid_set.h). */
#include "engine/pid_set.h"

#include <errno.h>
#include <stdlib.h>

static size_t home(const struct pid_set *s, uint32_t pid)
{
	return (size_t)(((uint64_t)pid * 0x9e3779b97f4a7c15ull) >> 20) & (s->cap - 1);
}

static size_t find(const struct pid_set *s, uint32_t pid)
{
	size_t i = home(s, pid);

	while (s->slots[i] && s->slots[i] != pid + 1)
		i = (i + 1) & (s->cap - 1);
	return i;
}

bool pid_set_contains(const struct pid_set *s, uint32_t pid)
{
	/* pid + 1 of -1 is 0, an empty slot's value: -1 would be "found" anywhere */
	return pid != UINT32_MAX && s->cap && s->slots[find(s, pid)] == pid + 1;
}

static int grow(struct pid_set *s)
{
	struct pid_set n = { .cap = s->cap ? s->cap * 2 : 64 };
	size_t i;

	n.slots = calloc(n.cap, sizeof(*n.slots));
	n.threads = calloc(n.cap, sizeof(*n.threads));
	if (!n.slots || !n.threads) {
		free(n.slots);
		free(n.threads);
		return -ENOMEM;
	}
	for (i = 0; i < s->cap; i++)
		if (s->slots[i]) {
			size_t j = find(&n, s->slots[i] - 1);

			n.slots[j] = s->slots[i];
			n.threads[j] = s->threads[i];
			n.used++;
		}
	free(s->slots);
	free(s->threads);
	*s = n;
	return 0;
}

int pid_set_add(struct pid_set *s, uint32_t pid)
{
	size_t i;

	if (pid == UINT32_MAX)
		return -EINVAL;
	if (pid_set_contains(s, pid))
		return 0;
	if ((s->used + 1) * 4 > s->cap * 3 && grow(s))
		return -ENOMEM;
	i = find(s, pid);
	s->slots[i] = pid + 1;
	s->threads[i] = 0;
	s->used++;
	return 0;
}

int pid_set_add_pinned(struct pid_set *s, uint32_t pid)
{
	int ret = pid_set_add(s, pid);

	if (!ret)
		s->threads[find(s, pid)] = PID_SET_PINNED;
	return ret;
}

void pid_set_thread(struct pid_set *s, uint32_t pid, int delta)
{
	size_t i;

	if (!pid_set_contains(s, pid))
		return;
	i = find(s, pid);
	if (s->threads[i] == PID_SET_PINNED)
		return;
	if (delta > 0) {
		s->threads[i]++;
		return;
	}
	if (s->threads[i] > 1)
		s->threads[i]--;
	else
		pid_set_remove(s, pid);
}

void pid_set_remove(struct pid_set *s, uint32_t pid)
{
	size_t i, j;

	if (!pid_set_contains(s, pid))
		return;
	i = find(s, pid);
	s->slots[i] = 0;
	s->used--;
	for (j = (i + 1) & (s->cap - 1); s->slots[j]; j = (j + 1) & (s->cap - 1)) {
		size_t want = home(s, s->slots[j] - 1);

		/* Move j back to the hole at i if i lies cyclically in [want, j). */
		if ((j > i && (want <= i || want > j)) || (j < i && want <= i && want > j)) {
			s->slots[i] = s->slots[j];
			s->threads[i] = s->threads[j];
			s->slots[j] = 0;
			i = j;
		}
	}
}

void pid_set_free(struct pid_set *s)
{
	free(s->slots);
	free(s->threads);
	s->slots = NULL;
	s->threads = NULL;
	s->cap = s->used = 0;
}
