# Data Parallelism from Scratch: the one entry point.
#
#   make                 every stage program
#   make chapterN        the stage program of chapter N (chapter1: ./mlp, chapter2: ./pingpong,
#                        chapter3: ./ps, chapter4: ./collectives, chapter5: ./ring,
#                        chapter6: ./train, chapter7: ./train with --strategy zero1, zero2, fsdp,
#                        chapter8: ./train --strategy direct, ./allreduce_bench,
#                        chapter9: ./train --strategy hierarchical; make hosts for real hosts,
#                        chapter10: ./train --grad_dtype bf16|fp16, --compress powersgd:R|topk:F,
#                        chapter11: ./train --strategy tensor --tp T)
#   make tangle          chapters/*.nw -> tangled/ and kernels/ (needs noweb)
#   make test            drift, layer and CI-inventory checks + Criterion tests (DEVICE=cpu|cuda|twin;
#                        CHAPTER=N)
#   make ci-full         everything CI ran before it was cut to 40 minutes (.ci/stages), with each
#                        stage's seconds; before resolving an issue that touches the build, the
#                        programs' output, the exercises or the grader (root; about 80 minutes)
#   make soak            the whole suite RUNS=20 times beside LOAD=2 busy processes
#   make matrix          every build variant (no OpenBLAS/CUDA/MPI, clang, gcc 11, NATIVE=0,
#                        other OpenBLAS kernels, 1 and 8 cores) through make test (MATRIX=...)
#   make fresh-check     the README's two commands on fresh Debian 12 and 13 roots
#                        (debootstrap; as root and as an ordinary user; needs root)
#   make book            book/book.pdf (INSTRUCTOR=1: book/book-instructor.pdf, with answers)
#   make docs            Doxygen HTML into build/docs, warnings are errors
#   make faults          50 kill -9s of a random rank of ./ring and ./ps (FAULT_TRIALS=50)
#   make hosts           chapter 9's test hosts on this machine (HOSTS=2 LINK=1gbit; LINK=none:
#                        unshaped; needs root); then scripts/hosts.sh run K ./train --transport mpi
#   make hosts-down      remove them, and everything that runs on them
#   make memcheck        valgrind on short ./mlp and ./ring runs
#   make fuzz            libFuzzer on the IDX, checkpoint and option parsers (FUZZ_SECONDS=30)
#   make test SANITIZE=address,undefined    the tests with the sanitizers
#   make bench           every measured figure of the book, beside its peers (MPI, gloo,
#                        PyTorch, memcpy), as CSV into book/data/ (BENCH_ITERS=20,
#                        BENCH_MAX=256M; BENCH_PARTS="collectives train": only those parts,
#                        BENCH_OUT=DIR: elsewhere); about half an hour on 2 cores
#   make grade           exercise scores, results.json, one score line (CHAPTER=N: one chapter)
#   make handout         a student tarball of HEAD without solutions/, tests/hidden/ and
#                        instructors/, with the book's PDF
#   make autograder      a Gradescope autograder zip of HEAD, hidden tests included
#                        (CHAPTER=N or "3 4": a weekly one; HIDDEN_VISIBILITY=visible|...)
#   make autograder-check  those zips run as Gradescope runs them, on solutions and mistakes
#   make handout-check   the handout and the student's book hold none of the answers' sentences,
#                        and none of its functions answers an exercise
#   make guide           the instructor's guide's counts and points, from the MANIFEST and tests
#   make syllabus        the guide's three courses, week by week, from the built book's pages
#   make deps            install the Debian packages (deps-test, deps-book: only what those need;
#                        each waits for the package lock, DEPS_WAIT=600 seconds at most)
#   make clean
#
# Optional parts are detected and announced; opt out with NO_CUDA=1, NO_BLAS=1, NO_MPI=1.

SHELL    := /bin/bash
CC       ?= gcc

# A fresh machine may have git and make and no C compiler (Debian's minimal install): the
# first build installs one (scripts/deps.sh: as root or through sudo, waiting for the
# package lock), or says in one line what to install and stops. Only a compiler named
# without a path (cc, gcc, clang, clang-14...) is installed; a path is the user's to provide.
NO_CC_GOALS := clean help hosts hosts-down deps deps-test deps-book deps-docs tangle manifest guide autograder fresh-check syllabus \
               docs check-tangle check-layers check-ci ci-full chapter0
CC_NAME     := $(firstword $(CC))
ifeq ($(shell command -v $(CC_NAME) 2>/dev/null),)
ifneq ($(filter-out $(NO_CC_GOALS),$(or $(MAKECMDGOALS),all)),)
CC_PACKAGE := $(if $(findstring /,$(CC_NAME)),,$(if $(filter cc gcc,$(CC_NAME)),build-essential,$(if $(filter clang%,$(CC_NAME)),$(CC_NAME))))
ifeq ($(CC_PACKAGE),)
$(error CC=$(CC): no such compiler here; install it, or leave CC unset for the system's cc)
endif
ifeq ($(shell [ "$$(id -u)" = 0 ] || command -v sudo; echo $$?),1)
$(error no C compiler ($(CC)), and installing one needs root or sudo: as root, apt-get install $(CC_PACKAGE), then make again)
endif
$(info build: no C compiler ($(CC)): installing $(CC_PACKAGE) (scripts/deps.sh))
ifneq ($(shell scripts/deps.sh "the build" $(CC_PACKAGE) >&2; echo $$?),0)
$(error no C compiler: the install of $(CC_PACKAGE) failed (above); install it and run make again)
endif
ifeq ($(shell command -v $(CC_NAME) 2>/dev/null),)
$(error $(CC_PACKAGE) is installed, but there is still no $(CC_NAME): install it yourself, or name another with CC=)
endif
endif
endif
NATIVE   ?= 1
OPT      ?= -O3
WERROR   ?= -Werror
# The library's folders, one per layer, bottom first (tests/layers.txt); every one is on
# the include path, so a file includes "comm.h", and the layer check reads the folders.
LAYERS   := $(shell awk 'NF && $$1 !~ /^[[:punct:]]/ {print $$1}' tests/layers.txt)
SRC_DIRS := $(addprefix tangled/,$(LAYERS))
INCLUDES := $(addprefix -I,$(SRC_DIRS))
CFLAGS_BASE := -std=c11 $(OPT) -g -Wall -Wextra $(WERROR) -D_GNU_SOURCE $(INCLUDES) -MMD -MP
ifeq ($(NATIVE),1)
CFLAGS_BASE += -march=native
endif
# -rdynamic: the backends loaded with dlopen() (CUDA's, NCCL's, the tests' twin) call back
# into the program (fatal, error_set, device_cpu).
LDLIBS   := -rdynamic -ldl -lm -lpthread
# SANITIZE=address,undefined: every C object, program and test built with those sanitizers
# (the objects rebuild when it changes, like any flag); leaks are valgrind's (make memcheck).
SANITIZE ?=
ifneq ($(SANITIZE),)
CFLAGS_BASE += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_ENV := ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
endif
DEVICE   ?= cpu

CHAPTERS := $(sort $(wildcard chapters/*.nw))
BUILD    := build
OBJ      := $(BUILD)/obj

# ---------------------------------------------------------------- detection
HASH := \#
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
ifeq ($(NO_CUDA),1)
HAVE_CUDA :=
CUDA_WHY  := off (NO_CUDA=1)
else ifneq ($(NVCC),)
HAVE_CUDA := 1
CUDA_WHY  := found ($(NVCC))
else
HAVE_CUDA :=
CUDA_WHY  := not found (CPU only; install the CUDA toolkit for the GPU backend)
endif

# EXERCISES=1: the started exercises that replace a book function, "chN/name:function" each
# (linked in below).
ifeq ($(EXERCISES),1)
EX_STARTED := $(shell tests/grade.sh replacing)
endif
ifeq ($(NO_BLAS),1)
HAVE_BLAS :=
BLAS_WHY  := off (NO_BLAS=1, plain-C GEMM)
else
HAVE_BLAS := $(shell printf '$(HASH)include <cblas.h>\nint main(void){float a=1,b=1,c=0;cblas_sgemm(CblasRowMajor,CblasNoTrans,CblasNoTrans,1,1,1,1.0f,&a,1,&b,1,0.0f,&c,1);return c!=1;}\n' \
               | $(CC) -x c - -o /dev/null -lopenblas >/dev/null 2>&1 && echo 1)
ifeq ($(HAVE_BLAS),1)
BLAS_WHY  := found (cblas_sgemm from -lopenblas)
else
BLAS_WHY  := not found (plain-C GEMM; apt-get install libopenblas-dev)
endif
endif

HAVE_MPI  := $(if $(filter 1,$(NO_MPI)),,$(if $(shell command -v mpicc 2>/dev/null),1))
HAVE_NCCL := $(if $(HAVE_CUDA),$(if $(wildcard $(CUDA_HOME)/include/nccl.h /usr/include/nccl.h),1))

# The GPU architecture: the card's own when one answers, Hopper (sm_90) otherwise.
CUDA_ARCH ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo native || echo sm_90)
NVCCFLAGS := -O3 -arch=$(CUDA_ARCH) -std=c++17 $(INCLUDES) -Xcompiler -Wall,-Wextra,-fPIC $(if $(WERROR),-Werror all-warnings) -MMD -MP

CFLAGS := $(CFLAGS_BASE)
ifeq ($(HAVE_BLAS),1)
CFLAGS += -DHAVE_BLAS
LDLIBS := -lopenblas $(LDLIBS)
endif
# CUDA, cuBLAS, NCCL and MPI are not linked into the programs: they live in backends, shared
# libraries in build/lib that a program loads with dlopen() when a run uses them (chapter 1,
# "Loading CUDA only when it is used"; chapter 6 for MPI, whose network libraries cost every
# start a clock calibration on Debian 13). A program finds them in DPS_BACKEND_DIR; the
# backends call back into the program (fatal, error_set), hence -rdynamic.
BACKEND_DIR  := $(BUILD)/lib
BACKENDS     :=
BACKEND_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64
ifeq ($(HAVE_CUDA),1)
CFLAGS   += -DHAVE_CUDA
BACKENDS += $(BACKEND_DIR)/libdps_cuda.so
endif
ifeq ($(HAVE_NCCL),1)
CFLAGS   += -DHAVE_NCCL
BACKENDS += $(BACKEND_DIR)/libdps_nccl.so
endif
ifeq ($(HAVE_MPI),1)
CFLAGS   += -DHAVE_MPI
BACKENDS += $(BACKEND_DIR)/libdps_mpi.so
MPI_CFLAGS := $(shell mpicc --showme:compile)
MPI_LIBS   := $(shell mpicc --showme:link)
endif

ifeq ($(MAKELEVEL),0)
ifeq ($(filter clean hosts hosts-down deps deps-test deps-book deps-docs deps-book-check tangle book docs help manifest guide handout handout-check autograder autograder-check matrix fresh-check ci-full check-ci autograder-check-book autograder-check-chapters autograder-check-zips syllabus,$(MAKECMDGOALS)),)
$(info build: nvcc $(CUDA_WHY))
$(info build: OpenBLAS $(BLAS_WHY))
$(info build: mpicc $(if $(HAVE_MPI),found (--transport mpi),$(if $(filter 1,$(NO_MPI)),off (NO_MPI=1),not found)))
$(info build: NCCL $(if $(HAVE_NCCL),found (used from chapter 6),not found))
endif
endif

# Objects depend on the configuration, so NO_BLAS=1 or NO_CUDA=1 rebuilds what they change.
# The tree's own place counts only where device.o holds it (DPS_BACKEND_DIR, with the CUDA
# backends): a copy of a tree built without them (the autograder's image, copied for each
# submission make autograder-check grades) needs nothing built again.
CONFIG := $(CC) $(CFLAGS) | $(LDLIBS) | $(NVCC) $(NVCCFLAGS) | $(HAVE_CUDA) $(MPI_CFLAGS) $(MPI_LIBS) $(if $(BACKENDS),| $(CURDIR))
$(shell mkdir -p $(OBJ) && { echo '$(CONFIG)' | cmp -s - $(BUILD)/config || echo '$(CONFIG)' > $(BUILD)/config; })

# ---------------------------------------------------------------- sources
PROGRAMS   := mlp pingpong ps collectives ring train allreduce_bench ckpt scale
# A program's main is tangled/programs/NAME_main.c.
main_of    = tangled/programs/$(1)_main.c
PROG_SRCS  := $(foreach p,$(PROGRAMS),$(call main_of,$(p)))
# The sources of the backends: not in the library, built into build/lib/libdps_*.so.
MPI_BACKEND_SRCS := tangled/comm/mpi_backend.c tangled/comm/mpi_window.c
BACKEND_SRCS := tangled/comm/nccl_backend.c $(MPI_BACKEND_SRCS) $(wildcard kernels/*.cu)
LIB_SRCS   := $(filter-out $(PROG_SRCS) $(BACKEND_SRCS),$(wildcard $(addsuffix /*.c,$(SRC_DIRS))))
LIB_OBJS   := $(patsubst tangled/%.c,$(OBJ)/%.o,$(LIB_SRCS))
LIB        := $(BUILD)/libdps.a

.PHONY: all chapter0 chapter1 chapter2 chapter3 chapter4 chapter5 chapter6 chapter7 chapter8 chapter9 chapter10 chapter11 tangle check-tangle check-variants check-layers test test-run deps deps-test deps-book deps-docs deps-check deps-book-check \
        book docs clean help grade grade-build grade-submission manifest guide handout handout-check autograder autograder-check \
        bench faults memcheck fuzz soak matrix fresh-check hosts hosts-down prove solutions ci-full check-ci \
        autograder-check-book autograder-check-chapters autograder-check-zips syllabus
.DEFAULT_GOAL := all

all: $(PROGRAMS)
chapter0:
	@echo "chapter 0 is prose only: make book"
chapter1: mlp ckpt
chapter2: pingpong
chapter3: ps
chapter4: collectives
chapter5: ring collectives
chapter6: train collectives allreduce_bench
chapter7: train collectives
chapter8: train collectives allreduce_bench
chapter9: train collectives scale
chapter10: train ring
chapter11: train

$(OBJ)/%.o: tangled/%.c $(BUILD)/config
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/%.cu.o: kernels/%.cu $(BUILD)/config
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# The one object that loads backends learns where they are.
$(OBJ)/device/device.o: CFLAGS += $(if $(BACKENDS),-DDPS_BACKEND_DIR='"$(CURDIR)/$(BACKEND_DIR)"')

$(LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BACKEND_DIR)/libdps_cuda.so: $(patsubst kernels/%.cu,$(OBJ)/%.cu.o,$(wildcard kernels/*.cu))
	@mkdir -p $(@D)
	$(CC) -shared $^ -o $@ $(BACKEND_LIBS) -lcublasLt -lcublas -lcudart -lstdc++

$(BACKEND_DIR)/libdps_nccl.so: tangled/comm/nccl_backend.c tangled/comm/nccl_backend.h $(BUILD)/config
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -I$(CUDA_HOME)/include -shared $< -o $@ $(BACKEND_LIBS) -lnccl -lcudart

# MPI's backend: the transport and its windows, with mpicc's flags; the rest of the build
# includes no MPI header and links no MPI library.
$(BACKEND_DIR)/libdps_mpi.so: $(MPI_BACKEND_SRCS) tangled/comm/mpi_backend.h tangled/comm/mpi_window.h \
                              tangled/comm/comm.h $(BUILD)/config
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(MPI_CFLAGS) -fPIC -shared $(MPI_BACKEND_SRCS) -o $@ $(MPI_LIBS)

# EXERCISES=1: every started exercise that replaces a book function is compiled under the
# book function's name and linked before the library; the book's version is weak. One more
# object, ex-linked.o, tells the programs' banners what was linked (appendix A,
# exercises_linked); it is rewritten only when that list changes.
ifeq ($(EXERCISES),1)
EX_OBJS := $(foreach e,$(EX_STARTED),$(OBJ)/ex-$(subst /,-,$(firstword $(subst :, ,$(e)))).o)
ifneq ($(EX_STARTED),)
EX_OBJS += $(OBJ)/ex-linked.o
EX_LINE := $(shell printf '%s\n' $(EX_STARTED) | sed 's/:/ in place of /' | paste -sd, | sed 's/,/, /g')
EX_SRC  := \#include "util.h"\nconst char *exercises_linked(void) { return "$(EX_LINE)"; }
$(shell printf '$(EX_SRC)\n' | cmp -s - $(OBJ)/ex-linked.c || printf '$(EX_SRC)\n' > $(OBJ)/ex-linked.c)
endif
ifeq ($(MAKELEVEL),0)
$(info build: EXERCISES=1: $(if $(EX_STARTED),linking $(EX_LINE),no started exercise replaces a book function))
endif
$(OBJ)/ex-linked.o: $(OBJ)/ex-linked.c $(BUILD)/config
	$(CC) $(CFLAGS) -c $< -o $@
define ex_rule
$(OBJ)/ex-$(subst /,-,$(1)).o: exercises/$(1).c exercises/MANIFEST $(BUILD)/config
	$$(CC) $$(CFLAGS) -Iexercises/$(dir $(1)) -D$(notdir $(1))=$(2) -c $$< -o $$@
endef
$(foreach e,$(EX_STARTED),$(eval $(call ex_rule,$(firstword $(subst :, ,$(e))),$(lastword $(subst :, ,$(e))))))
endif

define program_rule
$(1): $(patsubst tangled/%.c,$(OBJ)/%.o,$(call main_of,$(1))) $$(EX_OBJS) $$(LIB) | $$(BACKENDS)
	$$(CC) $$(CFLAGS) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach p,$(PROGRAMS),$(eval $(call program_rule,$(p))))

-include $(wildcard $(OBJ)/*.d $(OBJ)/*/*.d $(BACKEND_DIR)/*.d)

# ---------------------------------------------------------------- literate pipeline
# Every root chunk named [[file.c]], [[file.h]] or [[file.cu]] in any chapter is a
# file: .c and .h go to tangled/ (named with their layer's folder, [[comm/comm.c]]), .cu to
# kernels/. All chapters are tangled
# together, so a later chapter may add to a chunk an earlier one started.
# notangle keeps each chunk in the column of its use in the .nw, so the result is
# formatted with the project's .clang-format (clang-format 14, pinned: another
# version formats differently and the drift check would fail); scripts/relines.awk
# then puts back the #line directives that the formatting moved.
# $(1) is the directory that receives tangled/ and kernels/.
define tangle_into
	set -e; mkdir -p $(1)/tangled $(1)/kernels; \
	for root in $$(noroots $(CHAPTERS) | sed -n 's/^<<\[\[\(.*\)\]\]>>$$/\1/p' | sort -u); do \
	  case "$$root" in \
	    *.cu) dir=kernels; line=-L ;; \
	    *.c)  dir=tangled; line=-L ;; \
	    *.h)  dir=tangled; line= ;; \
	    *) continue ;; \
	  esac; \
	  mkdir -p $$(dirname $(1)/$$dir/$$root); \
	  out=$(1)/$$dir/$$root; \
	  notangle $$line -R"[[$$root]]" $(CHAPTERS) > $$out.raw; \
	  awk -f scripts/unline.awk $$out.raw | $(CLANG_FORMAT) --style=file:$(CURDIR)/.clang-format \
	    --assume-filename=$$root > $$out.fmt; \
	  if [ -n "$$line" ]; then awk -f scripts/relines.awk $$out.raw $$out.fmt > $$out.new; \
	  else mv $$out.fmt $$out.new; fi; rm -f $$out.raw $$out.fmt; \
	  cpif $(1)/$$dir/$$root < $(1)/$$dir/$$root.new; rm -f $(1)/$$dir/$$root.new; \
	  chmod 644 $(1)/$$dir/$$root; \
	done; \
	unused=$$(noroots $(CHAPTERS) | grep -v '^<<\[\[' || true); \
	if [ -n "$$unused" ]; then echo "tangle: chunks defined but never used: $$unused" >&2; exit 1; fi
endef

# Debian 12's clang-format-14, or (Debian 13 and later, which carry none) PyPI's clang-format
# 14.0.6, which scripts/deps.sh installs into build/tools. Expanded where it is used, so
# that the one make deps-test just installed is found.
CF_WHEEL      = $(CURDIR)/build/tools/clang-format-14/bin/clang-format
CLANG_FORMAT ?= $(if $(shell command -v clang-format-14),clang-format-14,$(if $(wildcard $(CF_WHEEL)),$(CF_WHEEL),clang-format-14))

tangle:
	@command -v notangle >/dev/null || { echo "tangle: notangle not found: make deps" >&2; exit 1; }
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "tangle: $(CLANG_FORMAT) not found: make deps" >&2; exit 1; }
	@$(call tangle_into,.)
	@echo "tangle: $$(find tangled kernels -type f | grep -c '\.') files from $(words $(CHAPTERS)) chapters"

# The code that only make bench's copies compile (chapter 8's measurements of a yield, a push
# and a binding, each against the code without it): each macro's files compile warning-free.
VARIANTS := DPS_YIELD_POLLS=0:tangled/comm/shm_channel.c DPS_TWO_SHOT_PULL:tangled/collectives/direct.c \
            DPS_NO_BIND:tangled/run/ranks.c DPS_NO_BIND:tangled/comm/shm_channel.c
check-variants:
	@for v in $(VARIANTS); do \
	  $(CC) $(CFLAGS) -D$${v%%:*} -fsyntax-only $${v#*:} || { echo "variants: $${v#*:} does not compile with -D$${v%%:*}" >&2; exit 1; }; \
	done; echo "variants: $(words $(VARIANTS)) builds of make bench's copies compile"

# Fail, naming the file, when tangled/ or kernels/ differ from a fresh tangle.
check-tangle: deps-check
	@rm -rf $(BUILD)/tangle-check
	@$(call tangle_into,$(BUILD)/tangle-check)
	@status=0; \
	for d in tangled kernels; do \
	  for f in $$(find $(BUILD)/tangle-check/$$d -type f); do \
	    g=$${f#$(BUILD)/tangle-check/}; \
	    if [ ! -e "$$g" ]; then echo "drift: $$g is missing: run make tangle and commit it" >&2; status=1; \
	    elif ! cmp -s "$$f" "$$g"; then echo "drift: $$g differs from what chapters/*.nw say: edit the chapter, run make tangle, commit both" >&2; status=1; fi; \
	  done; \
	  for g in $$(find $$d -type f); do \
	    [ -e "$(BUILD)/tangle-check/$$g" ] || { echo "drift: $$g is not produced by any chapter" >&2; status=1; }; \
	  done; \
	done; \
	map=$$(tests/file_map.sh) || status=1; \
	printf '%s\n' "$$map" | cmp -s - <(sed -n '/^<!-- file map -->$$/,/^<!-- end -->$$/p' README.md | sed '1d;$$d') || \
	  { echo "drift: README.md's map of the code is not tests/file_map.sh's: paste its output" >&2; status=1; }; \
	scripts/gpu_facts.sh | cmp -s - <(sed -n '/^<!-- gpu facts -->$$/,/^<!-- end -->$$/p' README.md | sed '1d;$$d') || \
	  { echo "drift: README.md's 'What has run on a GPU' is not scripts/gpu_facts.sh's: paste its output" >&2; status=1; }; \
	scripts/spread_facts.sh | cmp -s - <(sed -n '/^<!-- spread -->$$/,/^<!-- end -->$$/p' README.md | sed '1d;$$d') || \
	  { echo "drift: README.md's 'How much the machine changes the numbers' is not scripts/spread_facts.sh's: paste its output" >&2; status=1; }; \
	$(CLANG_FORMAT) --style=file:$(CURDIR)/.clang-format --dry-run -Werror $$(find tangled kernels -name '*.[ch]' -o -name '*.cu') || status=1; \
	awk -f tests/check_lines.awk $$(find tangled kernels -name '*.c' -o -name '*.cu') || status=1; \
	[ $$status = 0 ] && echo "tangle: tangled/ and kernels/ match the chapters and are formatted"; exit $$status

# ---------------------------------------------------------------- tests
# The book's tests of one directory (tests/chN, tests/failure), without the exercises' ex_*.c.
book_tests = $(sort $(foreach f,$(wildcard $(1)/*.c),$(if $(findstring /ex_,$(f)),,$(f))))
TEST_DIRS := $(sort $(wildcard tests/ch[0-9]*)) tests/failure
TEST_SRCS := $(foreach d,$(TEST_DIRS),$(call book_tests,$(d)))
TEST_HDRS := $(wildcard tests/*.h tests/ch*/*.h tests/failure/*.h)
TEST_JOBS ?= 2

# CHAPTER=N narrows make test to chapter N: its started exercises and its book tests, one
# binary of their own (build/tests/chN); CHAPTER=B is appendix B (tests/failure).
CHAPTER_DIR := $(if $(CHAPTER),$(if $(filter B b,$(CHAPTER)),tests/failure,tests/ch$(patsubst ch%,%,$(CHAPTER))))
ifneq ($(CHAPTER_DIR),)
ifneq ($(filter test test-run soak,$(MAKECMDGOALS)),)
ifeq ($(wildcard $(CHAPTER_DIR)/*.c),)
$(error CHAPTER=$(CHAPTER): there is no $(CHAPTER_DIR); chapters with tests: $(patsubst tests/ch%,%,$(filter tests/ch%,$(TEST_DIRS))) and B)
endif
endif
TEST_BIN := $(BUILD)/tests/$(notdir $(CHAPTER_DIR))
else
TEST_BIN := $(BUILD)/tests/book
endif

# The tests' CPU twin of the CUDA backend, opened as CUDA is (tests/twin_backend.c):
# DEVICE=twin makes it the device under test, so that a test that would fork ranks after
# opening a GPU is refused on the CPU as it fails on a GPU.
TWIN := $(BUILD)/tests/libdps_twin.so
$(TWIN): tests/twin_backend.c tangled/device/device.h $(BUILD)/config
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared $< -o $@

# The autograder's warden (tests/jail/warden.c), which tests/ch1/test_warden.c runs.
WARDEN := $(BUILD)/tests/warden
$(WARDEN): tests/jail/warden.c tests/jail/wire.c tests/jail/jail.h $(BUILD)/config
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) tests/jail/warden.c tests/jail/wire.c -o $@

# $(call tests_rule,NAME,SOURCES): the test binary build/tests/NAME. "book" holds every
# directory's tests; each directory also has a binary of its own for CHAPTER=N.
define tests_rule
$(BUILD)/tests/$(1): $(2) $(TEST_HDRS) $(LIB) $(BUILD)/config | $(BACKENDS) $(TWIN) $(WARDEN)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -Itests $(2) $(LIB) -o $$@ -lcriterion $$(LDLIBS)
endef
$(eval $(call tests_rule,book,$(TEST_SRCS)))
$(foreach d,$(TEST_DIRS),$(eval $(call tests_rule,$(notdir $(d)),$(call book_tests,$(d)))))

# What the tests run is built first with BUILD_JOBS jobs (the machine's cores), then run.
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test: check-tangle check-layers check-ci
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) $(PROGRAMS) $(TEST_BIN) $(TWIN)
	@$(MAKE) --no-print-directory test-run

# CI's inventory (.ci/stages): every check runs in .ci/run or make ci-full, and those CI must
# keep are in .ci/run (tests/check_ci.sh).
check-ci:
	@tests/check_ci.sh

# Everything CI ran before it was scoped to its 40 minutes (.ci/stages: the ci and full
# stages), with the same table of each stage's seconds: before resolving an issue that
# touches the build, the programs' output, the exercises or the grader. Root; about 80 minutes.
ci-full:
	@.ci/run --full

# Every #include of the tangled code points down or across the layers of tests/layers.txt.
check-layers:
	@tests/check_layers.sh tests/layers.txt tangled

# The exercises first (students' started ones, then the proof that the tests can fail),
# the book's tests last, so that Criterion's summary closes the run.
# The tests run TEST_JOBS at a time on the machine's cores, so every program and test they
# start gets one OpenBLAS thread (unless OPENBLAS_NUM_THREADS is given; test_machine.c sets
# its own): OpenBLAS's threads spin while they wait for work, and two tests' programs, each
# with a thread per core, took 71 s for what each does alone in 2 s (two ./mlp --epochs 3 of
# the README's tests, Debian 13's OpenBLAS 0.3.29; one under two busy loops on Debian 12,
# 61 s against 1.3 s).
TEST_ENV  = OPENBLAS_NUM_THREADS=$(or $(OPENBLAS_NUM_THREADS),1) $(SAN_ENV)
GRADE_ENV = CC="$(CC)" CFLAGS="$(CFLAGS)" LDLIBS="$(LDLIBS)" LIB="$(LIB)" DPS_TEST_DEVICE=$(DEVICE) PROVE_JOBS=$(TEST_JOBS) $(TEST_ENV) \
            $(if $(SANITIZE),PROVE_ONLY=solutions)

test-run: $(PROGRAMS) $(TEST_BIN) $(TWIN)
	@status=0; echo "test: exercises"; \
	 $(GRADE_ENV) tests/grade.sh test "$(CHAPTER)" || status=1; \
	 $(GRADE_ENV) tests/grade.sh prove "$(CHAPTER)" || status=1; \
	 echo "test: running the book's tests$(if $(CHAPTER), of $(CHAPTER_DIR)) on DEVICE=$(DEVICE)$(if $(SANITIZE), with -fsanitize=$(SANITIZE))"; \
	 rm -f $(TEST_BIN).tap; \
	 DPS_TEST_DEVICE=$(DEVICE) $(TEST_ENV) $(TEST_BIN) --timeout 120 -j$(TEST_JOBS) --short-filename \
	   --tap=$(TEST_BIN).tap || status=1; \
	 awk -f tests/skips.awk $(TEST_BIN).tap; \
	 exit $$status

# The proof of the exercises' tests alone (make test runs it): every solution passes every
# public and hidden test, every pristine skeleton fails each one (CHAPTER=N: chapter N's).
prove: $(LIB)
	@$(GRADE_ENV) tests/grade.sh prove "$(CHAPTER)"

# The solutions' test binaries, built and not run (make soak runs them; make matrix's older
# compiler builds them all and runs chapter 1's).
solutions: $(LIB)
	@$(GRADE_ENV) tests/grade.sh solutions

# The whole suite RUNS times beside LOAD busy processes; per failing test, the runs it failed.
RUNS ?= 20
LOAD ?= 2
soak: $(PROGRAMS) $(BUILD)/tests/book solutions
	@RUNS=$(RUNS) LOAD=$(LOAD) TEST_JOBS=$(TEST_JOBS) DPS_TEST_DEVICE=$(DEVICE) $(TEST_ENV) \
	  tests/soak.sh $(BUILD)/tests/book

# Chapter 9's hosts: network namespaces on a bridge, links shaped by tc (scripts/hosts.sh).
HOSTS ?= 2
LINK  ?= 1gbit
hosts:
	@scripts/hosts.sh up $(HOSTS) $(LINK)
hosts-down:
	@scripts/hosts.sh down && echo "hosts: none left"

# Appendix B's fault trials at full size: kill -9 of a random rank of a 4-rank ./ring or ./ps,
# FAULT_TRIALS times (make test runs 6), with the slowest abort time and the leftovers.
FAULT_TRIALS ?= 50
faults: $(PROGRAMS) $(BUILD)/tests/failure
	@DPS_FAULT_TRIALS=$(FAULT_TRIALS) $(BUILD)/tests/failure --filter 'failure_faults/*' --verbose=1 2>&1 \
	  | grep -v -e '^\[SKIP\]' -e '^\[====\] Running' -e 'Criterion v'; exit $${PIPESTATUS[0]}

# valgrind memcheck on short runs of ./mlp and ./ring (and a resume): no error, no definite
# leak. Built without -march=native (valgrind does not decode AVX-512) and without CUDA
# (cuBLAS's loader trips valgrind before main, and these runs are on the CPU).
MEMCHECK := valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
            --show-leak-kinds=definite
memcheck:
	@command -v valgrind >/dev/null || { echo "memcheck: valgrind missing: make deps" >&2; exit 1; }
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) NATIVE=0 NO_CUDA=1 SANITIZE= mlp ring train
	@set -e; d=$$(mktemp -d); \
	 echo "memcheck: ./mlp --epochs 1"; \
	 $(MEMCHECK) ./mlp --device cpu --epochs 1 --train_size 256 --hidden 16 --quiet; \
	 echo "memcheck: ./ring --n_gpus 2 --epochs 1 --checkpoint"; \
	 $(MEMCHECK) ./ring --n_gpus 2 --device cpu --epochs 1 --train_size 256 --hidden 16 --quiet \
	   --checkpoint $$d/run.ckpt; \
	 echo "memcheck: ./ring --n_gpus 2 with chapter 10's codecs (PowerSGD, top-k, fp16)"; \
	 for c in "--compress powersgd:2" "--compress topk:0.01" "--grad_dtype fp16"; do \
	   $(MEMCHECK) ./ring --n_gpus 2 --device cpu --epochs 1 --train_size 256 --hidden 16 --quiet $$c; done; \
	 echo "memcheck: ./mlp --resume of the ring's checkpoint (the same global batch)"; \
	 $(MEMCHECK) ./mlp --device cpu --epochs 2 --train_size 256 --hidden 16 --batch_size 128 \
	   --quiet --checkpoint $$d/run.ckpt --resume; \
	 echo "memcheck: ./train --strategy tensor, a grid of 2 rows of 2 (chapter 11)"; \
	 $(MEMCHECK) ./train --strategy tensor --n_gpus 4 --tp 2 --device cpu --epochs 1 \
	   --train_size 256 --hidden 16,16 --quiet; \
	 rm -rf $$d; echo "memcheck: valgrind found no error in ./mlp, ./ring (with codecs too), the resume and the grid"

# libFuzzer on the IDX parsers, the checkpoint reader and the option parser, FUZZ_SECONDS
# each, from the seeds and the kept regressions; a crash stops with its input in build/fuzz.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_TARGETS := checkpoint idx options
FUZZ_SRCS    := tangled/model/checkpoint.c tangled/model/data.c tangled/run/options.c tangled/run/option_table.c tangled/run/option_values.c \
                tangled/support/util.c tangled/support/rng.c tangled/support/report.c \
                tangled/support/trace.c \
                tangled/model/model.c
fuzz:
	@printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return d && n < 0; }\n' | \
	  $(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null || \
	  { echo "fuzz: $(FUZZ_CC) with libFuzzer is missing: make deps (clang)" >&2; exit 1; }
	@mkdir -p $(BUILD)/fuzz
	@set -e; for t in $(FUZZ_TARGETS); do \
	  $(FUZZ_CC) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -D_GNU_SOURCE $(INCLUDES) -Itests/fuzz -DFUZZ_TARGET=fuzz_$$t tests/fuzz/fuzz.c \
	    $(FUZZ_SRCS) -lm -o $(BUILD)/fuzz/$$t; \
	  mkdir -p $(BUILD)/fuzz/$$t-corpus; \
	  if ! $(BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	       -artifact_prefix=$(BUILD)/fuzz/$$t- $(BUILD)/fuzz/$$t-corpus tests/fuzz/seeds/$$t \
	       tests/fuzz/regressions/$$t > $(BUILD)/fuzz/$$t.log 2>&1; then \
	    tail -30 $(BUILD)/fuzz/$$t.log; \
	    echo "fuzz: $$t: failed; keep the input (build/fuzz/$$t-*) in tests/fuzz/regressions/$$t after the fix" >&2; \
	    exit 1; \
	  fi; \
	  echo "fuzz: $$t: $$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' $(BUILD)/fuzz/$$t.log), \
	    $$(ls $(BUILD)/fuzz/$$t-corpus | wc -l) inputs in the corpus, no crash"; \
	done

# The build variants a reader's machine may differ by (no OpenBLAS, no CUDA, no MPI, clang,
# gcc 11, portable code, two other OpenBLAS kernel families, 1 and 8 cores), each compiled
# with -Werror in a copy of the tree and put through make test, with chapter 1's sample runs
# (scripts/matrix.sh; MATRIX="clang 1-core" runs only those).
matrix:
	@scripts/matrix.sh $(MATRIX)

# The README's two commands on fresh Debian 12 and 13 roots made by debootstrap, as root
# and as an ordinary user (scripts/fresh_check.sh; FRESH_SUITES="bookworm" for one). Root.
fresh-check:
	@scripts/fresh_check.sh $(FRESH_SUITES)

# Speed, never inside make test: the tables, and CSV files for the book's plots.
bench: $(PROGRAMS)
	@bench/bench.sh

# Points per exercise, results.json and one score line; exit status 0 only at full marks.
# CHAPTER=N for one chapter. A failing recipe would make make add its own "*** [grade]
# Error 1" below the score, so when grade is the only goal the grading runs while make
# reads this file: the build (a make of its own) and tests/grade.sh write to make's own
# stdout (appending, through /proc), and a score short of full marks turns on question
# mode (-q), in which make exits with status 1 and prints nothing more.
ifeq ($(MAKECMDGOALS),grade)
GRADE_STATUS := $(shell { MAKELEVEL=1 $(MAKE) --no-print-directory grade-build && \
  $(GRADE_ENV) tests/grade.sh grade "$(CHAPTER)"; } >>/proc/$$PPID/fd/1 2>>/proc/$$PPID/fd/2; echo $$?)
ifneq ($(GRADE_STATUS),0)
MAKEFLAGS += -q
endif
endif
grade:
	@:

# What grading needs built: the library, and nothing that needs noweb or TeX.
grade-build: $(LIB)
	@:

# One submission, for the autograder (instructors/autograder/run_autograder): the score is
# in results.json, so a partial one (grade.sh's status 1) is not a failure of this step; a
# grade that could not be made (3: results.json says so) is.
grade-submission: $(LIB)
	@$(GRADE_ENV) tests/grade.sh grade; [ $$? -le 1 ]

# Record the hashes of the pristine skeletons (instructors, after changing a skeleton).
manifest:
	@awk 'BEGIN { OFS = " " } /^#/ || !NF { print; next } \
	     { cmd = "sha256sum exercises/" $$1 "/" $$2 ".c"; cmd | getline h; close(cmd); \
	       $$6 = substr(h, 1, 64); print }' exercises/MANIFEST > exercises/MANIFEST.new
	@mv exercises/MANIFEST.new exercises/MANIFEST
	@echo "manifest: exercises/MANIFEST updated"

# The instructor's guide's counts (exercises, points, tests, wrong solutions, the weeks'
# points) rewritten from the MANIFEST, the test files and solutions/wrong/;
# make autograder-check fails while they differ.
guide:
	@python3 instructors/guide.py

# The handout and the autograder are made from HEAD, never the working tree: an uncommitted
# solution cannot leak into them. $(call archive_head,WHAT,DIR,PATHS): HEAD into DIR without
# PATHS, with a warning when the tree has changes that are not committed.
define archive_head
	@git diff --quiet HEAD -- 2>/dev/null && [ -z "$$(git ls-files --others --exclude-standard)" ] || \
	  echo "$(1): warning: the tree has changes that are not committed; the $(1) holds HEAD ($$(git rev-parse --short HEAD)) without them" >&2
	@rm -rf $(2) && mkdir -p $(2)
	@git archive HEAD | tar -x -C $(2)
	@rm -rf $(addprefix $(2)/,$(3))
endef
# What students must not see: the solutions, the hidden tests, the instructor's guide.
NOT_FOR_STUDENTS := solutions tests/hidden instructors

# The guide's three courses, week by week, from instructors/syllabus.txt and the book's pages
# (make book first); make book says when the guide's copy no longer matches the pages.
syllabus:
	@[ -f instructors/syllabus.py ] || { echo "syllabus: this is a student's handout: the courses are in the instructor's tree" >&2; exit 2; }
	@[ -f $(BOOK_DIR)/book.toc ] || { echo "syllabus: build the book first: make book" >&2; exit 2; }
	@python3 instructors/syllabus.py --guide

# A tarball for students: HEAD without NOT_FOR_STUDENTS, with the student's edition of the
# book, built from that tree (without the answers).
handout:
	@[ ! -f .handout ] || { echo "handout: this is a student's handout already: a handout is made from the instructor's tree" >&2; exit 2; }
	@$(MAKE) --no-print-directory deps-book-check
	$(call archive_head,handout,$(BUILD)/handout/dps-handout,$(NOT_FOR_STUDENTS))
	@# The answers to the problems stay with the instructor: emptied, their lines kept.
	@for f in $(BUILD)/handout/dps-handout/chapters/*.nw; do \
	  awk -f scripts/strip_answers.awk $$f > $$f.new && mv $$f.new $$f || exit 1; done
	@echo "the answers of chapters/*.nw were removed from this handout" > $(BUILD)/handout/dps-handout/.handout
	@# Its README keeps the student's commands: the instructor's need the instructor's tree.
	@git show HEAD:README.md | awk -f scripts/handout_readme.awk > $(BUILD)/handout/dps-handout/README.md
	@$(MAKE) --no-print-directory -C $(BUILD)/handout/dps-handout book >$(BUILD)/handout/book.log 2>&1 || \
	  { tail -20 $(BUILD)/handout/book.log; echo "handout: the book of HEAD does not build" >&2; exit 1; }
	@rm -rf $(BUILD)/handout/dps-handout/build
	@tar -czf $(BUILD)/dps-handout.tar.gz -C $(BUILD)/handout dps-handout
	@echo "handout: $(BUILD)/dps-handout.tar.gz: HEAD $$(git rev-parse --short HEAD) without $(NOT_FOR_STUDENTS), with book/book.pdf ($$(tar -tzf $(BUILD)/dps-handout.tar.gz | wc -l) entries)"

# The handout, unpacked, and its book's text hold no sentence of any answer; each answer is
# found in the instructor's edition, which this builds (scripts/check_handout.py).
handout-check: handout
	@git diff --quiet HEAD -- chapters || { echo "handout-check: chapters/ has changes that are not committed: the handout holds HEAD's answers, the instructor's edition would not; commit first" >&2; exit 1; }
	@$(MAKE) --no-print-directory book INSTRUCTOR=1 >$(BUILD)/handout/instructor-book.log 2>&1 || \
	  { tail -20 $(BUILD)/handout/instructor-book.log; echo "handout-check: the instructor's edition does not build" >&2; exit 1; }
	@rm -rf $(BUILD)/handout-check && mkdir -p $(BUILD)/handout-check && \
	  tar -xzf $(BUILD)/dps-handout.tar.gz -C $(BUILD)/handout-check
	@python3 scripts/check_handout.py $(BUILD)/handout-check/dps-handout book/book-instructor.pdf
	@# Nor any function of it: each one whose prototype fits an exercise's, called or
	@# pasted, is graded on that exercise, and none may pass. HANDOUT_SUBSTITUTES=0 (CI's
	@# quick run, for time: make ci-full runs it) leaves this half out, and says so.
	@if [ "$(HANDOUT_SUBSTITUTES)" = 0 ]; then \
	  echo "handout-check: the handout's functions were not substituted for the exercises (HANDOUT_SUBSTITUTES=0; make ci-full does it)"; \
	else $(MAKE) --no-print-directory $(LIB) && rm -rf $(BUILD)/substitutes && \
	  python3 scripts/substitutes.py $(BUILD)/handout-check/dps-handout $(BUILD)/substitutes && \
	  $(GRADE_ENV) tests/grade.sh substitute $(BUILD)/substitutes; fi

# A Gradescope autograder: HEAD without solutions/ (the hidden tests are in), with
# setup.sh and run_autograder at the root of the zip (instructors/autograder).
# CHAPTER=N (or "3 4") grades only those chapters' exercises, for a weekly assignment
# (build/dps-autograder-ch3-ch4.zip); HIDDEN_VISIBILITY=hidden|after_due_date|after_published|
# visible is when students see the hidden tests' results (Gradescope's names).
HIDDEN_VISIBILITY ?= after_published
comma := ,
empty :=
space := $(empty) $(empty)
AG_CHAPTERS := $(strip $(subst ch,,$(subst $(comma), ,$(CHAPTER))))
AG_ZIP := $(BUILD)/dps-autograder$(if $(AG_CHAPTERS),-$(subst $(space),-,$(addprefix ch,$(AG_CHAPTERS)))).zip
autograder:
	@[ ! -f .handout ] || { echo "autograder: this is a student's handout, without the hidden tests: the autograder is built from the instructor's tree" >&2; exit 2; }
	@command -v zip >/dev/null || { echo "autograder: zip missing: make deps" >&2; exit 1; }
	@case "$(HIDDEN_VISIBILITY)" in hidden|after_due_date|after_published|visible) ;; \
	  *) echo "autograder: HIDDEN_VISIBILITY=$(HIDDEN_VISIBILITY): expected hidden, after_due_date, after_published or visible" >&2; exit 2 ;; esac
	@for n in $(AG_CHAPTERS); do grep -q "^ch$$n " exercises/MANIFEST || \
	  { echo "autograder: CHAPTER=$$n: no exercise of exercises/MANIFEST is in chapter $$n" >&2; exit 2; }; done
	$(call archive_head,autograder,$(BUILD)/autograder,solutions instructors/GUIDE.md instructors/guide.py)
	@# What grading does not need stays out, so that a break of the jail leaks nothing more:
	@# the other chapters' hidden tests, the instructor's guide, the problems' answers.
	@for d in $(BUILD)/autograder/tests/hidden/ch*; do \
	  [ -z "$(AG_CHAPTERS)" ] || echo " $(AG_CHAPTERS) " | grep -q " $${d##*/ch} " || rm -rf "$$d"; done
	@for f in $(BUILD)/autograder/chapters/*.nw; do \
	  awk -f scripts/strip_answers.awk $$f > $$f.new && mv $$f.new $$f || exit 1; done
	@sed -i 's/^export GRADE_HIDDEN_VISIBILITY=.*/export GRADE_HIDDEN_VISIBILITY=$(HIDDEN_VISIBILITY)/; s/^export GRADE_CHAPTERS=.*/export GRADE_CHAPTERS="$(AG_CHAPTERS)"/' \
	  $(BUILD)/autograder/instructors/autograder/env.sh
	@cp $(BUILD)/autograder/instructors/autograder/setup.sh $(BUILD)/autograder/instructors/autograder/run_autograder $(BUILD)/autograder/
	@rm -f $(AG_ZIP) && cd $(BUILD)/autograder && zip -qr $(CURDIR)/$(AG_ZIP) .
	@echo "autograder: $(AG_ZIP): HEAD $$(git rev-parse --short HEAD) without solutions/, grading $(if $(AG_CHAPTERS),chapter(s) $(AG_CHAPTERS): $$(grep -cE '^ch($(subst $(space),|,$(AG_CHAPTERS))) ' exercises/MANIFEST) exercises,every exercise), hidden results $(HIDDEN_VISIBILITY); upload it to Gradescope"

# Run that zip the way Gradescope does, in a temporary /autograder, against the solutions
# (full marks), the untouched skeletons (zero) and the deliberately wrong solutions of
# solutions/wrong/ (partial marks, exactly the tests they name failing); as root, also the
# attacks of solutions/attacks/ (each succeeding with the jail off, failing with it on).
# autograder-check is the whole book's zip and every chapter's; its two halves run apart:
#   autograder-check-book       the whole book's zip, with a submission whose every exercise
#                               loops for ever (LOOP_BUDGET=b: graded with a budget of b s an
#                               exercise, and the time carried to env.sh's budget)
#   autograder-check-chapters   each chapter's zip graded (AG_ONLY="1": those chapters;
#                               AG_SKIP="1": all but those); chapter 1's runs the attacks
#   autograder-check-zips       each chapter's zip checked, not graded: the whole book's
#                               zip, with that chapter's hidden tests alone
AG_CHAPTER_LIST = $(filter-out $(AG_SKIP),$(or $(AG_ONLY),$(shell grep -v '^\#' exercises/MANIFEST | awk 'NF { print substr($$1, 3) }' | sort -un)))
autograder-check: autograder-check-book autograder-check-chapters
autograder-check-book: autograder
	@LOOP_BUDGET=$(LOOP_BUDGET) instructors/autograder/check.sh $(BUILD)/dps-autograder.zip
autograder-check-chapters:
	@for n in $(AG_CHAPTER_LIST); do \
	  $(MAKE) --no-print-directory autograder CHAPTER=$$n >/dev/null && \
	  instructors/autograder/check.sh $(BUILD)/dps-autograder-ch$$n.zip > $(BUILD)/autograder-ch$$n.log 2>&1 || \
	    { tail -5 $(BUILD)/autograder-ch$$n.log; echo "autograder-check: chapter $$n's autograder (above)" >&2; exit 1; }; \
	  grep -E '^autograder-check: (solutions|[0-9]+ attacks) ' $(BUILD)/autograder-ch$$n.log | \
	    sed "s/^autograder-check: /autograder-check: chapter $$n: /"; done
autograder-check-zips: autograder
	@for n in $(AG_CHAPTER_LIST); do \
	  $(MAKE) --no-print-directory autograder CHAPTER=$$n >/dev/null && \
	  instructors/autograder/check.sh --contents $(BUILD)/dps-autograder.zip $(BUILD)/dps-autograder-ch$$n.zip $$n || exit 1; done

# ---------------------------------------------------------------- dependencies
# What each target needs from Debian; `make deps` installs all of it (CI does), `make test`
# only what the tests need, `make book` and `make docs` what they need when first run.
DEB_TEST  := build-essential noweb libcriterion-dev clang-format-14 libopenblas-dev iproute2 \
             libopenmpi-dev openmpi-bin
DEB_BOOK  := noweb texlive-latex-base texlive-latex-recommended texlive-pictures lmodern latexmk \
             poppler-utils clang-format-14 gcc
DEB_DOCS  := doxygen
DEB_OTHER := valgrind clang libclang-rt-dev zip unzip python3 debootstrap bubblewrap
DEB_PACKAGES := $(sort $(DEB_TEST) $(DEB_BOOK) $(DEB_DOCS) $(DEB_OTHER))

# Each waits for the package lock when another install holds it (DEPS_WAIT seconds at most).
deps:
	@scripts/deps.sh "the book, its tests and its checks" $(DEB_PACKAGES)
deps-test:
	@scripts/deps.sh "the tests" $(DEB_TEST)
deps-book:
	@scripts/deps.sh "the book" $(DEB_BOOK)
deps-docs:
	@scripts/deps.sh "the docs" $(DEB_DOCS)

# What `make test` needs: noweb and clang-format (drift check) and Criterion.
deps-check:
	@if ! command -v notangle >/dev/null || ! command -v cpif >/dev/null || ! command -v $(CLANG_FORMAT) >/dev/null || \
	    ! printf '#include <criterion/criterion.h>\n' | $(CC) -E -x c - >/dev/null 2>&1; then \
	   echo "test: noweb, clang-format or Criterion missing: running make deps-test"; $(MAKE) --no-print-directory deps-test; fi

# What `make book` (and so `make handout`) needs: noweb, LaTeX, poppler, clang-format (the
# listings) and a C compiler (the ink check).
deps-book-check:
	@if ! command -v noweave >/dev/null || ! command -v latexmk >/dev/null || ! command -v pdftoppm >/dev/null || \
	    ! command -v $(CLANG_FORMAT) >/dev/null || ! command -v $(CC) >/dev/null; then \
	   echo "book: noweb, LaTeX, poppler, clang-format or $(CC) missing: running make deps-book"; \
	   $(MAKE) --no-print-directory deps-book; fi

# ---------------------------------------------------------------- book and docs
BOOK_DIR := $(BUILD)/book
# make book INSTRUCTOR=1: the instructor's edition, with the answers to the problems.
BOOK_PDF := book/book$(if $(filter 1,$(INSTRUCTOR)),-instructor).pdf

# $(call extract,PREFIX,FILE,OUT): the function whose first line starts with PREFIX, without #line.
# It is formatted again, 50 columns wide, to fit half a page without wrapping.
extract = awk 'index($$0, "$(1)") == 1 {on = 1} on && !/^\#line/ {print} on && /^}/ {exit}' $(2) \
	| $(CLANG_FORMAT) --style=file:$(CURDIR)/book/listing.clang-format --assume-filename=$(3) \
	> $(BOOK_DIR)/$(3); \
	test -s $(BOOK_DIR)/$(3) || { echo "book: no match for $(1) in $(2)" >&2; exit 1; }

book: $(CHAPTERS) tangled/device/device_cpu.c kernels/device_cuda.cu book/book.tex book/preface.tex book/style.tex book/refs.bib \
      book/weave.sh book/cdefs.awk book/uses.awk book/listing.clang-format book/timeline.awk \
      book/cells.awk book/runs_table.awk book/spread_table.awk book/ink.c book/numbers.awk book/numbers-allow.txt \
      book/numbers-known.txt book/index-required.txt book/pages.awk book/constants.txt book/constants.sh \
      scripts/hosts.sh tests/ch11/test_tensor.c $(wildcard book/data/*.csv) $(wildcard book/data/*.txt)
	@if [ "$(INSTRUCTOR)" = 1 ] && [ -f .handout ]; then \
	  echo "book: this is a student's handout: its chapters hold no answers, so there is no instructor's edition to build here" >&2; exit 2; fi
	@$(MAKE) --no-print-directory deps-book-check
	@mkdir -p $(BOOK_DIR)
	book/weave.sh $(CHAPTERS) > $(BOOK_DIR)/chapters.tex
	cp book/book.tex book/style.tex book/refs.bib $(BOOK_DIR)/
	echo '\instructor$(if $(filter 1,$(INSTRUCTOR)),true,false)' > $(BOOK_DIR)/edition.tex
	@# The numbers of the prose, drawn from the data (\cell, \cellnum, \cellratio).
	awk -f book/cells.awk book/data/*.csv > $(BOOK_DIR)/cells.tex
	for f in book/data/gpu_runs_*.csv; do awk -f book/runs_table.awk $$f > $(BOOK_DIR)/$$(basename $$f .csv).tex; done
	awk -f book/spread_table.awk book/data/spread.csv > $(BOOK_DIR)/spread.tex
	@# The side-by-side figures of chapter 1 show the tangled code itself, so they cannot drift.
	$(call extract,static void softmax_xent,tangled/device/device_cpu.c,side-cpu-softmax.c)
	$(call extract,__global__ void softmax_xent_kernel,kernels/device_cuda.cu,side-cuda-softmax.cu)
	$(call extract,static void bias_act_forward,tangled/device/device_cpu.c,side-cpu-bias.c)
	$(call extract,__global__ void bias_act_forward_kernel,kernels/device_cuda.cu,side-cuda-bias.cu)
	@# The timelines of chapters 6 and 7, drawn from one step of a real trace (make bench).
	for f in book/data/timeline-*.csv; do awk -f book/timeline.awk $$f > $(BOOK_DIR)/$$(basename $$f .csv).tex; done
	cd $(BOOK_DIR) && TEXINPUTS=$(CURDIR)/book//: latexmk -pdf -e '$$max_repeat=9' -interaction=nonstopmode -halt-on-error book.tex >latexmk.log 2>&1 \
	  || { tail -40 latexmk.log; exit 1; }
	@! grep -E "multiply defined|There were undefined|(Reference|Citation) .* undefined" $(BOOK_DIR)/book.log \
	  || { echo "book: a label defined twice, or an undefined reference or citation (above)" >&2; exit 1; }
	@# Both editions paginate alike: each build keeps its labels' pages (book-EDITION.aux, with
	@# the hash of what it was built from); with the other edition's from the same sources
	@# beside it, every label both define must be on the same page (book/pages.awk).
	@ed=$(if $(filter 1,$(INSTRUCTOR)),instructor,students); other=$(if $(filter 1,$(INSTRUCTOR)),students,instructor); \
	  cd $(BOOK_DIR) && cat chapters.tex cells.tex style.tex book.tex $(CURDIR)/book/preface.tex refs.bib | md5sum > book-$$ed.hash && \
	  cp book.aux book-$$ed.aux && \
	  if cmp -s book-$$ed.hash book-$$other.hash && [ -f book-$$other.aux ]; then \
	    awk -f $(CURDIR)/book/pages.awk book-students.aux book-instructor.aux || exit 1; \
	  else echo "book: the other edition was not built from these sources: make book$(if $(filter 1,$(INSTRUCTOR)),, INSTRUCTOR=1) compares the pages of both"; fi
	@# Every constant the prose states is the one the code sets (book/constants.txt).
	@book/constants.sh $(CHAPTERS)
	@# The subject index: 150 entries at least, and every term of book/index-required.txt.
	@n=$$(grep -cE '^ *\\(item|subitem|subsubitem) ' $(BOOK_DIR)/book.ind); \
	  missing=$$(grep -v '^#' book/index-required.txt | while read -r t; do \
	    grep -qF "\item $$t," $(BOOK_DIR)/book.ind || printf '%s; ' "$$t"; done); \
	  [ -z "$$missing" ] && [ "$$n" -ge 150 ] || \
	    { echo "book: the index has $$n entries (150 at least) and lacks: $${missing:-none}" >&2; exit 1; }; \
	  echo "book: the index holds $$n entries, every term of book/index-required.txt among them"
	@awk '/^Overfull \\hbox \(/ { w = $$3; sub(/^\(/, "", w); if (w + 0 > 1) { print; bad = 1 } } END { exit bad }' \
	  $(BOOK_DIR)/book.log || { echo "book: a line wider than the page by more than 1 pt (above)" >&2; exit 1; }
	@# No ink beside the text block: each page rendered, its text block's rows scanned (book/ink.c).
	@$(CC) -O2 -o $(BOOK_DIR)/ink book/ink.c && rm -rf $(BOOK_DIR)/pages && mkdir -p $(BOOK_DIR)/pages && \
	  pdftoppm -r 40 -gray $(BOOK_DIR)/book.pdf $(BOOK_DIR)/pages/p && \
	  mm=$$(sed -n 's/.*margin=\([0-9.]*\)cm.*/\1/p' book/style.tex | awk 'NR == 1 { print $$1 * 10 }') && \
	  out=$$($(BOOK_DIR)/ink "$$mm" 1 $(BOOK_DIR)/pages/*.pgm); rc=$$?; printf '%s\n' "$$out" | tail -20; \
	  [ $$rc = 0 ] || { echo "book: ink beside the text block on the pages above (code or a figure too wide)" >&2; exit 1; }
	@# No measured number typed by hand beyond those still listed (book/numbers.awk).
	@awk -f book/numbers.awk book/numbers-allow.txt $(CHAPTERS) | LC_ALL=C sort > $(BOOK_DIR)/numbers.txt; \
	  grep -v '^#' book/numbers-known.txt | LC_ALL=C sort > $(BOOK_DIR)/numbers-known.txt; \
	  new=$$(LC_ALL=C comm -23 $(BOOK_DIR)/numbers.txt $(BOOK_DIR)/numbers-known.txt); \
	  gone=$$(LC_ALL=C comm -13 $(BOOK_DIR)/numbers.txt $(BOOK_DIR)/numbers-known.txt); \
	  [ -z "$$new" ] || { printf '%s\n' "$$new"; echo "book: a measured number typed by hand (above): draw it from book/data with \\cell, or list a definition in book/numbers-allow.txt" >&2; exit 1; }; \
	  [ -z "$$gone" ] || [ -f .handout ] || { printf '%s\n' "$$gone"; echo "book: book/numbers-known.txt lists numbers the prose no longer types (above): remove them" >&2; exit 1; }; \
	  echo "book: $$(wc -l < $(BOOK_DIR)/numbers-known.txt) measured numbers still typed by hand (book/numbers-known.txt)"
	cp $(BOOK_DIR)/book.pdf $(BOOK_PDF)
	@# The guide's syllabus gives pages: say when they have moved (make syllabus writes them).
	@[ ! -f instructors/syllabus.py ] || python3 instructors/syllabus.py --check 2>&1 | sed 's/^syllabus:/book: note:/' || true
	@awk -f book/grain.awk $(CHAPTERS)
	@echo "book: $(BOOK_PDF) ($$(pdfinfo $(BOOK_PDF) 2>/dev/null | sed -n 's/^Pages: *//p') pages)"

docs:
	@command -v doxygen >/dev/null || { echo "docs: doxygen missing: running make deps-docs"; $(MAKE) --no-print-directory deps-docs; }
	@mkdir -p $(BUILD)/docs
	doxygen Doxyfile
	@echo "docs: $(BUILD)/docs/html/index.html"

clean:
	rm -rf $(BUILD) $(PROGRAMS) book/book.pdf book/book-instructor.pdf results.json

help:
	@awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' Makefile
