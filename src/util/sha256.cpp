#include "util/sha256.h"

#include <fcntl.h>
#include <nettle/sha2.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace cudaenv {

struct Sha256::State {
  sha256_ctx context;
};

Sha256::Sha256() : state_(std::make_unique<State>()) { sha256_init(&state_->context); }
Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(const void* data, size_t size) { sha256_update(&state_->context, size, static_cast<const uint8_t*>(data)); }

Sha256 Sha256::copy() const {
  Sha256 other;
  other.state_->context = state_->context;
  return other;
}

std::string Sha256::finish() {
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&state_->context, sizeof digest, digest);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (uint8_t byte : digest) {
    out += hex[byte >> 4];
    out += hex[byte & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 hash;
  hash.update(data.data(), data.size());
  return hash.finish();
}

Status hash_file_prefix(const std::filesystem::path& path, Sha256& hash, std::uintmax_t limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot read " + path.string() + ": " + std::strerror(errno));
  std::vector<char> buffer(1 << 20);
  while (limit > 0) {
    ssize_t got = ::read(fd, buffer.data(), std::min<std::uintmax_t>(buffer.size(), limit));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      std::string reason = std::strerror(errno);
      ::close(fd);
      return make_error("cannot read " + path.string() + ": " + reason);
    }
    if (got == 0) break;
    hash.update(buffer.data(), static_cast<size_t>(got));
    limit -= static_cast<std::uintmax_t>(got);
  }
  ::close(fd);
  return ok_status();
}

}  // namespace cudaenv
