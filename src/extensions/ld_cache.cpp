#include "extensions/ld_cache.h"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace cudaenv {

namespace {

constexpr std::string_view kOldMagic = "ld.so-1.7.0";           // then nlibs (u32), entries of 3 x i32
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";  // then nlibs, string length, ...
constexpr std::size_t kOldEntry = 12;
constexpr std::size_t kNewHeader = 48;
constexpr std::size_t kNewEntry = 24;  // flags (i32), key, value (u32, file offsets), osversion, hwcap (u64)

std::uint32_t u32_at(std::span<const unsigned char> bytes, std::size_t offset) {
  std::uint32_t value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

// The NUL-terminated string at `offset`; empty when it runs past the end.
std::string_view string_at(std::span<const unsigned char> bytes, std::size_t offset) {
  if (offset >= bytes.size()) return {};
  const char* start = reinterpret_cast<const char*>(bytes.data()) + offset;
  const void* end = std::memchr(start, '\0', bytes.size() - offset);
  return end ? std::string_view(start, static_cast<const char*>(end) - start) : std::string_view();
}

}  // namespace

Result<LdCache> parse_ld_cache(std::span<const unsigned char> bytes, const std::string& label) {
  std::size_t at = 0;
  auto starts = [&](std::string_view magic) {
    return bytes.size() - at >= magic.size() && std::memcmp(bytes.data() + at, magic.data(), magic.size()) == 0;
  };
  if (starts(kOldMagic)) {
    if (bytes.size() < 16) return make_error(label + ": truncated");
    std::uint64_t old_entries = u32_at(bytes, 12);
    at = 16 + old_entries * kOldEntry;
    at = (at + 7) & ~std::size_t{7};
    if (at > bytes.size()) return make_error(label + ": its old table runs past the end");
  }
  if (!starts(kNewMagic)) return make_error(label + ": not a glibc ld.so.cache (no " + std::string(kNewMagic) + ")");
  if (bytes.size() - at < kNewHeader) return make_error(label + ": truncated");
  std::uint64_t count = u32_at(bytes, at + 20);
  std::size_t entries_at = at + kNewHeader;
  if (count > (bytes.size() - entries_at) / kNewEntry) return make_error(label + ": more entries than the file holds");
  // Offsets count from the new header, where glibc's loader takes its strings from.
  std::span<const unsigned char> strings = bytes.subspan(at);
  LdCache cache;
  cache.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::size_t entry = entries_at + i * kNewEntry;
    std::string_view soname = string_at(strings, u32_at(bytes, entry + 4));
    std::string_view path = string_at(strings, u32_at(bytes, entry + 8));
    if (!soname.empty() && !path.empty()) cache.emplace_back(std::string(soname), std::filesystem::path(path));
  }
  return cache;
}

}  // namespace cudaenv
