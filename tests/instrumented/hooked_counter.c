// SPDX-License-Identifier: GPL-2.0-only
/* kernels/counter.c with its atomic writes hooked (atomics.h). */
#include "atomics.h"
#include "counter.c"
