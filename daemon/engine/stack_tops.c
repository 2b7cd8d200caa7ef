// SPDX-License-Identifier: GPL-2.0
/* Initial stack pointers of processes, for trimming dwarf stack copies (stack_tops.h). */
#include "engine/stack_tops.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stack_top_slot {
	uint32_t pid;
	uint64_t top;		/* UINT64_MAX: read, unknown (do not read again) */
};

#define UNKNOWN	UINT64_MAX

static struct stack_top_slot *find(const struct stack_tops *t, uint32_t pid)
{
	uint32_t i;

	if (!t->cap)
		return NULL;
	for (i = (pid * 0x9e3779b1u) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		if (t->slots[i].pid == pid || !t->slots[i].pid)
			return &t->slots[i];
	}
}

static int grow(struct stack_tops *t)
{
	struct stack_tops n = { .cap = t->cap ? t->cap * 2 : 64, .no_proc = t->no_proc };
	uint32_t i;

	n.slots = calloc(n.cap, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		if (t->slots[i].pid) {
			*find(&n, t->slots[i].pid) = t->slots[i];
			n.used++;
		}
	}
	free(t->slots);
	*t = n;
	return 0;
}

int stack_tops_set(struct stack_tops *t, uint32_t pid, uint64_t v)
{
	struct stack_top_slot *s;

	if (!pid)
		return 0;
	if ((t->used + 1) * 2 > t->cap && grow(t))
		return -ENOMEM;
	s = find(t, pid);
	if (!s->pid) {
		s->pid = pid;
		t->used++;
	}
	s->top = v;
	return 0;
}

/* Field 28 (startstack) of /proc/PID/stat; comm (field 2) may hold spaces and ')'. */
static uint64_t read_proc(uint32_t pid)
{
	char path[40], buf[1024], *p;
	unsigned long long v = 0;
	size_t n;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* p + 2 is field 3 */
	for (p += 2, field = 3; *p && field < 28; p++)
		if (*p == ' ')
			field++;
	if (field != 28 || sscanf(p, "%llu", &v) != 1)
		return 0;
	return v;
}

uint64_t stack_tops_get(struct stack_tops *t, uint32_t pid)
{
	struct stack_top_slot *s = find(t, pid);
	uint64_t v;

	if (s && s->pid == pid)
		return s->top == UNKNOWN ? 0 : s->top;
	if (t->no_proc)
		return 0;
	v = read_proc(pid);
	/* Out of memory: no cache, the copy stays whole. */
	stack_tops_set(t, pid, v ? v : UNKNOWN);
	return v;
}

void stack_tops_forget(struct stack_tops *t, uint32_t pid)
{
	struct stack_top_slot *s = find(t, pid);
	uint32_t i, j;

	if (!s || s->pid != pid)
		return;
	/* Backward-shift deletion keeps every probe chain intact. */
	i = (uint32_t)(s - t->slots);
	t->slots[i].pid = 0;
	t->used--;
	for (j = (i + 1) & (t->cap - 1); t->slots[j].pid; j = (j + 1) & (t->cap - 1)) {
		struct stack_top_slot e = t->slots[j];

		t->slots[j].pid = 0;
		*find(t, e.pid) = e;
	}
}

void stack_tops_free(struct stack_tops *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->used = 0;
}

uint64_t stack_tops_keep(uint64_t top, uint64_t sp, const uint8_t *data, uint64_t dyn)
{
	uint64_t off, argc, argv0;

	if (!top || top <= sp || top - sp > dyn || (top - sp) % 8 || top - sp + 16 > dyn)
		return dyn;
	off = top - sp;
	memcpy(&argc, data + off, 8);
	memcpy(&argv0, data + off + 8, 8);
	if (argc > (1u << 22))
		return dyn;
	if (argc ? argv0 <= top || argv0 - top > (64u << 20) : argv0 != 0)
		return dyn;
	return off;
}
