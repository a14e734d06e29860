#include "extensions/fatbin.h"

#include <cstring>

namespace cudaenv {

namespace {

// The container header: magic, version (u16), header size (u16), size of its entries (u64).
constexpr std::uint32_t kContainerMagic = 0xBA55ED50;
constexpr std::size_t kContainerHeader = 16;
// An entry header (CUDA 11 to 13 write 64 to 112 bytes): kind (u16: 1 PTX, 2 cubin), version
// (u16), header size (u32), payload size (u64), ..., arch (u32 at 28, 90 for sm_90), ...,
// flags (u64 at 40).
constexpr std::size_t kEntryHeaderMin = 48;
constexpr std::uint16_t kKindPtx = 1;
constexpr std::uint16_t kKindCubin = 2;
constexpr std::uint64_t kFlagCompressedLz4 = 0x2000;   // CUDA 11's compression
constexpr std::uint64_t kFlagCompressed = 0x8000;      // CUDA 12 and 13
constexpr std::uint64_t kFlagArchSpecific = 0x100000;  // sm_90a
constexpr std::uint64_t kFlagFamily = 0x200000;        // sm_100f

template <class T>
T read_at(std::span<const unsigned char> bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

Error bad_header(std::size_t offset, const std::string& what) {
  return make_error("fat binary: " + what + " at offset " + std::to_string(offset));
}

Status read_entries(std::span<const unsigned char> entries, std::size_t base, std::vector<FatbinEntry>& out) {
  std::size_t at = 0;
  while (at < entries.size()) {
    if (entries.size() - at < kEntryHeaderMin) return bad_header(base + at, "a truncated entry header");
    auto kind = read_at<std::uint16_t>(entries, at);
    auto header_size = read_at<std::uint32_t>(entries, at + 4);
    auto payload_size = read_at<std::uint64_t>(entries, at + 8);
    auto arch = read_at<std::uint32_t>(entries, at + 28);
    auto flags = read_at<std::uint64_t>(entries, at + 40);
    std::size_t left = entries.size() - at;
    if (header_size < kEntryHeaderMin || header_size > left || payload_size > left - header_size) {
      return bad_header(base + at, "an entry larger than its container");
    }
    if ((kind == kKindPtx || kind == kKindCubin) && arch > 0 && arch < 1000) {
      FatbinEntry entry;
      entry.arch.capability = ComputeCapability(static_cast<int>(arch / 10), static_cast<int>(arch % 10));
      entry.arch.ptx = kind == kKindPtx;
      entry.arch.suffix = (flags & kFlagArchSpecific) ? 'a' : (flags & kFlagFamily) ? 'f' : 0;
      entry.compressed = (flags & (kFlagCompressed | kFlagCompressedLz4)) != 0;
      out.push_back(entry);
    }
    at += header_size + static_cast<std::size_t>(payload_size);
  }
  return ok_status();
}

}  // namespace

Result<std::vector<FatbinEntry>> read_fatbin(std::span<const unsigned char> section) {
  std::vector<FatbinEntry> entries;
  std::size_t at = 0;
  while (at < section.size()) {
    if (section.size() - at < kContainerHeader) {
      // The linker pads the section: trailing zeros end it.
      bool padding = true;
      for (std::size_t i = at; i < section.size(); ++i) padding = padding && section[i] == 0;
      if (padding) break;
      return bad_header(at, "a truncated container header");
    }
    auto magic = read_at<std::uint32_t>(section, at);
    if (magic == 0) {  // padding between containers, which start 8-aligned
      at += 8;
      continue;
    }
    if (magic != kContainerMagic) return bad_header(at, "no container magic (0xBA55ED50)");
    auto header_size = read_at<std::uint16_t>(section, at + 6);
    auto size = read_at<std::uint64_t>(section, at + 8);
    std::size_t left = section.size() - at;
    if (header_size < kContainerHeader || header_size > left || size > left - header_size) {
      return bad_header(at, "a container larger than the section");
    }
    CUDAENV_TRY(read_entries(section.subspan(at + header_size, static_cast<std::size_t>(size)), at + header_size, entries));
    at += header_size + static_cast<std::size_t>(size);
    at = (at + 7) & ~std::size_t{7};
  }
  return entries;
}

bool code_runs_on(const ArchEntry& code, const ComputeCapability& gpu) {
  const ComputeCapability& built = code.capability;
  if (code.suffix == 'a') return built == gpu;
  if (code.ptx && code.suffix != 'f') return built <= gpu;
  return built.runs_on(gpu);  // a cubin, or a family's PTX: the same major, a minor no higher
}

std::string nvcc_arch_name(const ArchEntry& entry) {
  std::string name =
      (entry.ptx ? "compute_" : "sm_") + std::to_string(entry.capability.major()) + std::to_string(entry.capability.minor());
  if (entry.suffix) name += entry.suffix;
  return name;
}

}  // namespace cudaenv
