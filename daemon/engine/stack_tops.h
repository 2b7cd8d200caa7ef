/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where each process's initial stack frame starts (mm->start_stack, field
 * 28 of /proc/PID/stat: the address of argc at exec), so that dwarf-mode
 * stack copies of the main thread can drop the bytes above it: argv, envp,
 * auxv and their strings, which no unwinder reads (glibc's _start marks its
 * return address undefined) but which are most of every copy taken near
 * main (5 KiB of 5.5 KiB for a shallow program).  One /proc read per
 * process image; an exec or exit forgets the value.
 */
#ifndef PMIPROF_DAEMON_STACK_TOPS_H
#define PMIPROF_DAEMON_STACK_TOPS_H

#include <stdbool.h>
#include <stdint.h>

struct stack_tops {
	struct stack_top_slot *slots;	/* open addressing, pid 0 = free */
	uint32_t cap, used;		/* cap: power of two or 0 */
	bool no_proc;			/* never read /proc (tests set values) */
};

/* pid's start_stack, 0 when unknown (gone, unreadable, or no_proc unset). */
uint64_t stack_tops_get(struct stack_tops *t, uint32_t pid);
/* Remember v for pid (0 or -ENOMEM). */
int stack_tops_set(struct stack_tops *t, uint32_t pid, uint64_t v);
/* pid exec'd or exited: read again next time. */
void stack_tops_forget(struct stack_tops *t, uint32_t pid);
void stack_tops_free(struct stack_tops *t);

/*
 * How many of the dyn bytes copied from sp up to keep: the offset of top
 * when the copy holds what exec put there (argc, then argv[0] above top or
 * argv's NULL), else all of them.
 */
uint64_t stack_tops_keep(uint64_t top, uint64_t sp, const uint8_t *data, uint64_t dyn);

#endif /* PMIPROF_DAEMON_STACK_TOPS_H */
