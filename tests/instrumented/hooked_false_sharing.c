// SPDX-License-Identifier: GPL-2.0-only
/* kernels/false_sharing.c with its atomic writes hooked (atomics.h). */
#include "atomics.h"
#include "false_sharing.c"
