/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BOUNCELAB_DATA_DIR_H
#define BOUNCELAB_DATA_DIR_H

#include <stddef.h>

/* The environment variable that names another data directory. */
#define DATA_DIR_ENV "BOUNCELAB_DATADIR"

/*
 * The one lookup of the files bouncelab reads at run time (the machine
 * profiles, in profiles/): the directory named by $BOUNCELAB_DATADIR; or,
 * for a program run from its build tree, the source tree's model/; or
 * the datadir beside the program (BINDIR/../share/bouncelab, so that an
 * installed tree or an unpacked package can be moved); or the datadir
 * it was configured with. A data directory is one with profiles/ in it.
 *
 * Writes the directory into dir (len bytes) and returns 0; or returns -1
 * with one line in err naming every place it looked.
 */
int data_dir_find(char *dir, size_t len, char *err, size_t errlen);

#endif
