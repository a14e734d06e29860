#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string_view>

#include "util/result.h"

namespace cudaenv {

// The one way cudaenv writes a file: `content` goes to a new temporary file beside `path`
// (a random name, created with O_EXCL|O_NOFOLLOW, so no planted file or link is ever
// written through), is synced, and is renamed over `path`. Readers see the old file or the
// new one, never half of one; a failure (a full disk) leaves `path` as it was and no
// temporary behind, and names the file. A symlink at `path` is replaced, not followed.
// The new file gets `mode`, or without one the mode of the regular file it replaces
// (0644 less the umask for a new file).
Status write_file_atomically(const std::filesystem::path& path, std::string_view content,
                             std::optional<mode_t> mode = std::nullopt);

// A name beside `path` that nothing else will pick (".<name>.tmp-<random>"), for files that
// are put in place by rename but not written (hard links).
std::filesystem::path temporary_path_beside(const std::filesystem::path& path);

}  // namespace cudaenv
