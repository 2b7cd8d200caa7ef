// SPDX-License-Identifier: GPL-2.0
/*
 * A function's code for annotate: its bounds (the symbol's size, else its
 * unwind entry's range in stripped code) and its bytes, read from the very
 * file the symbolizer chose for the DSO (same build-id rules as names), and
 * the name of any address in it (branch targets).
 */
#include "symbols/symbols_internal.h"

#include "util.h"

bool symbolizer_vaddr(struct symbolizer *sy, uint32_t dso, uint64_t off, uint64_t *vaddr)
{
	struct dso *d;

	if (dso >= sy->dso_keys.n)
		return false;
	d = sy->dsos[dso];
	if (sy_dso_ensure(sy, d) || d->state != DSO_LOADED || d->is_jit)
		return false;
	return sy_offset_to_vaddr(d, off, vaddr);
}

/*
 * [start, end) of the function symbol covering vaddr: the symbol's own
 * size; a symbol of size 0 (hand-written assembly) ends at the next
 * symbol's start, found by asking one byte further until the answer changes.
 */
static bool symbol_bounds(struct dso *d, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	GElf_Sym sym;
	GElf_Off symoff;
	const char *n = dwfl_module_addrinfo(d->mod, vaddr, &symoff, &sym, NULL, NULL, NULL);

	if (!n)
		return false;
	*start = vaddr - symoff;
	*end = sym.st_size ? *start + sym.st_size : vaddr + 1;
	if (!sym.st_size) {
		uint64_t a;

		for (a = vaddr + 1; a < vaddr + 65536; a++) {
			GElf_Off o;
			const char *m = dwfl_module_addrinfo(d->mod, a, &o, &sym, NULL, NULL, NULL);

			if (!m || a - o != *start)
				break;
		}
		*end = a;
	}
	return true;
}

/* [start, end) of the unwind entry (FDE) covering vaddr: stripped code's functions. */
static bool fde_bounds(struct dso *d, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	Dwarf_Addr bias, s, e;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(d->mod, &bias);
	Dwarf_Frame *fr = NULL;
	bool signal = false;

	if (!cfi || vaddr < bias || dwarf_cfi_addrframe(cfi, vaddr - bias, &fr) || !fr)
		return false;
	dwarf_frame_info(fr, &s, &e, &signal);
	free(fr);
	*start = s + bias;
	*end = e + bias;
	return *end > *start;
}

/* The bytes of [start, end) from the section holding them, clipped to it; NULL if none. */
static const uint8_t *code_bytes(struct dso *d, uint64_t start, uint64_t *end, const char **why)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!elf) {
		*why = "no ELF file for it";
		return NULL;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		uint64_t a;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		a = sh.sh_addr + bias;
		if (start < a || start >= a + sh.sh_size)
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			*why = "only its separate debug file was found, which holds no code";
			return NULL;
		}
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size < sh.sh_size) {
			*why = "its code section cannot be read";
			return NULL;
		}
		if (*end > a + sh.sh_size)
			*end = a + sh.sh_size;
		return (const uint8_t *)data->d_buf + (start - a);
	}
	*why = "no section of its file holds the address";
	return NULL;
}

int symbolizer_func_code(struct symbolizer *sy, uint32_t dso, uint64_t off, struct func_code *fc)
{
	struct dso *d;
	uint64_t vaddr;

	memset(fc, 0, sizeof(*fc));
	if (dso >= sy->dso_keys.n)
		return -EINVAL;
	d = sy->dsos[dso];
	if (sy_dso_ensure(sy, d))
		return -ENOMEM;
	if (d->is_jit) {
		fc->why = "JIT code: its bytes were not recorded";
		return 0;
	}
	if (d->state != DSO_LOADED) {
		fc->why = d->info.note ? d->info.note : "its file was not found";
		return 0;
	}
	if (!sy_offset_to_vaddr(d, off, &vaddr)) {
		fc->why = "the address lies outside the file's segments";
		return 0;
	}
	if (!symbol_bounds(d, vaddr, &fc->start, &fc->end) &&
	    !fde_bounds(d, vaddr, &fc->start, &fc->end)) {
		fc->why = "no symbol and no unwind entry delimits its function";
		return 0;
	}
	fc->bytes = code_bytes(d, fc->start, &fc->end, &fc->why);
	return 0;
}

const char *symbolizer_name_at(struct symbolizer *sy, uint32_t dso, uint64_t vaddr,
			       uint64_t *symoff)
{
	struct dso *d;
	GElf_Off o = 0;
	const char *fn, *alias;

	if (dso >= sy->dso_keys.n)
		return NULL;
	d = sy->dsos[dso];
	if (sy_dso_ensure(sy, d) || d->state != DSO_LOADED || d->is_jit)
		return NULL;
	fn = sy_addrsym(d, vaddr, &o);
	if (!fn)
		return NULL;
	alias = sy_alias_of(d, vaddr - o);
	*symoff = o;
	return alias ? alias : fn;
}
