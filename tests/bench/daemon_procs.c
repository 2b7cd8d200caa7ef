// SPDX-License-Identifier: GPL-2.0
/*
 * Load for the daemon benchmarks (b80_daemon.sh, b85_daemon_soak.sh):
 *   daemon_procs live N BURN_US PERIOD_MS
 *       N processes named dproc0000.. (prctl PR_SET_NAME), each burning
 *       BURN_US of CPU every PERIOD_MS, so every one of them is sampled
 *       now and then; until SIGTERM or SIGINT, which ends them all.
 *   daemon_procs churn TOTAL PER_SECOND NAMES
 *       TOTAL short-lived processes, PER_SECOND of them a second, each
 *       named churnNNN (one of NAMES names), burning 1 ms and exiting.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void burn(double us)
{
	double end = now_s() + us / 1e6;
	volatile unsigned long x = 0;

	while (now_s() < end)
		x++;
}

static void name_self(const char *fmt, unsigned int i)
{
	char name[16];

	snprintf(name, sizeof(name), fmt, i);
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

static int live(unsigned int n, double burn_us, unsigned int period_ms)
{
	unsigned int i;

	pid_t parent = getpid();

	setpgid(0, 0);	/* kill(0) below ends our processes, not the caller's */
	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			break;
		}
		if (p == 0) {
			struct timespec ts = { .tv_sec = period_ms / 1000,
					       .tv_nsec = (long)(period_ms % 1000) * 1000000L };

			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			/* a parent killed with SIGKILL: end too (a subreaper may adopt us, not init) */
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			if (getppid() != parent)
				_exit(0);
			name_self("dproc%04u", i);
			/* spread the wake-ups over the period */
			usleep((useconds_t)((i * 7919u) % (period_ms * 1000u + 1)));
			for (;;) {
				burn(burn_us);
				nanosleep(&ts, NULL);
				if (getppid() != parent)
					_exit(0);
			}
		}
	}
	printf("%u processes running\n", i);
	fflush(stdout);
	while (!stop)
		pause();
	kill(0, SIGTERM);
	while (wait(NULL) > 0)
		;
	return 0;
}

static int churn(unsigned int total, unsigned int per_s, unsigned int names)
{
	double t0 = now_s();
	unsigned int i;

	for (i = 0; i < total && !stop; i++) {
		double due = t0 + (double)i / per_s;
		pid_t p;

		while (now_s() < due)
			usleep(200);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		p = fork();
		if (p == 0) {
			name_self("churn%03u", i % (names ? names : 1));
			burn(1000);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	printf("%u short-lived processes in %.1f s\n", i, now_s() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (argc == 5 && !strcmp(argv[1], "live"))
		return live((unsigned int)atoi(argv[2]), atof(argv[3]), (unsigned int)atoi(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "churn"))
		return churn((unsigned int)atoi(argv[2]), (unsigned int)atoi(argv[3]),
			     (unsigned int)atoi(argv[4]));
	fprintf(stderr, "usage: daemon_procs live N BURN_US PERIOD_MS | churn TOTAL PER_SECOND NAMES\n");
	return 2;
}
