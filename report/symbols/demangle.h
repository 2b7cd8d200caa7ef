/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C++ symbol names for humans: Itanium-ABI demangling through the C++
 * runtime's __cxa_demangle (what eu-addr2line -C and perf use), keeping a
 * symbol-version suffix ("@@GLIBCXX_3.4") as it was.
 */
#ifndef PMIPROF_REPORT_DEMANGLE_H
#define PMIPROF_REPORT_DEMANGLE_H

#include <stddef.h>

/*
 * The demangled form of name in buf, or name itself when it is not a
 * mangled C++ name, cannot be demangled, or does not fit in size bytes.
 */
const char *symbol_demangle(const char *name, char *buf, size_t size);

#endif /* PMIPROF_REPORT_DEMANGLE_H */
