// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hwloc backend's tree as text (topo --tree), lstopo-like: one-child
 * chains on one line, a core's PUs on its line, memory beside its parent.
 */
#include <stdio.h>

#include "topo_hwloc.h"

/* "L3 L#0 (32MB)", "NUMANode L#1 (P#1, 1024MB)", "Package L#0" */
static void format_obj(hwloc_obj_t obj, char *buf, size_t len)
{
	char type[64];
	int used;

	hwloc_obj_type_snprintf(type, sizeof(type), obj, 0);
	used = snprintf(buf, len, "%s L#%u", type, obj->logical_index);
	if (used < 0 || (size_t)used >= len)
		return;
	if ((hwloc_obj_type_is_cache(obj->type) || obj->type == HWLOC_OBJ_MEMCACHE) &&
	    obj->attr->cache.size)
		snprintf(buf + used, len - (size_t)used, " (%llu%s%s)",
			 (unsigned long long)(obj->attr->cache.size >>
					      (obj->attr->cache.size >= 1 << 20 ? 20 : 10)),
			 obj->attr->cache.size >= 1 << 20 ? "MB" : "KB",
			 is_memory_side_cache(obj) ? ", memory-side cache" : "");
	else if (obj->type == HWLOC_OBJ_MEMCACHE)
		snprintf(buf + used, len - (size_t)used, " (memory-side cache)");
	else if (obj->type == HWLOC_OBJ_NUMANODE)
		snprintf(buf + used, len - (size_t)used, " (P#%u, %lluMB)",
			 obj->os_index,
			 (unsigned long long)(obj->attr->numanode.local_memory >> 20));
}

static bool only_pu_children(hwloc_obj_t obj)
{
	if (!obj->arity)
		return false;
	for (unsigned int c = 0; c < obj->arity; c++)
		if (obj->children[c]->type != HWLOC_OBJ_PU)
			return false;
	return true;
}

/* A core's PUs on its own line: "Core L#0: PU P#0 P#128". */
static void print_pus(const struct topo_backend *be, hwloc_obj_t obj, FILE *out)
{
	fputs(": PU", out);
	for (unsigned int c = 0; c < obj->arity; c++)
		fprintf(out, " P#%u%s", obj->children[c]->os_index,
			pu_allowed(be, obj->children[c]) ? "" : " (not allowed)");
}

/* Memory children: NUMA nodes, and the memory-side caches in front of them. */
static void print_memory(hwloc_obj_t obj, int indent, FILE *out)
{
	char label[128];

	for (hwloc_obj_t m = obj->memory_first_child; m; m = m->next_sibling) {
		format_obj(m, label, sizeof(label));
		fprintf(out, "%*s%s\n", indent, "", label);
		print_memory(m, indent + 2, out);
	}
}

static void print_subtree(const struct topo_backend *be, hwloc_obj_t obj,
			  int indent, FILE *out)
{
	char label[128];

	fprintf(out, "%*s", indent, "");
	/* One-child chains on one line, as lstopo does: "L2 + L1d + Core". */
	for (;;) {
		format_obj(obj, label, sizeof(label));
		fputs(label, out);
		if (obj->type == HWLOC_OBJ_PU) {
			fprintf(out, " (P#%u)%s", obj->os_index,
				pu_allowed(be, obj) ? "" : " (not allowed)");
			fputc('\n', out);
			return;
		}
		if (only_pu_children(obj)) {
			print_pus(be, obj, out);
			fputc('\n', out);
			return;
		}
		if (obj->arity != 1 || obj->memory_arity)
			break;
		fputs(" + ", out);
		obj = obj->children[0];
	}
	fputc('\n', out);
	print_memory(obj, indent + 2, out);
	for (unsigned int c = 0; c < obj->arity; c++)
		print_subtree(be, obj->children[c], indent + 2, out);
}

void topo_print_tree(const struct topo *topo, FILE *out)
{
	print_subtree(topo->backend, hwloc_get_root_obj(topo->backend->topology),
		      0, out);
}
