// SPDX-License-Identifier: GPL-2.0
/* C++ demangling for report rows (see demangle.h). */
#include "symbols/demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From the C++ runtime (libstdc++, <cxxabi.h>); callable from C. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

const char *symbol_demangle(const char *name, char *buf, size_t size)
{
	const char *at = strchr(name, '@');
	size_t base = at ? (size_t)(at - name) : strlen(name);
	char mangled[1024], *d;
	int status = -1, n;

	if (name[0] != '_' || name[1] != 'Z' || base >= sizeof(mangled))
		return name;
	memcpy(mangled, name, base);
	mangled[base] = 0;
	d = __cxa_demangle(mangled, NULL, NULL, &status);
	if (!d || status) {
		free(d);
		return name;
	}
	n = snprintf(buf, size, "%s%s", d, at ? at : "");
	free(d);
	return n < 0 || (size_t)n >= size ? name : buf;
}
