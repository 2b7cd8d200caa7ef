// SPDX-License-Identifier: GPL-2.0
/*
 * spin32.c - a 32-bit (i386, compat) program without libc (the build host
 * has no 32-bit libc): nested calls with frame pointers spin for about
 * SPIN_ITERS iterations, then exit through int 0x80 (tests/vm/t200).
 * Built with -m32 -nostdlib -static -ffreestanding.
 */
#define SPIN_ITERS	200000000u

static volatile unsigned int sink;

static __attribute__((noinline)) void leaf(unsigned int i)
{
	sink += i * 3;
}

static __attribute__((noinline)) void middle(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		leaf(i);
}

void _start(void)
{
	for (unsigned int k = 0; k < SPIN_ITERS / 1000000u; k++)
		middle(1000000u);
	__asm__ volatile("int $0x80" : : "a"(1), "b"(0));
	for (;;)
		;
}
