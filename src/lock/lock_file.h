#pragma once
// cuda.lock: what one cuda.toml resolved to, exactly (the label, platforms, where from, and
// every archive with its URL and sha256), so that teammates and CI install the same bytes.
// Written by a small deterministic writer (fixed key order, sorted entries, one field a line:
// small diffs), read with toml++ like cuda.toml. Pure: no I/O.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/install_source.h"
#include "install/archive.h"
#include "util/result.h"

namespace cudaenv {

inline constexpr const char* kLockFileName = "cuda.lock";
// The hint of every error about what a lock holds.
inline constexpr const char* kDamagedLockHint = "the lock is damaged or was edited by hand: run `cudaenv lock` to write it again";
inline constexpr int kLockFormat = 1;

// What cuda.toml asked for when the lock was written: `lock --check` compares it with the file.
struct LockRequest {
  std::string version;                  // "12.4"
  std::string profile;                  // "" when cuda.toml names none (the default was used)
  std::vector<std::string> components;  // as written
  std::vector<std::string> libraries;   // "cudnn", "nccl@2.28"
  InstallSource source = InstallSource::redist;

  bool operator==(const LockRequest&) const = default;
};

// One archive of a toolkit component or a library, for one platform: the archive as planned,
// written in the lock one field a line (name, version, url, sha256, size, distribution).
struct LockedArchive {
  std::string platform;  // "linux-x86_64"
  Archive archive;
  // Libraries only: the release ("9.10.0"), the manifest or index page the archive was chosen
  // from, and the sha256 of that manifest ("" where the source is an index page).
  std::string release;
  std::string source;
  std::string source_sha256;

  bool operator==(const LockedArchive&) const = default;
};

struct CudaLock {
  LockRequest request;
  std::string label;                   // "12.4.1"
  std::string profile;                 // the profile installed ("minimal" when none was asked for)
  std::vector<std::string> platforms;  // sorted
  std::string source;                  // the redist folder, ending in '/'; pypi: the index root
  std::string manifest_sha256;         // of redistrib_<label>.json as it was read; pypi: of the metapackage
  std::string metapackage;             // pypi: the cuda-toolkit wheel that pinned the versions
  std::vector<LockedArchive> components;
  std::vector<LockedArchive> libraries;

  // The archives for one platform, in the lock's order.
  std::vector<LockedArchive> components_for(const std::string& platform) const;
  std::vector<LockedArchive> libraries_for(const std::string& platform) const;
  bool operator==(const CudaLock&) const = default;
};

// Sorts platforms and entries into the lock's canonical order (components by platform then
// name, libraries by name then platform), which render_lock requires.
void normalise_lock(CudaLock& lock);

// The file's text, the same bytes for the same lock whatever order it was built in.
std::string render_lock(CudaLock lock);

// `path` names the file in errors. Every value is checked (names, platforms, URLs, sha256s),
// since install downloads and writes where the lock says.
Result<CudaLock> parse_lock(const std::filesystem::path& path, std::string_view text);

// How a lock's request and cuda.toml's differ: one line per setting, "" entries none.
std::vector<std::string> request_differences(const LockRequest& locked, const LockRequest& wanted);

// How two locks' archives differ ("cuda_nvcc (linux-x86_64): 12.4.131 in cuda.lock, 12.4.99 now"),
// for --locked to name what changed.
std::vector<std::string> archive_differences(const std::vector<LockedArchive>& locked, const std::vector<LockedArchive>& now);

// A cache key for CI: the label, the platform and every archive's name, version and sha256
// for it, in any order ("cuda-12.4.1-linux-x86_64-<16 hex>"); an error for a platform the lock lacks.
Result<std::string> lock_cache_key(CudaLock lock, const std::string& platform);

}  // namespace cudaenv
