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
static int toolkit_order(const struct lean_toolkit* a, const struct lean_toolkit* b) {
  if (a->part_count && b->part_count) {
    int order = lean_compare_versions(a->parts, a->part_count, b->parts, b->part_count);
    if (order) return order;
  } else if (a->part_count != b->part_count) {
    return a->part_count ? -1 : 1;
  }
  return strcmp(a->name, b->name);
}

/* A merge sort of `count` pointers (`spare` as long): fewer comparisons than musl's smoothsort,
 * which with 1000 toolkits cost more than listing them. Stable; names are unique anyway. */
static void sort_toolkits(struct lean_toolkit** items, struct lean_toolkit** spare, size_t count) {
  for (size_t width = 1; width < count; width *= 2) {
    for (size_t left = 0; left < count; left += 2 * width) {
      size_t middle = left + width < count ? left + width : count;
      size_t right = left + 2 * width < count ? left + 2 * width : count;
      size_t i = left, j = middle, k = left;
      while (i < middle && j < right) spare[k++] = toolkit_order(items[j], items[i]) < 0 ? items[j++] : items[i++];
      while (i < middle) spare[k++] = items[i++];
      while (j < right) spare[k++] = items[j++];
    }
    memcpy(items, spare, count * sizeof *items);
  }
}

static int add_entry(struct listing* listing, const char* name, int not_a_link) {
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
  toolkit->part_count = lean_parse_version(name, toolkit->parts);
  /* One allocation for the name and its home, and none for the path of bin/: with 1000
   * toolkits the allocations cost more than the listing. */
  char entry[4096], target[4096];
  size_t dir = strlen(listing->versions_dir), n = strlen(name);
  int slash = dir && listing->versions_dir[dir - 1] == '/';
  if (dir + 1 + n >= sizeof entry) return 0;
  memcpy(entry, listing->versions_dir, dir);
  entry[dir] = '/';
  memcpy(entry + dir + !slash, name, n + 1);
  long link = not_a_link ? -1 : fs->read_link(fs->self, entry, target, sizeof target);
  if (link >= 0 && target[0] != '/') return 0; /* relative: list_toolkits() normalises it */
  toolkit->registered = link >= 0;
  const char* home = link >= 0 ? target : entry;
  size_t home_size = strlen(home);
  char* names = lean_allocate(listing->memory, n + 1 + home_size + 1);
  if (!names) return 0;
  memcpy(names, name, n + 1);
  memcpy(names + n + 1, home, home_size + 1);
  toolkit->name = names;
  toolkit->home = names + n + 1;
  char bin[4096 + 8];
  int home_slash = home_size && home[home_size - 1] == '/';
  memcpy(bin, home, home_size);
  memcpy(bin + home_size, "/bin" + home_slash, sizeof "/bin" - home_slash);
  toolkit->present = fs->kind(fs->self, bin) == LEAN_DIRECTORY;
  ++listing->count;
  return 1;
}

static void each_entry(void* context, const char* name, int not_a_link) {
  struct listing* listing = context;
  /* Hidden entries are staging folders and locks. */
  if (!listing->failed && name[0] != '\0' && name[0] != '.') listing->failed = !add_entry(listing, name, not_a_link);
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
    lean_list_versions(fs, roots->versions[i], each_entry, &listing);
  }
  if (listing.failed) return 0;
  struct lean_toolkit** order = lean_allocate(memory, 2 * (listing.count + 1) * sizeof *order);
  struct lean_toolkit* items = lean_allocate(memory, (listing.count + 1) * sizeof *items);
  if (!order || !items) return 0;
  for (size_t i = 0; i < listing.count; ++i) order[i] = &listing.items[i];
  sort_toolkits(order, order + listing.count + 1, listing.count);
  for (size_t i = 0; i < listing.count; ++i) items[i] = *order[i];
  out->items = items;
  out->count = listing.count;
  return 1;
}
