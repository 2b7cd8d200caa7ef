// SPDX-License-Identifier: GPL-2.0
/*
 * Tables read from a DSO's ELF sections for lookups libdwfl does not
 * answer: PLT ranges, function starts of stripped code, and .eh_frame FDE
 * ranges (function bounds of code without symbols).
 */
#include "symbols/symbols_internal.h"

#include "symbols/demangle.h"
#include "hashmap.h"
#include "symbols/kallsyms_cache.h"
#include "kernel_id.h"
#include "strtab.h"
#include "util.h"

/*
 * The module's .plt, .plt.sec and .plt.got ranges, from the section headers
 * of its main file.  dwfl_module_address_section would answer per address,
 * but it loads the module's DWARF first (for libc with libc6-dbg: inflating
 * tens of MB of compressed debug sections), a third of a small report.
 */
static int load_plts(struct dso *d)
{
	Elf_Scn *scn = NULL;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	size_t shstrndx;

	d->plts_known = true;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;
		struct plt_range *n;

		if (!gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_ALLOC) || !shdr.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name || strncmp(name, ".plt", 4))
			continue;
		n = realloc(d->plts, (d->nr_plts + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->plts = n;
		n[d->nr_plts++] = (struct plt_range){ shdr.sh_addr + bias,
						      shdr.sh_addr + bias + shdr.sh_size };
	}
	return 0;
}

/* 1 when vaddr lies in a PLT section (no symbol covers it), 0 if not, -ENOMEM. */
int sy_in_plt(struct dso *d, uint64_t vaddr)
{
	uint32_t i;

	if (!d->plts_known) {
		int err = load_plts(d);

		if (err)
			return err;
	}
	for (i = 0; i < d->nr_plts; i++)
		if (vaddr >= d->plts[i].start && vaddr < d->plts[i].end)
			return 1;
	return 0;
}

/*
 * d's function symbols by address (the .dynsym of a stripped file), built
 * on the first address no symbol covers: they name its neighbourhood.
 */
int sy_load_funcs(struct dso *d)
{
	int n = dwfl_module_getsymtab(d->mod), i;
	struct kv *kv;
	uint32_t k = 0, j;

	d->funcs_known = true;
	if (n <= 1)
		return 0;
	kv = malloc((size_t)n * sizeof(*kv));
	if (!kv)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx,
							   NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (name && name[0] && shndx != SHN_UNDEF && shndx != SHN_ABS &&
		    (type == STT_FUNC || type == STT_GNU_IFUNC))
			kv[k++] = (struct kv){ addr, (uint64_t)i };
	}
	d->funcs = malloc((k ? k : 1) * sizeof(*d->funcs));
	if (!d->funcs || sy_radix_sort(kv, k)) {
		free(kv);
		return -ENOMEM;
	}
	for (j = 0; j < k; j++) {
		GElf_Sym sym;
		GElf_Addr addr;

		d->funcs[j] = (struct func_start){ kv[j].key,
			dwfl_module_getsym_info(d->mod, (int)kv[j].val, &sym, &addr, NULL, NULL,
						NULL) };
	}
	d->nr_funcs = k;
	free(kv);
	return 0;
}

/* The last function symbol starting at or below addr, or NULL. */
const struct func_start *sy_func_before(const struct dso *d, uint64_t addr)
{
	uint32_t lo = 0, hi = d->nr_funcs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &d->funcs[lo - 1] : NULL;
}

/*
 * The start of every function the unwind table knows, from the sorted
 * search table of .eh_frame_hdr (PT_GNU_EH_FRAME: version 1, a udata4
 * count, datarel sdata4 pairs), in module addresses.  Nothing for a
 * separate debug file (no bytes) or another table format.
 */
static int load_fdes(struct dso *d)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	size_t size = 0, i, phnum, ps;
	const uint8_t *img = elf ? (const uint8_t *)elf_rawfile(elf, &size) : NULL;

	d->fdes_known = true;
	if (!img || d->debug_only || elf_getphdrnum(elf, &phnum))
		return 0;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
		const uint8_t *h;
		uint32_t count, k;

		if (!ph || ph->p_type != PT_GNU_EH_FRAME || ph->p_offset > size ||
		    ph->p_filesz > size - ph->p_offset || ph->p_filesz < 16)
			continue;
		h = img + ph->p_offset;
		if (h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b)
			return 0;
		switch (h[1] & 0x0f) {
		case 0x03: case 0x0b:
			ps = 4;
			break;
		case 0x00: case 0x04: case 0x0c:
			ps = 8;
			break;
		default:
			return 0;
		}
		memcpy(&count, h + 4 + ps, 4);
		if (!count || (uint64_t)count * 8 > ph->p_filesz - 8 - ps)
			return 0;
		d->fdes = malloc((size_t)count * sizeof(*d->fdes));
		if (!d->fdes)
			return -ENOMEM;
		for (k = 0; k < count; k++) {
			int32_t loc;

			memcpy(&loc, h + 8 + ps + (size_t)k * 8, 4);
			d->fdes[k] = ph->p_vaddr + (uint64_t)(int64_t)loc + bias;
		}
		d->nr_fdes = count;
		return 0;
	}
	return 0;
}

/*
 * The .eh_frame entry (FDE) covering vaddr: 1 with the function's start
 * (the table's last start at or below vaddr) and whether it describes a
 * signal frame (augmentation 'S'), 0 without one, -ENOMEM.  Every x86-64
 * function compiled with the default -fasynchronous-unwind-tables has one,
 * stripped or not: it delimits a function that has no symbol.
 */
int sy_fde_at(struct dso *d, uint64_t vaddr, uint64_t *start, bool *signal)
{
	Dwarf_Addr bias, s, e;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(d->mod, &bias);
	Dwarf_Frame *fr = NULL;
	uint32_t lo = 0, hi;

	if (!d->fdes_known && load_fdes(d))
		return -ENOMEM;
	if (!cfi || vaddr < bias || dwarf_cfi_addrframe(cfi, vaddr - bias, &fr) || !fr)
		return 0;
	*signal = false;
	dwarf_frame_info(fr, &s, &e, signal);
	free(fr);
	*start = vaddr;
	for (hi = d->nr_fdes; lo < hi;) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->fdes[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		*start = d->fdes[lo - 1];
	return 1;
}
