# base: ISA-L's inflater for gzip input where the machine has it (Debian libisal-dev,
# installed by scripts/deps.sh); zlib otherwise, and always as the fallback. instream
# refers to ISA-L weakly (a program linked without -lisal still links, and inflates
# with zlib), so the library is linked without --as-needed, which would drop it.
ifneq ($(wildcard /usr/include/isa-l/igzip_lib.h),)
  CPPFLAGS += -DSTS_HAVE_ISAL
  LDLIBS += -Wl,--no-as-needed -lisal -Wl,--as-needed
endif
