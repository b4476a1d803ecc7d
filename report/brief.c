// SPDX-License-Identifier: GPL-2.0-only
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "brief.h"
#include "format.h"
#include "output.h"
#include "run_checks.h"
#include "summary.h"

/* The tool's path on PATH, or false. */
static bool find_tool(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, len, "%.*s/%s", (int)n, n ? path : ".", name);
		if (!access(buf, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long size;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)size)) && fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		*len = (size_t)size;
	fclose(f);
	return buf;
}

/*
 * rsvg-convert -o OUT.png IN.svg on scratch files: the batch keeps every
 * output in memory until it is committed whole, so the PNG joins it too.
 */
static char *svg_to_png(const char *tool, const char *svg, size_t svg_len, size_t *png_len)
{
	char in[] = "/tmp/bouncelab-brief-XXXXXX.svg", out[sizeof(in) + 4];
	char *png = NULL;
	int fd = mkstemps(in, 4), status;
	pid_t pid;

	if (fd < 0)
		return NULL;
	snprintf(out, sizeof(out), "%.*s.png", (int)(strlen(in) - 4), in);
	if (output_write_all(fd, svg, svg_len) | close(fd))
		goto out;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execl(tool, tool, "-o", out, in, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    !WEXITSTATUS(status))
		png = read_all(out, png_len);
out:
	unlink(in);
	unlink(out);
	return png;
}

int brief_add_pngs(struct output_batch *batch, bool *png, char *note, size_t notelen)
{
	size_t nr = batch->nr;
	char tool[4096];

	*png = false;
	if (!find_tool("rsvg-convert", tool, sizeof(tool))) {
		snprintf(note, notelen, "No PNG copies of the figures: rsvg-convert is not installed "
			 "(Debian: apt-get install librsvg2-bin); the figures are SVG.");
		return 0;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct output_file *f = &batch->files[i];
		size_t n = strlen(f->path), png_len = 0;
		char path[4096], *data;

		if (n < 4 || strcmp(f->path + n - 4, ".svg"))
			continue;
		data = svg_to_png(tool, f->data, f->len, &png_len);
		if (!data) {
			snprintf(note, notelen, "No PNG copies of the figures: rsvg-convert failed on %s; "
				 "the figures are SVG.", strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path);
			return 0;
		}
		snprintf(path, sizeof(path), "%.*s.png", (int)(n - 4), f->path);
		if (output_batch_add(batch, path, data, png_len))
			return -1;
	}
	*png = true;
	snprintf(note, notelen, "The figures are also in PNG beside their SVG, for slides and print.");
	return 0;
}

/* The summary, its figure links turned to the PNG copies when there are. */
static void write_summary(FILE *out, const struct report_input *in, bool png)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return;
	markdown_summary(mem, in, SUMMARY_IN_BRIEF);
	if (fclose(mem)) {
		free(buf);
		return;
	}
	for (p = buf; png && (p = strstr(p, ".svg)")); p += 5)
		memcpy(p, ".png", 4);
	fputs(buf, out);
	free(buf);
}

char *markdown_brief(const struct report_input *in, bool png, const char *note,
		     size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	if (!out)
		return NULL;
	fputs("# bouncelab report, brief\n\n", out);
	markdown_banner(out, in);
	markdown_run_warnings(out, in);
	fputs("From ", out);
	for (unsigned int i = 0; i < in->nr_files; i++) {
		const struct result_file *file = &in->set->files[i];
		const char *host = file->run.host_name;
		const char *cpu = file->run.cpu_model;
		const char *date = file->run.date;

		fputs(i ? "; " : "", out);
		md_code(out, in->files[i]);
		fputs(" (", out);
		md_escape(out, host ? host : "unknown host");
		fputs(", ", out);
		md_escape(out, cpu ? cpu : "unknown CPU");
		fputs(", ", out);
		md_escape(out, date ? date : "no date");
		fputc(')', out);
	}
	fputs(". The full report, with every table, plot and the environment: `bouncelab report` "
	      "without `--brief`.\n\n", out);
	write_summary(out, in, png);
	md_escape(out, note);
	fputs("\n", out);
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}
