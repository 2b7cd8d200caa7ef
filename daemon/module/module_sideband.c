// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band for the module backend: perf dummy events, or /proc synthesis
 * when perf_event_open is refused (see module_sideband.h).
 */
#include "module/module_sideband.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine/backend.h"
#include "pmiprof/trace.h"
#include "util.h"

#define SB_DATA_PAGES	16	/* 64 KiB per ring: side-band is sparse */

/* sample_id trailer with PERF_SAMPLE_TID | PERF_SAMPLE_TIME */
struct sb_sample_id {
	uint32_t pid, tid;
	uint64_t time;
};

/*
 * One dummy event for (pid, cpu).  The first event of a CPU gets a ring;
 * later ones of the same CPU (other -p targets) write into it.
 */
static int sb_add_event(struct sideband *sb, pid_t pid, int cpu, bool on_exec)
{
	struct perf_event_attr a;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct sideband_ring *r = &sb->rings[cpu];
	int fd, e;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.sample_id_all = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.inherit = pid != -1;
	a.disabled = 1;
	a.enable_on_exec = on_exec;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(page * SB_DATA_PAGES / 4);
	a.exclude_kernel = 1;	/* dummy counts nothing; keeps paranoid 2 happy */
	fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	sb->fds[sb->nr_fds++] = fd;
	if (r->base) {
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0)
			return -errno;
		return 0;
	}
	r->data_size = page * SB_DATA_PAGES;
	r->base = mmap(NULL, page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		e = errno;
		r->base = NULL;
		return -e;
	}
	r->fd = fd;
	sb->nr_rings++;
	return 0;
}

static void sb_close_rings(struct sideband *sb)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned int i;

	for (i = 0; sb->rings && i < sb->nr_cpus; i++)
		if (sb->rings[i].base)
			munmap(sb->rings[i].base, page + sb->rings[i].data_size);
	for (i = 0; i < sb->nr_fds; i++)
		close(sb->fds[i]);
	free(sb->rings);
	free(sb->fds);
	sb->rings = NULL;
	sb->fds = NULL;
	sb->nr_rings = sb->nr_fds = 0;
}

int sideband_open(struct sideband *sb, pid_t child, const pid_t *pids, unsigned int nr_pids,
		  bool system_wide, unsigned int nr_cpus, char *why, size_t why_len)
{
	unsigned int i, cpu, nr_targets;
	int ret = 0;

	memset(sb, 0, sizeof(*sb));
	sb->child = child;
	sb->nr_cpus = nr_cpus;
	if (nr_pids > SIDEBAND_MAX_PIDS)
		nr_pids = SIDEBAND_MAX_PIDS;
	nr_targets = system_wide || child > 0 ? 1 : nr_pids;
	sb->rings = calloc(nr_cpus, sizeof(*sb->rings));
	sb->fds = calloc((size_t)nr_cpus * (nr_targets ? nr_targets : 1), sizeof(*sb->fds));
	sb->scratch = malloc(65536);
	if (!sb->rings || !sb->fds || !sb->scratch) {
		snprintf(why, why_len, "out of memory");
		sideband_close(sb);
		return -ENOMEM;
	}
	for (cpu = 0; cpu < nr_cpus && !ret; cpu++) {
		for (i = 0; i < nr_targets && !ret; i++) {
			if (system_wide)
				ret = sb_add_event(sb, -1, (int)cpu, false);
			else if (child > 0)
				ret = sb_add_event(sb, child, (int)cpu, true);
			else
				ret = sb_add_event(sb, pids[i], (int)cpu, false);
			/* A CPU that is offline (or not there) has nothing to tell. */
			if (ret == -ENODEV || ret == -EINVAL)
				ret = cpu ? 0 : ret;
		}
	}
	if (!ret)
		return 0;

	/* Fall back to /proc for the processes we know about. */
	snprintf(why, why_len, "perf_event_open of the side-band dummy event failed: %s",
		 strerror(-ret));
	sb_close_rings(sb);
	sb->from_proc = true;
	if (child > 0)
		sb->pids[sb->nr_pids++] = child;
	for (i = 0; i < nr_pids; i++)
		sb->pids[sb->nr_pids++] = pids[i];
	return 1;
}

int sideband_enable(struct sideband *sb)
{
	unsigned int i;

	/* A forked child's ring is enabled by its exec (enable_on_exec). */
	if (sb->child > 0)
		return 0;
	for (i = 0; i < sb->nr_fds; i++)
		if (ioctl(sb->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return -errno;
	return 0;
}

int sideband_disable(struct sideband *sb)
{
	unsigned int i;

	for (i = 0; i < sb->nr_fds; i++)
		if (ioctl(sb->fds[i], PERF_EVENT_IOC_DISABLE, 0) < 0)
			return -errno;
	return 0;
}

int sideband_poll_fds(struct sideband *sb, struct pollfd *fds, int max)
{
	int n = 0;
	unsigned int i;

	for (i = 0; i < sb->nr_cpus && sb->rings && n < max; i++) {
		if (!sb->rings[i].base)
			continue;
		fds[n].fd = sb->rings[i].fd;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

/* Trailer of a non-sample record; false when the record is too short. */
static bool sb_trailer(const struct perf_event_header *h, struct sb_sample_id *id)
{
	if (h->size < sizeof(*h) + sizeof(*id))
		return false;
	memcpy(id, (const char *)h + h->size - sizeof(*id), sizeof(*id));
	return true;
}

static int sb_write_one(struct sideband *sb, const struct perf_event_header *h,
			struct trace_writer *w, struct record_stats *st)
{
	const char *body = (const char *)(h + 1);
	size_t body_len = h->size - sizeof(*h);
	struct sb_sample_id id;
	int ret = 0;

	if (!sb_trailer(h, &id))
		return 0;
	body_len -= sizeof(id);

	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint32_t prot, flags;
		} m;
		struct trace_mmap tm;
		char path[4096];
		size_t plen;

		if (body_len <= sizeof(m))
			return 0;
		memcpy(&m, body, sizeof(m));
		plen = body_len - sizeof(m);
		if (plen >= sizeof(path))
			plen = sizeof(path) - 1;
		memcpy(path, body + sizeof(m), plen);
		path[plen] = '\0';
		memset(&tm, 0, sizeof(tm));
		tm.time = id.time;
		tm.pid = m.pid;
		tm.tid = m.tid;
		tm.start = m.addr;
		tm.len = m.len;
		tm.pgoff = m.pgoff;
		tm.prot = m.prot;
		tm.flags = m.flags;
		tm.path = path;
		ret = trace_write_mmap(w, &tm);
		break;
	}
	case PERF_RECORD_COMM: {
		struct trace_comm c;
		char comm[64];
		size_t clen;

		if (body_len <= 8)
			return 0;
		clen = body_len - 8 < sizeof(comm) - 1 ? body_len - 8 : sizeof(comm) - 1;
		memcpy(comm, body + 8, clen);
		comm[clen] = '\0';
		memset(&c, 0, sizeof(c));
		memcpy(&c.pid, body, 4);
		memcpy(&c.tid, body + 4, 4);
		c.time = id.time;
		c.flags = (h->misc & PERF_RECORD_MISC_COMM_EXEC) ? PMIPROF_COMM_F_EXEC : 0;
		c.comm = comm;
		ret = trace_write_comm(w, &c);
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct trace_task t;
		uint32_t v[4];

		if (body_len < sizeof(v) + 8)
			return 0;
		memcpy(v, body, sizeof(v));
		memset(&t, 0, sizeof(t));
		t.pid = v[0];
		t.ppid = v[1];
		t.tid = v[2];
		t.ptid = v[3];
		memcpy(&t.time, body + sizeof(v), 8);
		ret = h->type == PERF_RECORD_FORK ? trace_write_fork(w, &t) :
						    trace_write_exit(w, &t);
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t v[2];

		if (body_len >= sizeof(v)) {
			memcpy(v, body, sizeof(v));
			sb->lost += v[1];
			pm_warn("side-band: the kernel dropped %llu mmap/comm/task records",
				(unsigned long long)v[1]);
		}
		return 0;
	}
	default:
		return 0;
	}
	if (ret)
		return ret;
	st->side_band++;
	return 1;
}

static int sb_drain_ring(struct sideband *sb, struct sideband_ring *r, struct trace_writer *w,
			 struct record_stats *st)
{
	struct perf_event_mmap_page *pg = r->base;
	const unsigned char *data = (const unsigned char *)r->base + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	int n = 0, ret = 0;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t off = tail & (r->data_size - 1), first;

		first = r->data_size - off < sizeof(h) ? r->data_size - off : sizeof(h);
		memcpy(&h, data + off, first);
		memcpy((unsigned char *)&h + first, data, sizeof(h) - first);
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		first = r->data_size - off < h.size ? r->data_size - off : h.size;
		memcpy(sb->scratch, data + off, first);
		memcpy(sb->scratch + first, data, h.size - first);
		tail += h.size;
		ret = sb_write_one(sb, (const struct perf_event_header *)sb->scratch, w, st);
		if (ret < 0)
			break;
		n += ret;
	}
	/* Pairs with the kernel's read of data_tail before it overwrites. */
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return ret < 0 ? ret : n;
}

static bool sb_seen(struct sideband *sb, pid_t pid, uint64_t start, uint64_t pgoff)
{
	size_t i;
	struct sideband_seen *n;

	for (i = 0; i < sb->nr_seen; i++)
		if (sb->seen[i].pid == pid && sb->seen[i].start == start &&
		    sb->seen[i].pgoff == pgoff)
			return true;
	if (sb->nr_seen == sb->cap_seen) {
		size_t cap = sb->cap_seen ? sb->cap_seen * 2 : 64;

		n = realloc(sb->seen, cap * sizeof(*n));
		if (!n)
			return false;	/* write it again rather than lose it */
		sb->seen = n;
		sb->cap_seen = cap;
	}
	sb->seen[sb->nr_seen++] = (struct sideband_seen){ pid, start, pgoff };
	return false;
}

static int sb_write_comm(pid_t pid, pid_t tid, struct trace_writer *w, struct record_stats *st)
{
	char path[64], comm[64] = "";
	struct trace_comm c;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;	/* the thread exited meanwhile */
	if (fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
	memset(&c, 0, sizeof(c));
	c.time = pm_now_ns();	/* true now, and since before: CLOCK_MONOTONIC */
	c.pid = (uint32_t)pid;
	c.tid = (uint32_t)tid;
	c.comm = comm;
	st->side_band++;
	return trace_write_comm(w, &c);
}

int sideband_synthesize_pid(struct sideband *sb, pid_t pid, struct trace_writer *w,
			    struct record_stats *st)
{
	char path[64], line[4352];
	struct dirent *de;
	DIR *d;
	FILE *f;
	int ret = 0;

	/* Comms once per process (the marker mapping can never be real). */
	if (!sb_seen(sb, pid, UINT64_MAX, UINT64_MAX)) {
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		d = opendir(path);
		if (!d)
			return 0;	/* exited, or not ours to read: nothing to add */
		while (!ret && (de = readdir(d)))
			if (de->d_name[0] != '.')
				ret = sb_write_comm(pid, (pid_t)atoi(de->d_name), w, st);
		closedir(d);
		if (ret)
			return ret;
	}

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned int maj, min;
		char perms[8], name[4096] = "";
		struct trace_mmap m;
		int n;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &pgoff, &maj, &min, &ino, name) < 7)
			continue;
		if (perms[2] != 'x' || !name[0] || sb_seen(sb, pid, start, pgoff))
			continue;
		memset(&m, 0, sizeof(m));
		m.time = pm_now_ns();
		m.pid = m.tid = (uint32_t)pid;
		m.start = start;
		m.len = end - start;
		m.pgoff = pgoff;
		m.prot = 0x4 | (perms[0] == 'r' ? 0x1 : 0) | (perms[1] == 'w' ? 0x2 : 0);
		m.flags = perms[3] == 's' ? 0x01 : 0x02;	/* MAP_SHARED / MAP_PRIVATE */
		m.path = name + strspn(name, " ");
		n = mapped_build_id(&sb->build_ids, pid, m.path, maj, min, ino, m.build_id);
		if (n < 0) {
			ret = n;
			break;
		}
		m.build_id_len = (uint32_t)n;
		ret = trace_write_mmap(w, &m);
		st->side_band++;
	}
	fclose(f);
	return ret;
}

/* Fallback: has the forked child exec()ed yet (its exe is no longer ours)? */
static bool sb_child_execed(pid_t child)
{
	char a[4096], b[4096], path[64];
	ssize_t la, lb;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)child);
	la = readlink(path, a, sizeof(a) - 1);
	lb = readlink("/proc/self/exe", b, sizeof(b) - 1);
	if (la < 0 || lb < 0)
		return false;
	return la != lb || memcmp(a, b, (size_t)la);
}

int sideband_drain(struct sideband *sb, struct trace_writer *w, struct record_stats *st)
{
	unsigned int i;
	int n = 0, ret;

	if (sb->from_proc) {
		uint64_t before = st->side_band;

		for (i = 0; i < sb->nr_pids; i++) {
			if (sb->pids[i] == sb->child && !sb->exec_seen) {
				if (!sb_child_execed(sb->child))
					continue;
				sb->exec_seen = true;
			}
			ret = sideband_synthesize_pid(sb, sb->pids[i], w, st);
			if (ret < 0)
				return ret;
		}
		return (int)(st->side_band - before);
	}
	for (i = 0; i < sb->nr_cpus && sb->rings; i++) {
		if (!sb->rings[i].base)
			continue;
		ret = sb_drain_ring(sb, &sb->rings[i], w, st);
		if (ret < 0)
			return ret;
		n += ret;
	}
	return n;
}

void sideband_close(struct sideband *sb)
{
	sb_close_rings(sb);
	free(sb->scratch);
	free(sb->seen);
	mapped_build_id_free(&sb->build_ids);
	memset(sb, 0, sizeof(*sb));
}
