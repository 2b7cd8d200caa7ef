# pmiprof top-level build.  User space: wildcard-driven so a new .c file in
# lib/, daemon/ or report/ (or one of their stage folders, docs/architecture.md)
# needs no Makefile edit.  See README.md.
#
#   make               build build/pmiprof (and the test programs)
#   make demo          install deps, build, record the example workload, print its report
#   make check         run the whole test suite (tests/run), summary line last
#   make module        build kernel/pmiprof.ko against KDIR
#   make deps          install the Debian packages everything needs
#   make fuzz          run the trace-reader fuzzer (FUZZ_SECONDS, default 60)
#   make bench         benchmarks with ratios against perf, as tables
#   make install       PREFIX=/usr/local DESTDIR= (also the udev rule and the DKMS source)
#   make dkms-src      only the DKMS source tree (DKMS_SRCDIR, default /usr/src/pmiprof-VERSION)
#   make deb           Debian packages with dpkg-buildpackage from debian/, into build/deb/
#                      (docs/packaging.md; LINTIAN=0 skips the lintian run)
#   make CC=clang      any C11 compiler; WERROR=0 to drop -Werror

VERSION   := 0.1.0
CC        ?= cc
O         ?= build
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
WERROR    ?= 1
V         ?= 0

ifeq ($(V),0)
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2);
else
Q :=
msg =
endif

PKGS      := libdw libelf zlib libdeflate libzstd libunwind-generic libmicrohttpd libsystemd capstone ncursesw gnutls yaml-0.1 libxcrypt libcurl
CPPFLAGS  += -Iinclude -Ilib -Ireport -Idaemon -D_GNU_SOURCE -DPMIPROF_VERSION='"$(VERSION)"' \
             $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wno-missing-field-initializers -fno-strict-aliasing -MMD -MP
ifeq ($(WERROR),1)
CFLAGS    += -Werror
endif
# libstdc++ only for __cxa_demangle: from the static archive (one object)
# when there is one, so every run does not load and relocate the whole
# shared library (~0.4 ms of a 5 ms report).
ifneq ($(filter /%,$(shell $(CC) -print-file-name=libstdc++.a)),)
STDCXX    := -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic
else
STDCXX    := -lstdc++
endif
LDLIBS    += -ldl $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -ldw -lelf -lz -ldeflate -lzstd -lunwind-generic -lmicrohttpd -lsystemd -lcapstone -lncursesw -ltinfo -lgnutls -lyaml -lcrypt -lcurl) -lm -lpthread $(STDCXX)

LIB_SRCS  := $(filter-out lib/main.c,$(wildcard lib/*.c))
# A stage folder's headers are included as "stage/name.h" (-Ireport -Idaemon),
# so every include says which stage it reaches into.
APP_SRCS  := $(wildcard daemon/*.c daemon/*/*.c report/*.c report/*/*.c)
LIB_OBJS  := $(LIB_SRCS:%.c=$(O)/%.o)
APP_OBJS  := $(APP_SRCS:%.c=$(O)/%.o)
MAIN_OBJ  := $(O)/lib/main.o
LIBA      := $(O)/libpmiprof.a
BIN       := $(O)/pmiprof

# Unit tests: tests/unit/test_*.c, one cmocka program each, linked with
# everything but main().  tests/unit/*-model.c style helpers are shared.
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)
UNIT_HELP := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
UNIT_HOBJ := $(UNIT_HELP:%.c=$(O)/%.o)
# Workloads: tests/workloads/*.c, each a standalone program (PIE by default).
WL_SRCS   := $(filter-out tests/workloads/lib%.c,$(wildcard tests/workloads/*.c))
WL_BINS   := $(WL_SRCS:tests/workloads/%.c=$(O)/workloads/%) $(O)/workloads/callgraph_nofp
# tests/workloads/lib*.c are shared libraries for workloads that link them.
WL_SOS    := $(patsubst tests/workloads/%.c,$(O)/workloads/%.so,$(wildcard tests/workloads/lib*.c))

# libpmiprof-region (lib/region/, docs/regions.md): linked into workloads,
# not into pmiprof; position-independent in both the .a and the .so.
REG_OBJS  := $(patsubst %.c,$(O)/pic/%.o,$(wildcard lib/region/*.c))
REG_A     := $(O)/libpmiprof-region.a
# Its ABI version is the soname's (libpmiprof-region.so.0, the Debian package
# libpmiprof-region0): raise REG_ABI when an exported symbol goes or changes.
REG_ABI   := 0
REG_SONAME := libpmiprof-region.so.$(REG_ABI)
REG_REAL  := $(O)/libpmiprof-region.so.$(VERSION)
REG_SO    := $(O)/libpmiprof-region.so
REG_PC    := $(O)/pmiprof-region.pc
# pkg-config prefers NAME-uninstalled.pc when both are on PKG_CONFIG_PATH: with
# PKG_CONFIG_PATH=build, programs build against this tree's header and library.
REG_UPC   := $(O)/pmiprof-region-uninstalled.pc
REG_LIBS  := $(REG_A) $(REG_REAL) $(REG_SO) $(REG_PC) $(REG_UPC)
LIBDIR    ?= $(PREFIX)/lib
INCDIR    ?= $(PREFIX)/include

.PHONY: all check module deps fuzz bench install dkms-src clean vmtest modules_clean demo \
	checkpatch region deb version
# Keep test objects between runs (they are intermediate files of pattern rules).
.SECONDARY:
all: $(BIN) $(UNIT_BINS) $(WL_BINS) $(WL_SOS) $(REG_LIBS)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIBA): $(LIB_OBJS)
	$(call msg,AR,$@)$(AR) rcs $@ $^

$(BIN): $(MAIN_OBJ) $(APP_OBJS) $(LIBA)
	$(call msg,LD,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(APP_OBJS) $(LIBA) $(LDLIBS)

$(O)/tests/%: $(O)/tests/unit/%.o $(UNIT_HOBJ) $(APP_OBJS) $(LIBA)
	@mkdir -p $(dir $@)
	$(call msg,LD,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(UNIT_HOBJ) $(APP_OBJS) $(LIBA) $(LDLIBS) -lcmocka

# Workloads are built -O1 with frame pointers and symbols so profiles of them
# are stable; a file may ask for extra flags with a "// CFLAGS: ..." line.
$(O)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline $(shell sed -n 's|^// CFLAGS: ||p' $<) -o $@ $< $(shell sed -n 's|^// LDLIBS: ||p' $<)

$(O)/workloads/lib%.so: tests/workloads/lib%.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -fPIC -shared -o $@ $<

# pie_libcall spends most of its time in libpmwork.so, found through an $$ORIGIN rpath.
$(O)/workloads/pie_libcall: tests/workloads/pie_libcall.c $(O)/workloads/libpmwork.so
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -fPIE -pie -o $@ $< \
		-L$(O)/workloads -lpmwork -Wl,-rpath,'$$ORIGIN'

$(O)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(REG_A): $(REG_OBJS)
	$(call msg,AR,$@)$(AR) rcs $@ $^

$(REG_REAL): $(REG_OBJS)
	$(call msg,LD,$@)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(REG_SONAME) -o $@ $^ -lpthread

# libpmiprof-region.so -> .so.0 -> .so.VERSION, as installed: a program linked
# here with -lpmiprof-region needs libpmiprof-region.so.0 at run time.
$(REG_SO): $(REG_REAL)
	$(Q)ln -sf $(notdir $(REG_REAL)) $(O)/$(REG_SONAME) && ln -sf $(REG_SONAME) $@

# The region library alone (what the packages need besides build/pmiprof).
region: $(REG_LIBS)

version:
	@echo $(VERSION)

$(REG_PC): Makefile
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCDIR)' '' \
		'Name: pmiprof-region' 'Description: pmiprof code regions (pmiprof stat --regions)' \
		'Version: $(VERSION)' 'Libs: -L$${libdir} -lpmiprof-region' 'Libs.private: -lpthread' \
		'Cflags: -I$${includedir}' > $@

# Absolute paths, with an rpath to the built .so, so the program runs from anywhere.
$(REG_UPC): Makefile
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)printf '%s\n' 'libdir=$(abspath $(O))' 'includedir=$(CURDIR)/include' '' \
		'Name: pmiprof-region' \
		'Description: pmiprof code regions (pmiprof stat --regions), uninstalled build tree' \
		'Version: $(VERSION)' 'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lpmiprof-region' \
		'Libs.private: -lpthread' 'Cflags: -I$${includedir}' > $@

# Workloads named regions*.c use the region API: linked with the static library.
REG_WL    := $(patsubst tests/workloads/%.c,$(O)/workloads/%,$(wildcard tests/workloads/regions*.c))
$(REG_WL): $(O)/workloads/%: tests/workloads/%.c $(REG_A) include/pmiprof/region.h
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -DPMIPROF_REGIONS -Iinclude -o $@ $< $(REG_A) -lpthread

# callgraph without frame pointers (--call-graph dwarf tests): same source, flags last win.
$(O)/workloads/callgraph_nofp: tests/workloads/callgraph.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) -O1 -g -fno-inline $(shell sed -n 's|^// CFLAGS: ||p' $<) \
		-fomit-frame-pointer -o $@ $<

check: all
	$(Q)O=$(abspath $(O)) tests/run

vmtest: all module
	$(Q)O=$(abspath $(O)) tests/run --only vm

# Kernel module: KDIR defaults to the running kernel's build tree, else the
# newest installed Debian amd64 headers.
KDIR ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then echo /lib/modules/$$(uname -r)/build; \
          else ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1; fi)
module:
	@if [ -z "$(KDIR)" ]; then echo "make module: no kernel headers found; run 'make deps' or set KDIR=" >&2; exit 1; fi
	$(Q)$(MAKE) -C kernel KDIR=$(KDIR)

# make check runs the VM suite too, which needs pmiprof.ko: build it whenever
# kernel headers exist (KDIR must be defined above this line).
check: $(if $(KDIR),module)

modules_clean:
	$(Q)$(MAKE) -C kernel KDIR=$(KDIR) clean

# checkpatch --strict on kernel/ (skips, saying why, without linux-source).
checkpatch:
	$(Q)$(MAKE) -C kernel checkpatch O=$(abspath $(O))

deps:
	$(Q)tests/deps.sh

# README command (a): the main job on the default backend.
DEMO_DATA ?= $(O)/example.data
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(O)/pmiprof record -o $(DEMO_DATA) -- $(O)/workloads/shares
	$(O)/pmiprof report -i $(DEMO_DATA)

FUZZ_SECONDS ?= 60
fuzz:
	$(Q)tests/fuzz/run $(FUZZ_SECONDS)

bench: all
	$(Q)O=$(abspath $(O)) tests/bench/run

# pmiprof.ko for DKMS: the kernel sources flat, abi.h under include/, dkms.conf versioned.
DKMS_SRCDIR ?= /usr/src/pmiprof-$(VERSION)
UDEVDIR     ?= /etc/udev/rules.d
dkms-src:
	install -d $(DESTDIR)$(DKMS_SRCDIR)/include/pmiprof
	install -m 0644 kernel/Kbuild kernel/*.c kernel/*.h $(DESTDIR)$(DKMS_SRCDIR)/
	install -m 0644 include/pmiprof/abi.h $(DESTDIR)$(DKMS_SRCDIR)/include/pmiprof/
	sed 's/@VERSION@/$(VERSION)/g' kernel/dkms.conf > $(DESTDIR)$(DKMS_SRCDIR)/dkms.conf
	@rm -f $(DESTDIR)$(DKMS_SRCDIR)/*.mod.c

install: $(BIN) $(REG_LIBS) dkms-src
	install -d $(DESTDIR)$(UDEVDIR)
	install -m 0644 kernel/60-pmiprof.rules $(DESTDIR)$(UDEVDIR)/
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/pmiprof
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/pmiprof
	install -m 0644 $(REG_A) $(REG_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(REG_REAL)) $(DESTDIR)$(LIBDIR)/$(REG_SONAME)
	ln -sf $(REG_SONAME) $(DESTDIR)$(LIBDIR)/libpmiprof-region.so
	install -m 0644 $(REG_PC) $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 0644 include/pmiprof/region.h $(DESTDIR)$(INCDIR)/pmiprof/
	@for m in docs/man/*.1; do [ -f "$$m" ] && install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/; done; true
	install -d $(DESTDIR)$(SYSTEMDDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' daemon/service/pmiprof.service.in >$(DESTDIR)$(SYSTEMDDIR)/pmiprof.service
	chmod 0644 $(DESTDIR)$(SYSTEMDDIR)/pmiprof.service
	install -d $(DESTDIR)$(PREFIX)/share/doc/pmiprof
	install -m 0644 daemon/service/web-config.example.yml docs/daemon.md $(DESTDIR)$(PREFIX)/share/doc/pmiprof/

# Debian packages (docs/packaging.md): dpkg-buildpackage -us -uc -b from debian/
# in a copy of the tree under DEBDIR, so that the .debs, .buildinfo and .changes
# it writes into the parent directory land in DEBDIR and nothing is written
# outside this tree.  The version is VERSION: debian/changelog must say the same.
DEBDIR  ?= $(O)/deb
DEB_SRC := $(DEBDIR)/pmiprof-$(VERSION)
LINTIAN ?= 1
deb:
	@v=$$(dpkg-parsechangelog -l debian/changelog -SVersion) && [ "$$v" = "$(VERSION)" ] || \
		{ echo "make deb: debian/changelog is at $$v, the Makefile's VERSION is $(VERSION):" \
		       "add an entry (dch -v $(VERSION))" >&2; exit 1; }
	$(Q)rm -rf $(DEBDIR) && mkdir -p $(DEB_SRC)
	$(Q)tar -c --exclude-vcs --exclude=./build --exclude='./build-*' --exclude='./$(O)' \
		--exclude='./obj-*' --exclude=./$(HTML_NM) --exclude='*.o' --exclude='*.ko' \
		--exclude='*.cmd' --exclude='*.mod' --exclude='*.mod.c' --exclude='perf.data*' \
		--exclude='pmiprof.data*' --exclude=./debian/build --exclude=./debian/tmp . | \
		tar -x -C $(DEB_SRC)
	$(Q)for f in $(foreach a,$(HTML_ASSETS),$(lastword $(subst :, ,$(a)))); do \
		case $$f in $(HTML_NM)/*) [ -f $$f ] && install -D -m 0644 $$f $(DEB_SRC)/$$f;; esac; \
	done; true
	$(Q)cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
		{ tail -n 40 ../build.log >&2; echo "make deb: dpkg-buildpackage failed: $(DEBDIR)/build.log" >&2; exit 1; }
	$(Q)rm -rf $(DEB_SRC)
	$(Q)if [ "$(LINTIAN)" = 1 ] && command -v lintian >/dev/null; then \
		lintian --fail-on error --display-level '>=warning' --show-overrides \
			$(DEBDIR)/pmiprof_$(VERSION)_*.changes > $(DEBDIR)/lintian.txt 2>&1; e=$$?; \
		cat $(DEBDIR)/lintian.txt; [ $$e -eq 0 ] || { echo "make deb: lintian reports errors" >&2; exit 1; }; \
	fi
	@cd $(DEBDIR) && ls -l *.deb

clean:
	rm -rf $(O)

# -type f: a failed make deb leaves build/deb/.../lib/udev/rules.d, a directory
-include $(shell find $(O) -name '*.d' -type f -not -path '$(O)/deb/*' 2>/dev/null)

# report --html (report/output/html.c, docs/html.md): the page template, its script
# and the npm libraries (report/output/html/node_modules, from make deps) embedded
# as C arrays; a library that is absent is embedded empty and --html says so.
HTML_NM     := report/output/html/node_modules
HTML_ASSETS := page_html:report/output/html/page.html app_js:report/output/html/app.js \
               app_css:report/output/html/app.css \
               uplot_js:$(HTML_NM)/uplot/dist/uPlot.iife.min.js \
               uplot_css:$(HTML_NM)/uplot/dist/uPlot.min.css \
               flamegraph_js:$(HTML_NM)/d3-flame-graph/dist/d3-flamegraph.min.js \
               flamegraph_css:$(HTML_NM)/d3-flame-graph/dist/d3-flamegraph.css
$(O)/gen/html_assets.h: $(wildcard $(foreach a,$(HTML_ASSETS),$(lastword $(subst :, ,$(a))))) Makefile
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)for a in $(HTML_ASSETS); do n=html_$${a%%:*}; f=$${a#*:}; \
		if [ -f "$$f" ]; then xxd -i -n $$n < "$$f"; \
		else echo "static const unsigned char $$n[1]; static const unsigned int $${n}_len = 0;"; fi; \
	done > $@.tmp && sed -i 's/^unsigned/static const unsigned/' $@.tmp && mv $@.tmp $@
$(O)/report/output/html.o: $(O)/gen/html_assets.h
$(O)/report/output/html.o: CPPFLAGS += -I$(O)/gen
