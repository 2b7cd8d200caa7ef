// SPDX-License-Identifier: GPL-2.0
/*
 * test_access_rules.c - the module's access decisions (kernel/access.h:
 * system-wide session, kernel RIPs under LOCKDOWN_PERF, kernel-mode counting
 * (CAP_PERFMON or the administrator's group_kernel_count), per-task following
 * by ptrace's READ_REALCREDS rule) over every combination of
 * perf_event_paranoid level (-1..3), capability, lockdown and target facts,
 * against the table of docs/kernel-module.md ("Who may follow what") and
 * against perf 6.1's own rule at each paranoid level.  Each check is also
 * run on deliberately wrong rules, which it must reject: the test can fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "../../kernel/access.h"

/* The module's decisions, or a mutant of them. */
struct rules {
	const char *name;
	bool (*session)(const struct pmiprof_access_opener *o, const struct pmiprof_access_req *r);
	bool (*kernel_ips)(const struct pmiprof_access_opener *o,
			   const struct pmiprof_access_req *r);
	bool (*follow)(const struct pmiprof_follow_facts *f);
	bool (*kernel_count)(const struct pmiprof_access_opener *o,
			     const struct pmiprof_access_req *r);
};

/*
 * The documented table, row by row, written from the text and not from
 * kernel/access.h.  The module does not read perf_event_paranoid: the
 * paranoid argument must not change any answer.
 */
static bool doc_session(int paranoid, bool perfmon, bool task)
{
	(void)paranoid;
	/* "system-wide session: CAP_PERFMON or CAP_SYS_ADMIN"; per-task: the follow rule */
	return task ? true : perfmon;
}

static bool doc_kernel_ips(int paranoid, bool perfmon, bool locked_down, bool asked)
{
	(void)paranoid;
	/* "kernel RIPs: the same, and no confidentiality lockdown (LOCKDOWN_PERF)" */
	if (!asked)
		return true;
	if (locked_down)
		return false;
	return perfmon;
}

static bool doc_kernel_count(int paranoid, bool perfmon, bool group_param, bool asked)
{
	(void)paranoid;
	/* "kernel-mode counting: CAP_PERFMON, or the module parameter group_kernel_count=1" */
	if (!asked)
		return true;
	return perfmon || group_param;
}

static bool doc_follow(int paranoid, const struct pmiprof_follow_facts *f)
{
	bool creds_ok, mm_ok;

	(void)paranoid;
	/* "kernel threads never" */
	if (f->kthread)
		return false;
	/* "real uid and gid equal to every uid and gid ..., or CAP_SYS_PTRACE in the target's ns" */
	creds_ok = f->creds_match ? true : f->cap_ptrace_task;
	/* "then a dumpable mm, or CAP_SYS_PTRACE over the mm's namespace" (no mm: creds decide) */
	mm_ok = !f->has_mm ? true : (f->dumpable ? true : f->cap_ptrace_mm);
	return creds_ok && mm_ok;
}

/*
 * perf 6.1 (kernel/events/core.c, include/linux/perf_event.h, Debian's
 * paranoid-3 patch): cpu-wide events need CAP_PERFMON above paranoid 0
 * (perf_allow_cpu), kernel samples above 1 (perf_allow_kernel), anything
 * at 3; a per-task event needs ptrace_may_access() on the target.
 */
static bool perf_allows_cpu(int paranoid, bool perfmon)
{
	return paranoid <= 0 || perfmon;
}

static bool perf_allows_kernel(int paranoid, bool perfmon)
{
	return paranoid <= 1 || perfmon;
}

static bool perf_allows_task(int paranoid, bool perfmon, bool ptrace_ok)
{
	return (paranoid <= 2 || perfmon) && ptrace_ok;
}

static struct pmiprof_follow_facts facts_of(unsigned int bits)
{
	return (struct pmiprof_follow_facts){
		.kthread = bits & 1, .creds_match = bits & 2, .cap_ptrace_task = bits & 4,
		.has_mm = bits & 8, .dumpable = bits & 16, .cap_ptrace_mm = bits & 32,
	};
}

#define FOLLOW_COMBOS	64

/*
 * Every paranoid x CAP_PERFMON x lockdown x request x target combination;
 * returns how many answers differ from the table (printed when @verbose).
 */
static unsigned int mismatches(const struct rules *r, bool verbose)
{
	unsigned int bad = 0, bits;
	int p;

	for (p = -1; p <= 3; p++) {
		for (int cap = 0; cap < 2; cap++) {
			for (int lock = 0; lock < 4; lock++) {
				for (int req = 0; req < 8; req++) {
					struct pmiprof_access_opener o = { cap, lock & 1, lock & 2 };
					struct pmiprof_access_req q = { req & 1, req & 2, req & 4 };
					bool want = doc_session(p, cap, q.task) &&
						    doc_kernel_ips(p, cap, o.locked_down, q.kernel_ips) &&
						    doc_kernel_count(p, cap, o.group_kernel_count,
								     q.kernel_count);
					bool got = r->session(&o, &q) && r->kernel_ips(&o, &q) &&
						   r->kernel_count(&o, &q);

					if (got == want)
						continue;
					bad++;
					if (verbose)
						print_message("# %s: paranoid %d perfmon %d lockdown %d group_kernel_count %d task %d kernel_ips %d kernel_count %d: %s, table says %s\n",
							      r->name, p, cap, o.locked_down,
							      o.group_kernel_count, q.task,
							      q.kernel_ips, q.kernel_count,
							      got ? "allowed" : "refused",
							      want ? "allowed" : "refused");
				}
			}
		}
		for (bits = 0; bits < FOLLOW_COMBOS; bits++) {
			struct pmiprof_follow_facts f = facts_of(bits);

			if (r->follow(&f) == doc_follow(p, &f))
				continue;
			bad++;
			if (verbose)
				print_message("# %s: paranoid %d follow facts 0x%02x: %s\n", r->name, p,
					      bits, r->follow(&f) ? "allowed" : "refused");
		}
	}
	return bad;
}

static const struct rules module_rules = {
	"module", pmiprof_access_session, pmiprof_access_kernel_ips, pmiprof_access_follow,
	pmiprof_access_kernel_count,
};

static void module_rules_match_the_documented_table(void **state)
{
	(void)state;
	assert_int_equal(mismatches(&module_rules, true), 0);
}

/* Deliberately wrong rules: each must be caught. */
static bool wrong_kernel_ips_ignore_lockdown(const struct pmiprof_access_opener *o,
					     const struct pmiprof_access_req *r)
{
	return !r->kernel_ips || o->perfmon;
}

static bool wrong_kernel_ips_lockdown_only(const struct pmiprof_access_opener *o,
					   const struct pmiprof_access_req *r)
{
	return !r->kernel_ips || !o->locked_down;
}

static bool wrong_session_any(const struct pmiprof_access_opener *o,
			      const struct pmiprof_access_req *r)
{
	(void)o;
	(void)r;
	return true;
}

/* Before issue 36: EV_KERNEL accepted from any opener. */
static bool wrong_kernel_count_any(const struct pmiprof_access_opener *o,
				   const struct pmiprof_access_req *r)
{
	(void)o;
	(void)r;
	return true;
}

static bool wrong_kernel_count_ignores_param(const struct pmiprof_access_opener *o,
					     const struct pmiprof_access_req *r)
{
	return !r->kernel_count || o->perfmon;
}

static bool wrong_kernel_ips_with_group_param(const struct pmiprof_access_opener *o,
					      const struct pmiprof_access_req *r)
{
	return !r->kernel_ips || ((o->perfmon || o->group_kernel_count) && !o->locked_down);
}

static bool wrong_follow_ignore_dumpable(const struct pmiprof_follow_facts *f)
{
	return !f->kthread && (f->creds_match || f->cap_ptrace_task);
}

static bool wrong_follow_kthreads(const struct pmiprof_follow_facts *f)
{
	struct pmiprof_follow_facts g = *f;

	g.kthread = false;
	return pmiprof_access_follow(&g);
}

static bool wrong_follow_mm_cap_bypasses_creds(const struct pmiprof_follow_facts *f)
{
	return pmiprof_access_follow(f) || (!f->kthread && f->cap_ptrace_mm);
}

static bool wrong_follow_no_mm_refused(const struct pmiprof_follow_facts *f)
{
	return f->has_mm && pmiprof_access_follow(f);
}

static void wrong_rules_are_caught(void **state)
{
	static const struct rules wrong[] = {
		{ "kernel RIPs under lockdown", pmiprof_access_session,
		  wrong_kernel_ips_ignore_lockdown, pmiprof_access_follow, pmiprof_access_kernel_count },
		{ "kernel RIPs without CAP_PERFMON", pmiprof_access_session,
		  wrong_kernel_ips_lockdown_only, pmiprof_access_follow, pmiprof_access_kernel_count },
		{ "system-wide without CAP_PERFMON", wrong_session_any,
		  pmiprof_access_kernel_ips, pmiprof_access_follow, pmiprof_access_kernel_count },
		{ "non-dumpable followed", pmiprof_access_session, pmiprof_access_kernel_ips,
		  wrong_follow_ignore_dumpable, pmiprof_access_kernel_count },
		{ "kernel threads followed", pmiprof_access_session, pmiprof_access_kernel_ips,
		  wrong_follow_kthreads, pmiprof_access_kernel_count },
		{ "mm capability instead of credentials", pmiprof_access_session,
		  pmiprof_access_kernel_ips, wrong_follow_mm_cap_bypasses_creds, pmiprof_access_kernel_count },
		{ "exited leader refused", pmiprof_access_session, pmiprof_access_kernel_ips,
		  wrong_follow_no_mm_refused, pmiprof_access_kernel_count },
		{ "ring-0 counting for any opener", pmiprof_access_session,
		  pmiprof_access_kernel_ips, pmiprof_access_follow, wrong_kernel_count_any },
		{ "group_kernel_count ignored", pmiprof_access_session,
		  pmiprof_access_kernel_ips, pmiprof_access_follow,
		  wrong_kernel_count_ignores_param },
		{ "group_kernel_count granting kernel RIPs too", pmiprof_access_session,
		  wrong_kernel_ips_with_group_param, pmiprof_access_follow,
		  pmiprof_access_kernel_count },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		unsigned int n = mismatches(&wrong[i], false);

		print_message("# wrong rule '%s': %u mismatches\n", wrong[i].name, n);
		assert_true(n > 0);
	}
}

/*
 * Against perf at each paranoid level: the module never grants a
 * system-wide session, kernel RIPs or (without group_kernel_count) ring-0
 * counting that perf would refuse, and refuses ring-0 counting exactly
 * where perf's paranoid 2 does (with the parameter: perf's paranoid 1); per-task
 * without CAP_PERFMON it grants exactly what perf grants at paranoid <= 2
 * (perf's own rule is ptrace_may_access); at 3 (Debian) it grants per-task
 * to the device's group, the documented departure ("not consulted").
 */
static void module_rules_against_perf_per_paranoid_level(void **state)
{
	unsigned int bits, departures = 0;
	int p;

	(void)state;
	for (p = -1; p <= 3; p++) {
		for (int cap = 0; cap < 2; cap++) {
			for (int lock = 0; lock < 2; lock++) {
				struct pmiprof_access_opener o = { cap, lock, false };
				struct pmiprof_access_opener admin = { cap, lock, true };
				struct pmiprof_access_req cpu = { false, false, false };
				struct pmiprof_access_req kern = { true, true, false };
				struct pmiprof_access_req count = { true, false, true };

				if (pmiprof_access_session(&o, &cpu))
					assert_true(perf_allows_cpu(p, cap));
				if (pmiprof_access_kernel_ips(&o, &kern) ||
				    pmiprof_access_kernel_ips(&admin, &kern))
					assert_true(perf_allows_kernel(p, cap));
				/* ring-0 counting: perf_allow_kernel() for !exclude_kernel */
				assert_int_equal(pmiprof_access_kernel_count(&o, &count),
						 perf_allows_kernel(2, cap));
				if (pmiprof_access_kernel_count(&o, &count))
					assert_true(perf_allows_kernel(p, cap));
				/* the administrator's parameter: paranoid 1 for counting */
				if (pmiprof_access_kernel_count(&admin, &count))
					assert_true(perf_allows_kernel(1, cap));
			}
		}
		for (bits = 0; bits < FOLLOW_COMBOS; bits++) {
			struct pmiprof_follow_facts f = facts_of(bits);
			bool mod = pmiprof_access_follow(&f);
			/* ptrace_may_access(READ_REALCREDS), as the table states it */
			bool perf = perf_allows_task(p, false, doc_follow(p, &f));

			if (p <= 2)
				assert_int_equal(mod, perf);
			else if (mod != perf)
				departures++;
		}
	}
	print_message("# paranoid 3: %u target combinations followed by the group, refused by perf\n",
		      departures);
	assert_true(departures > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(module_rules_match_the_documented_table),
		cmocka_unit_test(wrong_rules_are_caught),
		cmocka_unit_test(module_rules_against_perf_per_paranoid_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
