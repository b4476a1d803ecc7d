/* SPDX-License-Identifier: GPL-2.0-only */
/* Which sanitizer this test was built with (meson -Db_sanitize=...). */
#ifndef BOUNCELAB_TESTS_SANITIZERS_H
#define BOUNCELAB_TESTS_SANITIZERS_H

/* GCC defines __SANITIZE_THREAD__; clang answers __has_feature. */
#if defined(__SANITIZE_THREAD__)
#define BUILT_WITH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BUILT_WITH_TSAN 1
#endif
#endif
#ifndef BUILT_WITH_TSAN
#define BUILT_WITH_TSAN 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define BUILT_WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUILT_WITH_ASAN 1
#endif
#endif
#ifndef BUILT_WITH_ASAN
#define BUILT_WITH_ASAN 0
#endif

#endif
