#include "extensions/fatbin.h"

#include <catch2/catch.hpp>
#include <cstring>

using namespace cudaenv;

namespace {

// A fat binary as nvcc writes one (header layouts read from CUDA 13.0's output, and checked
// against cuobjdump: docs/extensions.md).
struct Fatbin {
  std::vector<unsigned char> bytes;

  template <class T>
  void put(std::vector<unsigned char>& out, std::size_t at, T value) {
    if (out.size() < at + sizeof value) out.resize(at + sizeof value);
    std::memcpy(out.data() + at, &value, sizeof value);
  }
  // One container of entries (kind, arch, flags), each with a payload of `payload` bytes.
  Fatbin& container(std::vector<std::tuple<std::uint16_t, std::uint32_t, std::uint64_t>> entries, std::size_t payload = 24) {
    std::vector<unsigned char> body;
    for (auto [kind, arch, flags] : entries) {
      std::size_t at = body.size();
      put<std::uint16_t>(body, at, kind);
      put<std::uint16_t>(body, at + 2, 0x101);
      put<std::uint32_t>(body, at + 4, 64);
      put<std::uint64_t>(body, at + 8, payload);
      put<std::uint32_t>(body, at + 28, arch);
      put<std::uint64_t>(body, at + 40, flags);
      body.resize(at + 64 + payload, 0xAB);
    }
    std::size_t at = bytes.size();
    put<std::uint32_t>(bytes, at, 0xBA55ED50);
    put<std::uint16_t>(bytes, at + 4, 1);
    put<std::uint16_t>(bytes, at + 6, 16);
    put<std::uint64_t>(bytes, at + 8, body.size());
    bytes.insert(bytes.end(), body.begin(), body.end());
    return *this;
  }
};

constexpr std::uint16_t ptx = 1, cubin = 2;

std::vector<std::string> names(const std::vector<FatbinEntry>& entries) {
  std::vector<std::string> out;
  for (const FatbinEntry& entry : entries) out.push_back(nvcc_arch_name(entry.arch) + (entry.compressed ? " (compressed)" : ""));
  return out;
}

}  // namespace

TEST_CASE("read_fatbin reads each entry's kind, arch, family and compression from its header") {
  Fatbin fatbin;
  fatbin.container({{cubin, 80, 0x11}, {cubin, 90, 0x100011}, {ptx, 90, 0x8011}})
      .container({{cubin, 100, 0x1208011}, {cubin, 120, 0x1008011}, {ptx, 75, 0x11}});
  auto entries = read_fatbin(fatbin.bytes);
  REQUIRE(entries);
  CHECK(names(*entries) == std::vector<std::string>{"sm_80", "sm_90a", "compute_90 (compressed)", "sm_100f (compressed)",
                                                    "sm_120 (compressed)", "compute_75"});
}

TEST_CASE("read_fatbin skips the zero padding between and after containers") {
  Fatbin fatbin;
  fatbin.container({{cubin, 86, 0x11}});
  fatbin.bytes.resize(fatbin.bytes.size() + 8, 0);
  fatbin.container({{ptx, 86, 0x11}});
  fatbin.bytes.resize(fatbin.bytes.size() + 12, 0);
  auto entries = read_fatbin(fatbin.bytes);
  REQUIRE(entries);
  CHECK(names(*entries) == std::vector<std::string>{"sm_86", "compute_86"});
}

TEST_CASE("read_fatbin refuses a bad magic and every truncation of a good fat binary, without reading past it") {
  Fatbin fatbin;
  fatbin.container({{cubin, 80, 0x11}, {ptx, 80, 0x8011}});
  std::vector<unsigned char> bad = fatbin.bytes;
  bad[0] = 0x51;
  auto refused = read_fatbin(bad);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "fat binary: no container magic (0xBA55ED50) at offset 0");
  for (std::size_t size = 1; size < fatbin.bytes.size(); ++size) {
    std::vector<unsigned char> cut(fatbin.bytes.begin(), fatbin.bytes.begin() + static_cast<std::ptrdiff_t>(size));
    INFO("cut at " << size);
    CHECK_FALSE(read_fatbin(cut));  // a copy of exactly `size` bytes: ASan sees any read past it
  }
}

TEST_CASE("read_fatbin refuses entry sizes that overflow their container") {
  Fatbin fatbin;
  fatbin.container({{cubin, 80, 0x11}});
  std::uint64_t huge = ~std::uint64_t{0} - 8;
  std::memcpy(fatbin.bytes.data() + 16 + 8, &huge, sizeof huge);
  auto refused = read_fatbin(fatbin.bytes);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "fat binary: an entry larger than its container at offset 16");
}

TEST_CASE("code_runs_on: SASS within its major, 'a' on its GPU only, 'f' in its family, PTX upwards") {
  auto sass = [](int major, int minor, char suffix = 0) { return ArchEntry{ComputeCapability(major, minor), suffix, false}; };
  auto ptx_of = [](int major, int minor, char suffix = 0) { return ArchEntry{ComputeCapability(major, minor), suffix, true}; };
  CHECK(code_runs_on(sass(8, 0), {8, 6}));
  CHECK(code_runs_on(sass(8, 6), {8, 9}));
  CHECK_FALSE(code_runs_on(sass(8, 6), {8, 0}));
  CHECK_FALSE(code_runs_on(sass(8, 0), {9, 0}));
  CHECK(code_runs_on(sass(9, 0, 'a'), {9, 0}));
  CHECK_FALSE(code_runs_on(sass(10, 0, 'a'), {10, 3}));
  CHECK(code_runs_on(sass(10, 0, 'f'), {10, 3}));
  CHECK_FALSE(code_runs_on(sass(10, 3, 'f'), {10, 0}));
  CHECK_FALSE(code_runs_on(sass(10, 0, 'f'), {12, 0}));
  CHECK(code_runs_on(ptx_of(8, 0), {9, 0}));
  CHECK(code_runs_on(ptx_of(8, 0), {12, 0}));
  CHECK_FALSE(code_runs_on(ptx_of(9, 0), {8, 9}));
  CHECK(code_runs_on(ptx_of(9, 0, 'a'), {9, 0}));
  CHECK_FALSE(code_runs_on(ptx_of(9, 0, 'a'), {10, 0}));
  CHECK(code_runs_on(ptx_of(10, 0, 'f'), {10, 3}));
  CHECK_FALSE(code_runs_on(ptx_of(10, 0, 'f'), {12, 0}));
}
