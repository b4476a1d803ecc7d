// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "perf_inject.h"

#if defined(__x86_64__)
#define INJECT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define INJECT_ARCH AUDIT_ARCH_AARCH64
#endif

bool perf_inject_supported(void)
{
#ifdef INJECT_ARCH
	return true;
#else
	return false;
#endif
}

#ifdef INJECT_ARCH
/* The low 32 bits of an argument (little endian): enough for an int. */
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64))

int perf_inject_errno(int err, enum perf_inject_scope scope)
{
	__u32 fail = SECCOMP_RET_ERRNO | ((__u32)err & SECCOMP_RET_DATA);
	__u32 ungrouped = scope == PERF_INJECT_ALL ? fail : SECCOMP_RET_ALLOW;
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, INJECT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* group_fd, the fourth argument: -1 opens a new group */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(3)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ungrouped),
		BPF_STMT(BPF_RET | BPF_K, fail),
	};
	struct sock_fprog prog = {
		.len = (unsigned short)(sizeof(filter) / sizeof(filter[0])),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}
#else
int perf_inject_errno(int err, enum perf_inject_scope scope)
{
	(void)err;
	(void)scope;
	errno = ENOSYS;
	return -1;
}
#endif
