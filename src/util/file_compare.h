#pragma once
// Comparing two files' bytes: whether a shim is a copy of the installed one, whether two
// archives' copies of one file agree. Identity (the same inode) is same_file(), in file_system.h.

#include "util/result.h"

namespace cudaenv {

// Whether two open files hold the same bytes, read from where each stands; false for files of
// different sizes. The error (a failed read) names neither: the caller knows which they are.
Result<bool> same_bytes(int a, int b);

}  // namespace cudaenv
