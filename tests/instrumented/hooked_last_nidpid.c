// SPDX-License-Identifier: GPL-2.0-only
/* kernels/last_nidpid.c with its atomic writes hooked (atomics.h). */
#include "atomics.h"
#include "last_nidpid.c"
