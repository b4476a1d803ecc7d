/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BOUNCELAB_CLI_H
#define BOUNCELAB_CLI_H

#include <stddef.h>

#include <jansson.h>

/*
 * Exit statuses, the same for every command (README, "Exit status"):
 * 0 done; 1 failed at run time (nothing useful written, or stdout could
 * not be written); 2 bad usage or input (nothing run or written); 3 a run
 * finished with some repetitions failed; 128 + N stopped by signal N, the
 * finished repetitions written and marked incomplete.
 */
#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define EXIT_PARTIAL 3
#define EXIT_REGRESSION 1

/* Each subcommand gets its name as argv[0]. */
int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_gup(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_lesson(int argc, char **argv);

/* Prints "bouncelab: <message>" on one line and returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "bouncelab: <message>" on one line and returns EXIT_RUNTIME. */
int runtime_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The option the last getopt_long() call stopped at, for "unknown option"
 * messages: getopt's own message is replaced by ours.
 */
int bad_option(char **argv, const char *command);

/*
 * The one way a command's --json goes out: doc (taken, and freed) as one
 * document on stdout with flags (JSON_INDENT(2) and a precision), then a
 * newline. Returns 0, or EXIT_RUNTIME with the error printed.
 */
int print_json(json_t *doc, size_t flags);

/* Parses a positive number of seconds; -1 on error. */
double parse_seconds(const char *text);
/* Parses an integer in [min, max]; returns 0, or -1. */
int parse_long(const char *text, long min, long max, long *out);

/*
 * results/<YYYYmmdd-HHMMSS>-<pid>/NAME: where a run's files go by default;
 * two commands started in one second get two directories.
 */
void default_output_path(const char *name, char *buf, size_t len);

/*
 * Flushes and closes stdout. A write error that the command did not see
 * (a full disk, /dev/full, a closed pipe) is reported, as coreutils does,
 * and turns status 0 into 1. Returns the status to exit with.
 */
int close_stdout(int status);

/*
 * The one escaping of text for the terminal: every C0 control byte and
 * DEL shown as \xNN, so that a string from an argument or an input file
 * (an ESC sequence, an OSC title, a BEL) is shown, never obeyed. Into
 * buf, len bytes (cut there); returns buf.
 */
const char *printable_into(char *buf, size_t len, const char *text);

/* printable_into() a static buffer, for messages. */
const char *printable(const char *text);

#endif
