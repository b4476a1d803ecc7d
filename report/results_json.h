/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fast path for parsing results files.
 *
 * jansson reads its input one byte at a time through a callback, and
 * that per-byte work was most of the time `report` spent on a long run
 * (60,000 repetitions, 52 MB). Results files are plain: ASCII names, no
 * escapes, shallow nesting. This parser takes that common case in one
 * pass over the buffer and builds the same jansson values. Anything else
 * (an escape, a non-ASCII byte, deep nesting, a number out of range, and
 * every error) makes it decline, and the caller parses with jansson,
 * which then gives its own result and its own error message.
 */
#ifndef BOUNCELAB_RESULTS_JSON_H
#define BOUNCELAB_RESULTS_JSON_H

#include <jansson.h>
#include <stddef.h>

/*
 * The document in text[0..len) as json_loadb(text, len,
 * JSON_REJECT_DUPLICATES, ...) would give it, or NULL: declined (not
 * plain, or not valid), parse it with jansson.
 */
json_t *results_json_parse_plain(const char *text, size_t len);

#endif
