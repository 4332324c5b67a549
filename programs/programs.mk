# The CLI's optional MPI part (programs/hosts_mpi.c and chunks_mpi.c, `--mpi`), included
# by the Makefile.
# Built with MPI when Open MPI's compiler wrapper is found (Debian: libopenmpi-dev);
# without it they build their stubs and everything else is as it was.
MPICC ?= mpicc
# -isystem: the warnings we build with are for our code, not MPI's headers.
MPI_CFLAGS := $(patsubst -I%,-isystem %,$(shell $(MPICC) --showme:compile 2>/dev/null))
MPI_LIBS := $(shell $(MPICC) --showme:link 2>/dev/null)
MPI_OBJS := $(BUILD)/obj/programs/hosts_mpi.o $(BUILD)/obj/programs/chunks_mpi.o
ifneq ($(strip $(MPI_LIBS)),)
$(MPI_OBJS): CPPFLAGS += $(MPI_CFLAGS) -DSTS_HAVE_MPI
$(MPI_OBJS): MPI_NOTE := MPI: on ($(MPICC): $(MPI_LIBS))
$(CLI) $(NOCL_CLI): LDLIBS += $(MPI_LIBS)
else
$(MPI_OBJS): MPI_NOTE := MPI: off ($(MPICC) not found; apt-get install libopenmpi-dev openmpi-bin for --mpi)
endif
# Say which, when the MPI part is compiled.
$(MPI_OBJS): $(BUILD)/obj/programs/%.o: programs/%.c $(FLAGS)
	@mkdir -p $(dir $@)
	@echo "  CC      $< [$(MPI_NOTE)]"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
