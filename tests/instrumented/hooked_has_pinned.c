// SPDX-License-Identifier: GPL-2.0-only
/* kernels/has_pinned.c with its atomic writes hooked (atomics.h). */
#include "atomics.h"
#include "has_pinned.c"
