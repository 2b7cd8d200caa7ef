// SPDX-License-Identifier: GPL-2.0
/*
 * Call stacks of a report session (see callstack.h): the chunk-local STACK
 * table, symbolization of its frames, dwarf unwinding and the fp leaf
 * fix-up through unwind.c, and interning into report-wide ids.
 *
 * Cost per sample: a STACK entry remembers the chain it resolved to for the
 * last (address-space tag, sample mode) it saw, and (chain, leaf symbol,
 * fix-up symbol) -> stack id is one hash lookup; frames are symbolized once
 * per distinct stack per chunk (through the session's address cache).
 * dwarf samples are unwound one by one (their stacks differ byte by byte).
 */
#include "stacks/callstack.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "input/session.h"
#include "stacks/unwind.h"
#include "util.h"

#define KERNEL_START	0xffff800000000000ULL
#define MAX_RAW_ID	(1u << 20)	/* chunk-local ids beyond this are damage */
#define MAX_FRAMES	(PMIPROF_MAX_STACK + 8)
#define PERF_REG_X86_IP	8
#define NO_CHAIN	0xffffffffu	/* chain id of samples without a STACK */
/*
 * --inline: one address is up to MAX_INLINE frames (its inline chain), so a
 * stack may have more frames than the recorded limit.
 */
#define MAX_INLINE	65
#define MAX_OUT		(MAX_FRAMES * 4)
#define NO_INLINE	(HM_EMPTY - 1)	/* inl_at value: resolve through the session */
#define KEY_CHAIN	0x80000000u	/* a frame key naming an inline chain, not a sym */

/* Interned frame lists: chains (a STACK's resolved frames) or final stacks. */
struct itab {
	struct cs_stack *v;
	uint8_t *rooted;		/* per entry: the list reached a root */
	uint32_t n, cap;
	uint32_t *slots;		/* ids, UINT32_MAX = free */
	uint64_t *hashes;		/* per entry */
	uint32_t mask;
};

struct raw_stack {
	uint32_t off, nr, nr_kernel;
	bool defined;
	/* the chain this entry resolved to last, and for which tag/mode */
	uint32_t chain, tag;
	bool kmode, have_chain;
};

struct callstacks {
	struct session *s;
	bool leaf_fixup;
	uint32_t mode, cg_flags;
	struct unwinder *u;
	bool unwinder_failed;
	/* the current chunk's STACK table */
	bool have_chunk;
	uint32_t chunk_seq;
	struct raw_stack *raw;
	uint32_t nr_raw, cap_raw;
	uint64_t *ips;
	uint32_t nr_ips, cap_ips;
	/* interned */
	struct itab chains, stacks;
	struct hashmap final;		/* (chain << 32 | leaf sym, fixup sym + 1) -> stack id */
	uint8_t *root_sym;		/* per sym: 0 unknown, 1 a root, 2 not */
	uint32_t cap_root_sym;
	int64_t trunc_sym;
	struct cs_stats st;
	/* --inline: (looked-up user address, space tag) -> inline chain id or NO_INLINE */
	bool inl;
	struct hashmap inl_at;
	struct cs_frame scratch[MAX_OUT + 2 * MAX_INLINE + 1];
	struct cs_frame leafbuf[MAX_INLINE], fixbuf[MAX_INLINE], dwbuf[MAX_OUT];
	uint64_t uips[MAX_FRAMES];
};

uint32_t callstacks_count(const struct callstacks *c)
{
	return c ? c->stacks.n : 0;
}

const struct cs_stack *callstacks_get(const struct callstacks *c, uint32_t id)
{
	return c && id < c->stacks.n ? &c->stacks.v[id] : NULL;
}

const struct cs_stats *callstacks_stats(const struct callstacks *c)
{
	return &c->st;
}

void callstacks_print_warnings(const struct callstacks *c)
{
	/*
	 * An fp walk stops at the first frame of code built without frame
	 * pointers (most distributions' default): most stacks cut short say
	 * the stacks are not what the program did.
	 */
	if (c && c->mode == PMIPROF_CALL_GRAPH_FP && c->st.samples &&
	    2 * c->st.truncated > c->st.samples)
		pm_warn("%" PRIu64 " of %" PRIu64 " call stacks (%.0f%%) end in [truncated]: the "
			"frame-pointer walk stops in code built without frame pointers; record "
			"with --call-graph dwarf for whole stacks", c->st.truncated, c->st.samples,
			100.0 * (double)c->st.truncated / (double)c->st.samples);
	/* dwarf: CFI ends in code that has none (a JIT's) or the stack copy ends */
	else if (c && c->mode == PMIPROF_CALL_GRAPH_DWARF && c->st.samples &&
		 2 * c->st.truncated > c->st.samples)
		pm_warn("%" PRIu64 " of %" PRIu64 " call stacks (%.0f%%) end in [truncated]: the "
			"dwarf unwinder stops where code has no CFI and no frame pointer (JIT code "
			"built without them) or where the stack copy ends; record with a larger "
			"copy (--call-graph dwarf,65528) or -g", c->st.truncated, c->st.samples,
			100.0 * (double)c->st.truncated / (double)c->st.samples);
}

/* ---- interning ---- */

static uint64_t frames_hash(const struct cs_frame *f, uint32_t nr)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ nr;
	uint32_t i;

	for (i = 0; i < nr; i++) {
		h ^= (uint64_t)f[i].sym << 8 ^ f[i].flags;
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

static bool frames_equal(const struct cs_stack *a, const struct cs_frame *f, uint32_t nr)
{
	uint32_t i;

	if (a->nr != nr)
		return false;
	for (i = 0; i < nr; i++)
		if (a->frames[i].sym != f[i].sym || a->frames[i].flags != f[i].flags)
			return false;
	return true;
}

static int itab_grow_slots(struct itab *t)
{
	uint32_t cap = t->mask ? (t->mask + 1) * 2 : 1024, i, j;
	uint32_t *slots = malloc(cap * sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	memset(slots, 0xff, cap * sizeof(*slots));
	for (i = 0; i < t->n; i++) {
		for (j = (uint32_t)t->hashes[i] & (cap - 1); slots[j] != UINT32_MAX;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = i;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = cap - 1;
	return 0;
}

/* The id of frames in t (added when new, with rooted), or -ENOMEM. */
static int64_t itab_intern(struct itab *t, const struct cs_frame *f, uint32_t nr, bool rooted)
{
	uint64_t h = frames_hash(f, nr);
	struct cs_frame *copy;
	uint32_t j, id;

	if ((!t->mask || (t->n + 1) * 2 > t->mask + 1) && itab_grow_slots(t))
		return -ENOMEM;
	for (j = (uint32_t)h & t->mask; t->slots[j] != UINT32_MAX; j = (j + 1) & t->mask) {
		id = t->slots[j];
		if (t->hashes[id] == h && frames_equal(&t->v[id], f, nr))
			return id;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		struct cs_stack *v = realloc(t->v, cap * sizeof(*v));
		uint64_t *hs;
		uint8_t *r;

		if (!v)
			return -ENOMEM;
		t->v = v;
		hs = realloc(t->hashes, cap * sizeof(*hs));
		if (!hs)
			return -ENOMEM;
		t->hashes = hs;
		r = realloc(t->rooted, cap);
		if (!r)
			return -ENOMEM;
		t->rooted = r;
		t->cap = cap;
	}
	copy = malloc((nr ? nr : 1) * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, f, nr * sizeof(*copy));
	id = t->n++;
	t->v[id] = (struct cs_stack){ nr, copy };
	t->hashes[id] = h;
	t->rooted[id] = rooted;
	t->slots[j] = id;
	return id;
}

static void itab_free(struct itab *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		free((void *)t->v[i].frames);
	free(t->v);
	free(t->hashes);
	free(t->rooted);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

int64_t callstacks_intern(struct callstacks *c, const struct cs_frame *frames, uint32_t nr)
{
	uint32_t i;
	bool rooted = true;

	for (i = 0; i < nr; i++)
		if (frames[i].flags & CS_F_TRUNCATED)
			rooted = false;
	return itab_intern(&c->stacks, frames, nr, rooted);
}

/* ---- lifetime ---- */

int callstacks_new(struct callstacks **out, struct session *s, bool leaf_fixup)
{
	struct callstacks *c = calloc(1, sizeof(*c));
	int err;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->s = s;
	c->leaf_fixup = leaf_fixup;
	c->mode = s->h->call_graph;
	c->cg_flags = s->h->call_graph_flags;
	c->trunc_sym = -1;
	c->inl = s->opts.sym.inline_frames;
	err = hm_init(&c->final, 1024);
	if (!err && c->inl) {
		err = hm_init(&c->inl_at, 1024);
		if (err)
			hm_free(&c->final);
	}
	if (err) {
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

void callstacks_free(struct callstacks *c)
{
	if (!c)
		return;
	if (c->u)
		unwinder_free(c->u);
	free(c->raw);
	free(c->ips);
	itab_free(&c->chains);
	itab_free(&c->stacks);
	hm_free(&c->final);
	if (c->inl)
		hm_free(&c->inl_at);
	free(c->root_sym);
	free(c);
}

/* ---- the chunk's STACK table ---- */

static void new_chunk(struct callstacks *c, uint32_t seq)
{
	if (c->have_chunk && c->chunk_seq == seq)
		return;
	c->have_chunk = true;
	c->chunk_seq = seq;
	c->nr_raw = 0;
	c->nr_ips = 0;
}

int callstacks_define(struct callstacks *c, uint32_t chunk_seq, const struct trace_stack *st)
{
	struct raw_stack *r;
	uint32_t nr = st->nr;

	new_chunk(c, chunk_seq);
	if (st->id >= MAX_RAW_ID || nr > PMIPROF_MAX_STACK || (nr && !st->ips)) {
		c->st.damaged++;
		return 0;
	}
	if (pm_grow(&c->raw, &c->cap_raw, (uint64_t)st->id + 1, 64, sizeof(*c->raw)) ||
	    pm_grow(&c->ips, &c->cap_ips, (uint64_t)c->nr_ips + nr, 1024, sizeof(*c->ips)))
		return -ENOMEM;
	while (c->nr_raw <= st->id)
		c->raw[c->nr_raw++].defined = false;
	r = &c->raw[st->id];
	memset(r, 0, sizeof(*r));
	r->off = c->nr_ips;
	r->nr = nr;
	r->nr_kernel = st->nr_kernel <= nr ? st->nr_kernel : nr;
	if (st->nr_kernel > nr)
		c->st.damaged++;
	r->defined = true;
	memcpy(c->ips + c->nr_ips, st->ips, nr * sizeof(*c->ips));
	c->nr_ips += nr;
	return 0;
}

/* ---- roots ---- */

static bool root_name(const char *n, bool kernel)
{
	static const char *const user[] = {
		"_start", "main", "__libc_start_main", "__libc_start_call_main",
		"__libc_start_main_impl", "start_thread", "clone", "clone3", "__clone",
		"__clone3", "__GI___clone", "__GI___clone3", "thread_start",
	};
	static const char *const kern[] = {
		"ret_from_fork", "ret_from_fork_asm", "start_kernel", "secondary_startup_64",
		"secondary_startup_64_no_verify", "common_startup_64", "x86_64_start_kernel",
		"x86_64_start_reservations", "cpu_startup_entry", "rest_init",
	};
	const char *const *v = kernel ? kern : user;
	size_t i, k = kernel ? sizeof(kern) / sizeof(kern[0]) : sizeof(user) / sizeof(user[0]);
	/* Without a symbol version (__libc_start_main@@GLIBC_2.34). */
	size_t len = strcspn(n, "@");

	for (i = 0; i < k; i++)
		if (strlen(v[i]) == len && !strncmp(n, v[i], len))
			return true;
	return false;
}

/* Whether sym is a function a complete chain ends in (_start, main, thread start...). */
static int is_root(struct callstacks *c, uint32_t sym, bool kernel)
{
	if (pm_grow_zero(&c->root_sym, &c->cap_root_sym, (uint64_t)sym + 1, 1024, 1))
		return -ENOMEM;
	if (!c->root_sym[sym])
		c->root_sym[sym] = root_name(symbolizer_sym(c->s->sy, sym)->name, kernel) ? 1 : 2;
	return c->root_sym[sym] == 1;
}

/* ---- symbolizing frames ---- */

/* A frame for address ip of pid; return addresses are looked up at ip - 1. */
static int make_frame(struct callstacks *c, uint32_t pid, uint64_t ip, bool ret,
		      uint32_t flags, struct cs_frame *f)
{
	int64_t sym = session_resolve_ip(c->s, pid, ret && ip ? ip - 1 : ip);

	if (sym < 0)
		return (int)sym;
	f->addr = ip;
	f->sym = (uint32_t)sym;
	f->flags = flags | (ip >= KERNEL_START ? CS_F_KERNEL : 0);
	return 0;
}

/*
 * --inline: the inline chain of user address at (already adjusted) of pid
 * in *chain: 1, or 0 when the session's symbol stands for it (no mapping,
 * JIT code), or -ENOMEM.  Cached per (address, space tag) as the session
 * caches symbols; the symbolizer caches per (DSO, offset) under that.
 */
static int inline_chain(struct callstacks *c, uint32_t pid, uint64_t at, uint32_t *chain)
{
	uint32_t space = maps_space(&c->s->maps, pid), tag, v;
	const struct map *m;
	int64_t id = NO_INLINE;

	if (space == HM_EMPTY)
		return 0;
	tag = maps_tag(&c->s->maps, space);
	v = tag != UINT32_MAX ? hm_get(&c->inl_at, at, tag) : HM_EMPTY;
	if (v == HM_EMPTY) {
		m = maps_find(&c->s->maps, space, at);
		if (m && m->dso == m->file_dso) {
			id = symbolizer_resolve_inline(c->s->sy, m->dso, at - m->start + m->pgoff);
			if (id < 0)
				return (int)id;
		}
		v = (uint32_t)id;
		if (tag != UINT32_MAX && hm_put(&c->inl_at, at, tag, v))
			return -ENOMEM;
	}
	if (v == NO_INLINE)
		return 0;
	*chain = v;
	return 1;
}

/*
 * Frames of inline chain id at address ip, innermost first, the physical
 * frame last (as stack_export.c groups them into one pprof Location), at
 * most room: the outermost ones when the chain is longer.
 */
static uint32_t chain_frames(struct callstacks *c, uint32_t id, uint64_t ip, uint32_t flags,
			     struct cs_frame *out, uint32_t room)
{
	uint32_t nr, i;
	const uint32_t *syms = symbolizer_inline_chain(c->s->sy, id, &nr);

	if (nr > room) {
		syms += nr - room;
		nr = room;
	}
	for (i = 0; i < nr; i++)
		out[i] = (struct cs_frame){ ip, syms[i], flags | (i + 1 < nr ? CS_F_INLINE : 0) };
	return nr;
}

/*
 * The frames of address ip of pid into out[0..room): make_frame()'s one,
 * or with --inline those of its inline chain.  *key (key may be NULL) names
 * the result: the sym, or the chain id | KEY_CHAIN.  Returns the number of
 * frames (0: no room) or -ENOMEM.
 */
static int frames_of(struct callstacks *c, uint32_t pid, uint64_t ip, bool ret, uint32_t flags,
		     struct cs_frame *out, uint32_t room, uint32_t *key)
{
	uint32_t chain, k;
	int err;

	if (!room)
		return 0;
	if (c->inl && ip < KERNEL_START) {
		err = inline_chain(c, pid, ret && ip ? ip - 1 : ip, &chain);
		if (err < 0)
			return err;
		if (err) {
			if (key)
				*key = chain | KEY_CHAIN;
			return (int)chain_frames(c, chain, ip, flags, out, room);
		}
	}
	err = make_frame(c, pid, ip, ret, flags, out);
	if (err)
		return err;
	k = out->sym;
	if (key)
		*key = k;
	return 1;
}

/* Frames of a STACK entry's kernel part, then (unless skip_user) its user part. */
static int raw_frames(struct callstacks *c, const struct raw_stack *r, uint32_t pid, bool kmode,
		      bool skip_user, struct cs_frame *out, uint32_t *n_out, bool *bad,
		      bool *zero_end)
{
	const uint64_t *ips = c->ips + r->off;
	uint32_t i, n = 0;
	int got;

	for (i = 0; i < r->nr && n < MAX_OUT; i++) {
		bool kernel = i < r->nr_kernel;

		if (!kernel && skip_user)
			break;
		/* A zero return address as the last user frame: the outermost frame. */
		if (!ips[i] && !kernel && i + 1 == r->nr) {
			*zero_end = true;
			break;
		}
		/* Addresses on the wrong side, or in page 0: a broken chain ends here. */
		if (ips[i] < 4096 || kernel != (ips[i] >= KERNEL_START)) {
			*bad = true;
			break;
		}
		/* Every frame is a return address except a kernel-mode sample's user ip. */
		got = frames_of(c, pid, ips[i], kernel || !kmode || i != r->nr_kernel, 0, &out[n],
				MAX_OUT - n, NULL);
		if (got < 0)
			return got;
		n += (uint32_t)got;
	}
	*n_out = n;
	return 0;
}

/* Whether frames reach a root (checked outermost first). */
static int frames_rooted(struct callstacks *c, const struct cs_frame *f, uint32_t n)
{
	uint32_t i;
	int r;

	for (i = n; i-- > 0;) {
		r = is_root(c, f[i].sym, (f[i].flags & CS_F_KERNEL) != 0);
		if (r)
			return r;
	}
	return 0;
}

/* Chain id of STACK entry r for a sample of pid (cached per tag and mode). */
static int64_t raw_chain(struct callstacks *c, struct raw_stack *r, uint32_t pid, bool kmode)
{
	uint32_t space = maps_space(&c->s->maps, pid), n;
	uint32_t tag = space != HM_EMPTY ? maps_tag(&c->s->maps, space) : UINT32_MAX;
	struct cs_frame *f = c->scratch;
	bool bad = false, zero_end = false;
	int64_t id;
	int rooted, err;

	/* Kernel-only chains do not depend on the address space. */
	if (r->nr == r->nr_kernel)
		tag = 0;
	if (r->have_chain && r->tag == tag && r->kmode == kmode && tag != UINT32_MAX)
		return r->chain;
	err = raw_frames(c, r, pid, kmode, false, f, &n, &bad, &zero_end);
	if (err)
		return err;
	rooted = bad ? 0 : zero_end ? 1 : frames_rooted(c, f, n);
	if (rooted < 0)
		return rooted;
	/*
	 * A chain with a frame in page 0 or on the wrong side is a broken walk
	 * (an fp chain through code without frame pointers gives such values):
	 * it ends in [truncated], but the trace is not damaged.
	 */
	id = itab_intern(&c->chains, f, n, rooted);
	if (id >= 0) {
		r->have_chain = true;
		r->chain = (uint32_t)id;
		r->tag = tag;
		r->kmode = kmode;
	}
	return id;
}

static int64_t truncated_sym(struct callstacks *c)
{
	if (c->trunc_sym < 0)
		c->trunc_sym = symbolizer_marker(c->s->sy, "[truncated]");
	return c->trunc_sym;
}

static struct unwinder *unwinder_of(struct callstacks *c)
{
	if (!c->u && !c->unwinder_failed && unwinder_new(&c->u, c->s->sy, &c->s->maps))
		c->unwinder_failed = true;
	return c->u;
}

/*
 * The final stack: the leaf's frames (several with --inline), the fix-up's
 * if any, the chain, and the [truncated] marker when nothing in it reached
 * a root.
 */
static int64_t final_stack(struct callstacks *c, const struct cs_frame *leaf, uint32_t nleaf,
			   const struct cs_frame *fix, uint32_t nfix, const struct cs_frame *chain,
			   uint32_t nchain, int chain_rooted, bool force_trunc)
{
	struct cs_frame *f = c->scratch;
	uint32_t n = nleaf + nfix;
	int rooted = chain_rooted;
	int64_t t;

	if (nchain > MAX_OUT)
		nchain = MAX_OUT;
	if (nchain && chain != f + n)
		memmove(f + n, chain, nchain * sizeof(*f));
	memcpy(f, leaf, nleaf * sizeof(*f));
	if (nfix)
		memcpy(f + nleaf, fix, nfix * sizeof(*f));
	if (!rooted && !force_trunc)
		rooted = frames_rooted(c, f, n);
	n += nchain;
	if (rooted < 0)
		return rooted;
	if (!rooted || force_trunc) {
		t = truncated_sym(c);
		if (t < 0)
			return t;
		f[n++] = (struct cs_frame){ 0, (uint32_t)t, CS_F_TRUNCATED };
		rooted = 0;
	}
	return itab_intern(&c->stacks, f, n, rooted);
}

/* The user ip a dwarf unwind of a kernel-mode sample starts from. */
static uint64_t user_ip_of(const struct callstacks *c, const struct raw_stack *r,
			   const struct trace_ustack *us)
{
	uint32_t i, k = 0;

	if (us->regs && (us->regs_mask & (1ull << PERF_REG_X86_IP))) {
		for (i = 0; i < PERF_REG_X86_IP; i++)
			k += (us->regs_mask >> i) & 1;
		if (k < us->nr_regs)
			return us->regs[k];
	}
	return r && r->nr > r->nr_kernel ? c->ips[r->off + r->nr_kernel] : 0;
}

static int64_t dwarf_stack(struct callstacks *c, const struct trace_sample *smp,
			   const struct cs_frame *leaf, uint32_t nleaf, struct raw_stack *r,
			   const struct trace_ustack *us, bool kmode)
{
	struct cs_frame *f = c->dwbuf;
	struct unwinder *u = unwinder_of(c);
	uint32_t n = 0, i, max = MAX_FRAMES - (r ? r->nr_kernel : 0);
	uint32_t lim = c->s->h->call_graph_max_stack;
	uint64_t uip = kmode ? user_ip_of(c, r, us) : smp->ip;
	bool complete = false, bad = false, zero_end = false;
	int nu = 0, err, rooted, got;

	/*
	 * record --max-stack N: at most N frames, the kernel-mode leaf and
	 * kernel frames (cut by the kernel) included, as for fp stacks; the
	 * rest is [truncated].  A user-mode leaf is the unwind's first ip.
	 */
	if (lim) {
		uint32_t k = (r ? r->nr_kernel : 0) + (kmode ? 1 : 0);

		lim = lim > k ? lim - k : 0;
		if (lim < max)
			max = lim;
	}

	c->st.dwarf++;
	if (r) {
		err = raw_frames(c, r, smp->pid, kmode, true, f, &n, &bad, &zero_end);
		if (err)
			return err;
	}
	if (u && uip && uip < KERNEL_START && !bad && max) {
		nu = unwind_user(u, smp->pid, uip, us, c->uips, max, &complete);
		if (nu < 0) {
			if (nu == -ENOMEM)
				return nu;
			nu = 0;
		}
	}
	/* A user-mode sample's uips[0] is the leaf itself. */
	for (i = kmode ? 0 : 1; i < (uint32_t)nu && n < MAX_OUT; i++) {
		got = frames_of(c, smp->pid, c->uips[i], i > 0, 0, &f[n], MAX_OUT - n, NULL);
		if (got < 0)
			return got;
		n += (uint32_t)got;
	}
	rooted = complete ? 1 : frames_rooted(c, f, n);
	if (rooted < 0)
		return rooted;
	return final_stack(c, leaf, nleaf, NULL, 0, f, n, rooted, bad);
}

int callstacks_resolve(struct callstacks *c, const struct trace_sample *smp, uint32_t chunk_seq,
		       uint32_t leaf_sym, const struct trace_ustack *us, uint32_t *id_out)
{
	static const struct cs_stack no_chain = { 0, NULL };
	struct raw_stack *r = NULL;
	struct cs_frame *leaf = c->leafbuf;
	bool kmode = smp->ip >= KERNEL_START || (smp->flags & PMIPROF_SAMPLE_F_IP_HIDDEN);
	const struct cs_stack *chain;
	uint32_t fix_key = 0, v, nleaf = 1, nfix = 0, leaf_key = leaf_sym, ic;
	int64_t id, cid;

	*id_out = CS_NONE;
	new_chunk(c, chunk_seq);
	leaf[0] = (struct cs_frame){ smp->ip, leaf_sym, kmode ? CS_F_KERNEL : 0 };
	if (c->inl && !kmode) {
		/* --inline: the leaf is its inline chain (the session's sym is the flat one). */
		int err = inline_chain(c, smp->pid, smp->ip, &ic);

		if (err < 0)
			return err;
		if (err) {
			nleaf = chain_frames(c, ic, smp->ip, 0, leaf, MAX_INLINE);
			leaf_key = ic | KEY_CHAIN;
		}
	}
	if (smp->stack) {
		if (smp->stack - 1 < c->nr_raw && c->raw[smp->stack - 1].defined) {
			r = &c->raw[smp->stack - 1];
		} else {
			/* A STACK that was never defined (damaged chunk or record). */
			c->st.damaged++;
			c->st.samples++;
			c->st.truncated++;
			id = final_stack(c, leaf, nleaf, NULL, 0, NULL, 0, 0, true);
			if (id < 0)
				return (int)id;
			*id_out = (uint32_t)id;
			return 0;
		}
	}
	if (c->mode == PMIPROF_CALL_GRAPH_DWARF && us && us->size && us->data) {
		id = dwarf_stack(c, smp, leaf, nleaf, r, us, kmode);
		goto out;
	}
	if (r) {
		cid = raw_chain(c, r, smp->pid, kmode);
		if (cid < 0)
			return (int)cid;
		chain = &c->chains.v[cid];
	} else {
		/*
		 * No stack recorded (the fp walk found no frame: code without
		 * frame pointers, a bad %rbp): the leaf alone, [truncated] unless
		 * it is a root itself.
		 */
		cid = NO_CHAIN;
		chain = &no_chain;
	}
	/*
	 * The fp leaf fix-up.  A kernel-mode sample's user part starts with the
	 * exact user ip at kernel entry, whose caller the fp walk misses the
	 * same way when that code set up no frame: its USTACK holds the user
	 * registers and words at entry, so the fix-up goes after that frame.
	 */
	if (c->leaf_fixup && c->mode == PMIPROF_CALL_GRAPH_FP &&
	    (c->cg_flags & PMIPROF_CALL_GRAPH_F_LEAF_WORDS) && us && us->size && us->data &&
	    (!kmode || (r && r->nr > r->nr_kernel))) {
		struct unwinder *u = unwinder_of(c);
		uint32_t k = r ? r->nr_kernel + (kmode ? 1 : 0) : 0;
		uint64_t uip = kmode ? c->ips[r->off + r->nr_kernel] : smp->ip;
		uint64_t first = r && r->nr > k ? c->ips[r->off + k] : 0;
		uint64_t ra = u ? unwind_leaf_caller(u, smp->pid, uip, us, first) : 0;

		if (ra) {
			int got = frames_of(c, smp->pid, ra, true, CS_F_FIXUP, c->fixbuf, MAX_INLINE,
					    &fix_key);

			if (got < 0)
				return got;
			nfix = (uint32_t)got;
			fix_key++;
			c->st.fixups++;
		}
	}
	/* Keys are syms, or with --inline chain ids | KEY_CHAIN where there is inlining. */
	v = hm_get(&c->final, (uint64_t)cid << 32 | leaf_key, fix_key);
	if (v != HM_EMPTY) {
		id = v;
	} else {
		const struct cs_frame *head = leaf, *tail = chain->frames;
		uint32_t nhead = nleaf, ntail = chain->nr;

		if (kmode && nfix) {
			/* leaf, the kernel frames and the user ip, then the fix-up */
			uint32_t p = 0;

			while (p < ntail && (tail[p].flags & CS_F_KERNEL))
				p++;
			if (p < ntail) {
				uint64_t a = tail[p].addr;

				while (p < ntail && tail[p].addr == a && !(tail[p].flags & CS_F_KERNEL))
					p++;
			}
			if (nleaf + p > MAX_OUT)
				p = MAX_OUT - nleaf;
			memcpy(c->dwbuf, leaf, nleaf * sizeof(*leaf));
			memcpy(c->dwbuf + nleaf, tail, p * sizeof(*tail));
			head = c->dwbuf;
			nhead = nleaf + p;
			tail += p;
			ntail -= p;
		}
		id = final_stack(c, head, nhead, c->fixbuf, nfix, tail, ntail,
				 cid == NO_CHAIN ? 0 : c->chains.rooted[cid], false);
		if (id >= 0 && hm_put(&c->final, (uint64_t)cid << 32 | leaf_key, fix_key,
				      (uint32_t)id))
			return -ENOMEM;
	}
out:
	if (id < 0)
		return (int)id;
	c->st.samples++;
	if (c->stacks.rooted[id])
		c->st.rooted++;
	else
		c->st.truncated++;
	*id_out = (uint32_t)id;
	return 0;
}

/* ---- output helpers ---- */

void callstacks_print_folded(FILE *f, const struct callstacks *c, const struct symbolizer *sy,
			     uint32_t id)
{
	const struct cs_stack *st = callstacks_get(c, id);
	uint32_t i;

	if (!st)
		return;
	for (i = st->nr; i-- > 0;) {
		const char *n = symbolizer_sym(sy, st->frames[i].sym)->name;

		if (i + 1 < st->nr)
			fputc(';', f);
		/* ';' separates frames: a name must not contain one. */
		for (; *n; n++)
			fputc(*n == ';' || *n == '\n' ? ':' : *n, f);
		/* stackcollapse-perf's marker for kernel frames. */
		if (st->frames[i].flags & CS_F_KERNEL)
			fputs("_[k]", f);
	}
}

_Static_assert(CS_NONE == SESSION_NO_STACK, "a session's stack id without a stack is CS_NONE");

const struct session_stack_hooks callstack_hooks = {
	.open = callstacks_new,
	.close = callstacks_free,
	.define = callstacks_define,
	.resolve = callstacks_resolve,
	.print_warnings = callstacks_print_warnings,
};
