#define _POSIX_C_SOURCE 200809L
#include "lean/lean_toolkits.h"

#include <stdlib.h>
#include <string.h>

struct listing {
  const struct lean_fs* fs;
  struct lean_plan* memory;
  const char* versions_dir;
  size_t root;
  struct lean_toolkit* items;
  size_t count, capacity;
  size_t shadowing; /* the user's entries, sorted by name, hide the shared root's */
  int failed;
};

static int by_name(const void* a, const void* b) {
  return strcmp(((const struct lean_toolkit*)a)->name, ((const struct lean_toolkit*)b)->name);
}

/* toolkit_order() in core/toolkits.cpp */
static int toolkit_order(const void* a_entry, const void* b_entry) {
  const struct lean_toolkit* a = a_entry;
  const struct lean_toolkit* b = b_entry;
  if (a->part_count && b->part_count) {
    int order = lean_compare_versions(a->parts, a->part_count, b->parts, b->part_count);
    if (order) return order;
  } else if (a->part_count != b->part_count) {
    return a->part_count ? -1 : 1;
  }
  return strcmp(a->name, b->name);
}

static int add_entry(struct listing* listing, const char* name) {
  const struct lean_fs* fs = listing->fs;
  struct lean_toolkit key = {.name = name};
  if (listing->shadowing && bsearch(&key, listing->items, listing->shadowing, sizeof key, by_name)) return 1;
  if (listing->count == listing->capacity) {
    size_t capacity = listing->capacity ? 2 * listing->capacity : 64;
    struct lean_toolkit* items = lean_allocate(listing->memory, capacity * sizeof *items);
    if (!items) return 0;
    if (listing->count) memcpy(items, listing->items, listing->count * sizeof *items);
    listing->items = items;
    listing->capacity = capacity;
  }
  struct lean_toolkit* toolkit = &listing->items[listing->count];
  memset(toolkit, 0, sizeof *toolkit);
  toolkit->root = listing->root;
  toolkit->name = lean_copy(listing->memory, name);
  toolkit->home = lean_join(listing->memory, listing->versions_dir, name);
  if (!toolkit->name || !toolkit->home) return 0;
  toolkit->part_count = lean_parse_version(name, toolkit->parts);
  char target[4096];
  if (fs->read_link(fs->self, toolkit->home, target, sizeof target) >= 0) {
    if (target[0] != '/') return 0; /* relative: list_toolkits() normalises it */
    toolkit->registered = 1;
    toolkit->home = lean_copy(listing->memory, target);
    if (!toolkit->home) return 0;
  }
  const char* bin = lean_join(listing->memory, toolkit->home, "bin");
  if (!bin) return 0;
  toolkit->present = fs->kind(fs->self, bin) == LEAN_DIRECTORY;
  ++listing->count;
  return 1;
}

static void each_entry(void* context, const char* name) {
  struct listing* listing = context;
  /* Hidden entries are staging folders and locks. */
  if (!listing->failed && name[0] != '\0' && name[0] != '.') listing->failed = !add_entry(listing, name);
}

int lean_list_toolkits(const struct lean_fs* fs, const struct lean_roots* roots, struct lean_plan* memory,
                       struct lean_toolkits* out) {
  struct listing listing;
  memset(&listing, 0, sizeof listing);
  listing.fs = fs;
  listing.memory = memory;
  for (size_t i = 0; i < roots->count && !listing.failed; ++i) {
    listing.root = i;
    listing.versions_dir = roots->versions[i];
    if (i == 1) {
      qsort(listing.items, listing.count, sizeof *listing.items, by_name);
      listing.shadowing = listing.count;
    }
    fs->list_dir(fs->self, roots->versions[i], each_entry, &listing);
  }
  if (listing.failed) return 0;
  qsort(listing.items, listing.count, sizeof *listing.items, toolkit_order);
  out->items = listing.items;
  out->count = listing.count;
  return 1;
}
