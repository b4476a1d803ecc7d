// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs a fuzz target on saved inputs without libFuzzer: the seed corpus
 * and every crash the fuzzer ever found (tests/fuzz/TARGET/crashes), so
 * each crash stays a regression test in every build, sanitized or not.
 *
 * usage: replay_TARGET DIR_OR_FILE...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in a target, as in libFuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned int replayed;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	long len = -1;

	if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		data = malloc((size_t)len + 1);
		if (!data || fread(data, 1, (size_t)len, f) != (size_t)len)
			len = -1;
	}
	if (f)
		fclose(f);
	if (len < 0) {
		perror(path);
		free(data);
		return -1;
	}
	printf("%s (%ld bytes)\n", path, len);
	fflush(stdout);
	LLVMFuzzerTestOneInput((const uint8_t *)data, (size_t)len);
	free(data);
	replayed++;
	return 0;
}

/* Skips README and dot files, which document a directory. */
static int wanted(const struct dirent *d)
{
	return d->d_name[0] != '.' && strncmp(d->d_name, "README", 6);
}

static int replay_path(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, ret = 0;

	if (stat(path, &st)) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	n = scandir(path, &names, wanted, alphasort);
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char file[4096];

		snprintf(file, sizeof(file), "%s/%s", path, names[i]->d_name);
		if (!ret)
			ret = replay_path(file);
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i]))
			return 1;
	printf("replayed %u inputs\n", replayed);
	return replayed ? 0 : 1;
}
