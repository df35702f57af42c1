#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-style`: kernel coding style with checkpatch.pl --strict (from
# Debian's linux-source-6.1, unpacked by `make deps`) over kmod/ and over
# the user-space C of user/, bpf/, tests/, include/ and bench/ (a few rules
# off there, see below), and sparse over the module build. Any finding
# fails. The last line is "N passed, N failed", counting source files
# (checkpatch) plus the sparse build as one more check.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KPROF_CACHE=${KPROF_CACHE:-~/.cache/kprof}
BUILD=${BUILD:-$ROOT/build}
CHECKPATCH=$KPROF_CACHE/linux-source-6.1/scripts/checkpatch.pl
MAKE=${MAKE:-make}
LOGDIR=$BUILD/style
passed=0 failed=0

cd "$ROOT" || exit 1
mkdir -p "$LOGDIR"

if [ ! -f "$CHECKPATCH" ]; then
	echo "check-style: $CHECKPATCH is missing: run 'make deps'" >&2
	exit 1
fi
command -v sparse >/dev/null || { echo "check-style: sparse is missing: run 'make deps'" >&2; exit 1; }

# Kbuild generates kprof.mod.c; it is not ours to style.
mapfile -t files < <(find kmod -name '*.[ch]' ! -name '*.mod.c' | sort)
if [ "${#files[@]}" = 0 ]; then
	echo "check-style: no sources under kmod/" >&2
	exit 1
fi

# checkpatch takes a second or so a file, one CPU each: the files are
# checked CHECK_STYLE_JOBS (the CPUs) at a time, their findings printed
# in file order. sparse's module build runs beside them.
JOBS=${CHECK_STYLE_JOBS:-$(nproc)}
OUTDIR=$(mktemp -d)
trap 'rm -rf "$OUTDIR"' EXIT

# pool NAME FUNC FILE...: FUNC FILE for each, JOBS at a time; FUNC prints
# its findings and fails when there are any. Then the findings in order
# and the counts.
pool() {
	local name=$1 fn=$2 i=0 f pids=()
	shift 2
	for f in "$@"; do
		i=$((i + 1))
		{ "$fn" "$f" >"$OUTDIR/$name.$i" 2>&1; echo $? >"$OUTDIR/$name.$i.rc"; } &
		pids+=($!)
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
			wait -n
		done
	done
	wait "${pids[@]}"
	for i in $(seq 1 $#); do
		cat "$OUTDIR/$name.$i"
		if [ "$(cat "$OUTDIR/$name.$i.rc")" = 0 ]; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
}

# C=2 runs sparse on every file, also those already compiled.
log=$LOGDIR/sparse.log
# (its status goes to a file: the pool's `wait -n` may reap it)
{ "$MAKE" --no-print-directory -C "$ROOT" kmod C=2 >"$log" 2>&1; echo $? >"$OUTDIR/sparse.rc"; } &

check_kmod() {
	local f=$1 ignore=FILE_PATH_CHANGES

	# --no-tree: we check files, not a kernel tree; the spelling and
	# const-struct lists come from the same scripts/ directory.
	# kmod/kprof_compat.h is the one place that tests LINUX_VERSION_CODE
	# (APIs newer than 6.1, the oldest kernel the module builds against).
	[ "$f" = kmod/kprof_compat.h ] && ignore=$ignore,LINUX_VERSION_CODE
	perl "$CHECKPATCH" --no-tree --strict --terse --show-types --no-summary \
		--ignore "$ignore" -f "$f" 2>&1
}

echo "== checkpatch.pl --strict, kmod/: ${#files[@]} files"
pool kmod check_kmod "${files[@]}"

# User space: no kernel types (u32...), compiler_attributes.h or BIT()
# there (stdint and C11 instead); CamelCase names are the vendor APIs' own
# (CUPTI, NVML, tt-metal columns).
USER_IGNORE=FILE_PATH_CHANGES,PREFER_KERNEL_TYPES,CAMELCASE,BIT_MACRO,PREFER_DEFINED_ATTRIBUTE_MACRO

# Generated sources are not ours to style: BPF skeletons, vmlinux.h.
mapfile -t ufiles < <(find user bpf tests include bench -name '*.[ch]' \
	! -name '*.skel.h' ! -name vmlinux.h | sort)

# A file's rules beyond USER_IGNORE, each with its reason.
user_extra_ignore() {
	case $1 in
	# Mirrors of the vendors' headers: their typedef names, as declared.
	user/lib/kprof_cupti.h) echo ,NEW_TYPEDEFS ;;
	# ... and of the profiler's: KPROF_PSIZE names the member twice, as
	# the kernel's offsetofend does.
	user/lib/kprof_cupti_prof.h) echo ,NEW_TYPEDEFS,MACRO_ARG_REUSE ;;
	# ... and nvml.h's function list as an X-macro (see below).
	user/lib/kprof_nvml_api.h) \
		echo ,NEW_TYPEDEFS,MULTISTATEMENT_MACRO_USE_DO_WHILE,TRAILING_SEMICOLON,COMPLEX_MACRO,MACRO_ARG_REUSE,SPACING ;;
	# libbpf's read-only config: const volatile globals set before load.
	bpf/kprof_ioctl.bpf.c | bpf/kprof_cuda.bpf.c) echo ,VOLATILE ;;
	# The mmapped ring's control page, which the kernel writes under us.
	user/lib/kprof_dev.[ch] | bench/drain_bench.c | \
	tests/kselftest/kprof_mmap_test.c | tests/kselftest/kprof_security_test.c | \
	tests/unit/test_dev_ring_gone.c) echo ,VOLATILE ;;
	# Locals live across siglongjmp (C11 7.13.2.1), reads of a mapping
	# made only to fault, a NULL hidden from -Wnonnull.
	tests/kselftest/kprof_remove_test.c | tests/fuzz/ioctl_fuzz.c | \
	tests/fuzz/fuzz_csv.c | tests/kselftest/kprof_capture_test.c | \
	tests/kselftest/kprof_edu_test.c | tests/kselftest/kprof_modules_test.c) echo ,VOLATILE ;;
	# The vendor-function X-macro lists (one entry per NVML/CUPTI function,
	# expanded into declarations, struct fields and dlsym loads): a list
	# macro is several statements and names its argument more than once.
	tests/nvidia/nvml_standin.c | user/agent/kprof_cupti_agent.c | \
	user/agent/kprof_cupti_counters.c) \
		echo ,MULTISTATEMENT_MACRO_USE_DO_WHILE,TRAILING_SEMICOLON,COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE ;;
	# Macros that name a member or a cursor twice (offsetof and sizeof;
	# a for_each cursor declared and advanced), as the kernel's
	# offsetofend and list_for_each_entry do; kprof_test_util.h also
	# reads the ring's control page (VOLATILE, as above).
	tests/kselftest/kprof_badinput_test.c) echo ,MACRO_ARG_REUSE ;;
	tests/kselftest/kprof_test_util.h) echo ,VOLATILE,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE ;;
	# The same X-macro lists, and glibc's convention of ENOSYS for a
	# function a library lacks: an NVML without nvmlInit_v2.
	user/lib/kprof_nvml.c) \
		echo ,MULTISTATEMENT_MACRO_USE_DO_WHILE,TRAILING_SEMICOLON,COMPLEX_MACRO,MACRO_ARG_REUSE,ENOSYS ;;
	# Built only on a GPU host against NVIDIA's own headers (check-nvidia),
	# so a rewrite cannot be compiled here: the findings left in them
	# (__typeof__(&fn) and offsetof macros, layout and brace style) are
	# to be fixed where they build.
	tests/nvidia/cupti_decl_check.c | tests/nvidia/nvml_decl_check.c | tests/nvidia/nvml_record.c | \
	tests/nvidia/cupti_prof_decl_check.c) \
		echo ,MULTISTATEMENT_MACRO_USE_DO_WHILE,TRAILING_SEMICOLON,COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE,EMBEDDED_FILENAME,SPACING,LEADING_SPACE,PARENTHESIS_ALIGNMENT,ARRAY_SIZE,BRACES,ASSIGN_IN_IF ;;
	# Stand-in functions made by a macro: a function body has a return.
	tests/nvidia/cupti_standin.c) echo ,MACRO_WITH_FLOW_CONTROL ;;
	# HTML's <thead> tag, which checkpatch's spelling list reads as "thread".
	tests/unit/test_html.c | user/lib/kprof_html.c | user/lib/kprof_mdhtml.c) echo ,TYPO_SPELLING ;;
	esac
}

# checkpatch (6.1) reads the '-' of a float's exponent (1e-9) as a minus
# without spaces; the kernel has no floats. Those findings, and only on
# lines with such a literal, are dropped.
drop_float_exponents() {
	local f=$1 line loc
	while IFS= read -r line; do
		if [[ $line == *"CHECK:SPACING: spaces preferred around that '-' (ctx:VxV)" ]]; then
			loc=${line#"$f":}
			loc=${loc%%:*}
			sed -n "${loc}p" "$f" | grep -Eq '[0-9.][eE]-[0-9]' && continue
		fi
		printf '%s\n' "$line"
	done
}

check_user() {
	local f=$1 out

	out=$(perl "$CHECKPATCH" --no-tree --strict --terse --show-types --no-summary \
		--ignore "$USER_IGNORE$(user_extra_ignore "$f")" -f "$f" 2>&1 |
		drop_float_exponents "$f")
	[ -z "$out" ] && return 0
	echo "$out"
	return 1
}

echo "== checkpatch.pl --strict, user space: ${#ufiles[@]} files"
pool user check_user "${ufiles[@]}"

echo "== sparse (make kmod C=2)"
wait
rc=$(cat "$OUTDIR/sparse.rc")
# Compiler and sparse findings both look like "file:line:col: warning: ...".
findings=$(grep -E '(warning|error):' "$log")
if [ "$rc" != 0 ] || [ -n "$findings" ]; then
	[ -n "$findings" ] && echo "$findings"
	[ "$rc" != 0 ] && { echo "check-style: the module build failed (status $rc):"; tail -n 30 "$log"; }
	echo "check-style: full sparse log: $log"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
