// SPDX-License-Identifier: GPL-2.0
/*
 * sighandler [SECONDS]: most of the run is spent inside a signal handler.
 * A 1 ms interval timer (ITIMER_REAL, SIGALRM) interrupts main_spin();
 * the handler, in_handler(), spins for about 0.8 ms of the 1 ms, so about
 * 80 % of the samples have the stack in_handler <- __restore_rt (the
 * signal trampoline the kernel made the handler return to) <- main_spin
 * <- main.  Prints "signals N" at the end.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t nr_signals;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void in_handler(int sig)
{
	double end = now() + 0.0008;

	(void)sig;
	nr_signals++;
	while (now() < end)
		for (int i = 0; i < 100; i++)
			sink = sink * 6364136223846793005ul + 1;
}

__attribute__((noinline)) static void main_spin(double end)
{
	while (now() < end)
		for (int i = 0; i < 100; i++)
			sink = sink * 2862933555777941757ul + 3;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1);
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = in_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	main_spin(end);
	it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);
	printf("signals %d\n", (int)nr_signals);
	return 0;
}
