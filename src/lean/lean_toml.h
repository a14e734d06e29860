#ifndef CUDAENV_LEAN_TOML_H
#define CUDAENV_LEAN_TOML_H
/* What the shim needs from a cuda.toml ([cuda] version and arch; whether it has [env]), read in one pass over a
 * strict subset of TOML, in C so that the static shim needs no C++ runtime. On anything
 * outside that subset it answers "unsure" and the full reader (core/cuda_toml.h) decides;
 * the test vectors in tests/unit/lean_toml_test.cpp hold the two to the same answers. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { LEAN_MAX_ARCH = 64 };

struct lean_span {
  const char* text;
  size_t size;
};

struct lean_cuda_toml {
  struct lean_span version; /* size 0: the file pins no version */
  struct lean_span arch[LEAN_MAX_ARCH];
  size_t arch_count;
  size_t unknown_keys; /* keys the full reader ignores with a warning */
  size_t env_count;    /* the entries of its [env] table */
};

/* 1: read, and `out` holds what the full reader would give; 0: unsure. */
int lean_read_cuda_toml(const char* text, size_t size, struct lean_cuda_toml* out);

/* A version request as cuda.toml, CUDAENV_VERSION or the global file may write it: a version,
 * "system", or a registered name; never a path. */
int lean_is_version_request(const char* text, size_t size);

/* "8.9", "9.0a", "8.6+PTX" */
int lean_is_compute_capability(const char* text, size_t size);

/* A 64-bit hash of `size` bytes from `seed`, eight bytes a step, never 0. */
uint64_t lean_hash(uint64_t seed, const char* text, size_t size);

#ifdef __cplusplus
}
#endif

#endif
