#pragma once
// Incremental SHA-256 for archives that arrive in pieces. Nettle, linked statically: OpenSSL's
// shared libcrypto cost every cudaenv start about 2.6M instructions of relocations.

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "util/result.h"

namespace cudaenv {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;
  void update(const void* data, size_t size);
  // The hash of what was added so far, this one left as it is.
  Sha256 copy() const;
  // Lowercase hex; the object is spent afterwards.
  std::string finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string sha256_hex(std::string_view data);

// Hashes the first `limit` bytes of `path` into `hash` (all of it by default).
Status hash_file_prefix(const std::filesystem::path& path, Sha256& hash, std::uintmax_t limit = UINTMAX_MAX);

}  // namespace cudaenv
