# base: ISA-L's inflater for gzip input where the machine has it (Debian libisal-dev,
# installed by scripts/deps.sh); zlib otherwise, and always as the fallback.
ifneq ($(wildcard /usr/include/isa-l/igzip_lib.h),)
  CPPFLAGS += -DSTS_HAVE_ISAL
  LDLIBS += -lisal
endif
