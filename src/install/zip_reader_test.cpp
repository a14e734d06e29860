#include <zlib.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "install/zip_reader.h"
#include "support/deflated.h"
#include "support/zip_differential.h"

using namespace cudaenv;

namespace {

void put16(std::string& out, std::uint32_t value) {
  out += static_cast<char>(value & 0xFF);
  out += static_cast<char>((value >> 8) & 0xFF);
}
void put32(std::string& out, std::uint32_t value) {
  put16(out, value & 0xFFFF);
  put16(out, value >> 16);
}
void put64(std::string& out, std::uint64_t value) {
  put32(out, static_cast<std::uint32_t>(value));
  put32(out, static_cast<std::uint32_t>(value >> 32));
}

std::uint32_t crc_of(const std::string& data) {
  return static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

// One member as a zip writer lays it out; the fields a test changes to make it hostile.
struct Member {
  std::string name;
  std::string data;
  std::uint16_t method = 8;
  std::string central_name;  // when not the local header's
  std::uint16_t flags = 0;
  bool descriptor = false;  // sizes after the data (flag bit 3)
  bool zip64 = false;       // zip64 sizes in the local header and the directory
  std::optional<std::uint32_t> local_crc, central_crc;
  std::optional<std::uint64_t> local_size, central_size, local_compressed;
  std::optional<std::uint16_t> central_method, central_flags;
  std::uint32_t mode = 0100644;
  bool in_directory = true;
  std::string after_data;  // bytes between its data and the next header
};

Member member(std::string name, std::string data, std::uint16_t method = 8) {
  Member m;
  m.name = std::move(name);
  m.data = std::move(data);
  m.method = method;
  return m;
}

struct Zip {
  std::vector<Member> members;
  std::string prefix, after_directory, comment;
  std::optional<std::uint16_t> end_entries;
  bool zip64_end = false;

  std::string bytes() const {
    std::string out = prefix;
    std::string directory;
    size_t count = 0;
    for (const Member& m : members) {
      std::string packed = m.method == 8 ? deflated(m.data) : m.data;
      std::uint32_t crc = crc_of(m.data);
      std::uint16_t flags = static_cast<std::uint16_t>(m.flags | (m.descriptor ? 8 : 0));
      std::uint64_t offset = out.size();
      std::string local_extra;
      if (m.zip64) {
        put16(local_extra, 1);
        put16(local_extra, 16);
        put64(local_extra, m.local_size.value_or(m.data.size()));
        put64(local_extra, m.local_compressed.value_or(packed.size()));
      }
      put32(out, 0x04034b50);
      put16(out, 20);
      put16(out, flags);
      put16(out, m.method);
      put16(out, 0x9800);  // 19:00
      put16(out, 0x5aa8);  // 2025-05-08
      put32(out, m.descriptor ? 0 : m.local_crc.value_or(crc));
      std::uint32_t local_compressed = m.descriptor ? 0 : static_cast<std::uint32_t>(m.local_compressed.value_or(packed.size()));
      std::uint32_t local_size = m.descriptor ? 0 : static_cast<std::uint32_t>(m.local_size.value_or(m.data.size()));
      put32(out, m.zip64 ? 0xFFFFFFFF : local_compressed);
      put32(out, m.zip64 ? 0xFFFFFFFF : local_size);
      put16(out, static_cast<std::uint32_t>(m.name.size()));
      put16(out, static_cast<std::uint32_t>(local_extra.size()));
      out += m.name + local_extra + packed;
      if (m.descriptor) {
        put32(out, 0x08074b50);
        put32(out, m.local_crc.value_or(crc));
        if (m.zip64) {
          put64(out, packed.size());
          put64(out, m.local_size.value_or(m.data.size()));
        } else {
          put32(out, static_cast<std::uint32_t>(packed.size()));
          put32(out, static_cast<std::uint32_t>(m.local_size.value_or(m.data.size())));
        }
      }
      out += m.after_data;
      if (!m.in_directory) continue;
      ++count;
      std::string name = m.central_name.empty() ? m.name : m.central_name;
      std::string central_extra;
      if (m.zip64) {
        put16(central_extra, 1);
        put16(central_extra, 24);
        put64(central_extra, m.central_size.value_or(m.data.size()));
        put64(central_extra, packed.size());
        put64(central_extra, offset);
      }
      put32(directory, 0x02014b50);
      put16(directory, 0x0314);  // made by Unix
      put16(directory, 20);
      put16(directory, m.central_flags.value_or(flags));
      put16(directory, m.central_method.value_or(m.method));
      put16(directory, 0x9800);
      put16(directory, 0x5aa8);
      put32(directory, m.central_crc.value_or(crc));
      put32(directory, m.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(packed.size()));
      put32(directory, m.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(m.central_size.value_or(m.data.size())));
      put16(directory, static_cast<std::uint32_t>(name.size()));
      put16(directory, static_cast<std::uint32_t>(central_extra.size()));
      put16(directory, 0);
      put16(directory, 0);
      put16(directory, 0);
      put32(directory, m.mode << 16);
      put32(directory, m.zip64 ? 0xFFFFFFFF : static_cast<std::uint32_t>(offset));
      directory += name + central_extra;
    }
    std::uint64_t directory_offset = out.size();
    out += directory;
    if (zip64_end) {
      std::uint64_t record = out.size();
      put32(out, 0x06064b50);
      put64(out, 44);
      put16(out, 45);
      put16(out, 45);
      put32(out, 0);
      put32(out, 0);
      put64(out, count);
      put64(out, count);
      put64(out, directory.size());
      put64(out, directory_offset);
      put32(out, 0x07064b50);
      put32(out, 0);
      put64(out, record);
      put32(out, 1);
    }
    put32(out, 0x06054b50);
    put16(out, 0);
    put16(out, 0);
    put16(out, zip64_end ? 0xFFFF : end_entries.value_or(static_cast<std::uint16_t>(count)));
    put16(out, zip64_end ? 0xFFFF : end_entries.value_or(static_cast<std::uint16_t>(count)));
    put32(out, zip64_end ? 0xFFFFFFFF : static_cast<std::uint32_t>(directory.size()));
    put32(out, zip64_end ? 0xFFFFFFFF : static_cast<std::uint32_t>(directory_offset));
    put16(out, static_cast<std::uint32_t>(comment.size()));
    return out + comment + after_directory;
  }
};

// The archive as read_zip reads it, through a source that gives a few bytes at a time (as a
// download may). With a `pattern` (0 and up) the source also lends pieces of 1 to 23 bytes in
// place (as a wheel's download does, ArrivingFile::lend), their sizes shifted by the pattern, so
// a header, a stream's end or an unconsume crosses their edges.
Result<testing::ZipContents> read_through(const std::string& zip, int pattern) {
  struct Trickle : ByteSource {
    std::string_view rest;
    int pattern = -1;
    size_t turn = 0;
    std::string_view lent;
    Result<size_t> read(std::span<std::uint8_t> out) override {
      size_t size = std::min({out.size(), rest.size(), size_t{7}});
      std::copy_n(rest.begin(), size, out.begin());
      rest.remove_prefix(size);
      return size;
    }
    std::span<const std::uint8_t> lend() override {
      if (pattern < 0 || rest.empty()) return {};
      lent = rest.substr(0, 1 + (turn++ * 5 + static_cast<size_t>(pattern)) % 23);
      rest.remove_prefix(lent.size());
      return {reinterpret_cast<const std::uint8_t*>(lent.data()), lent.size()};
    }
    void give_back(size_t count) override { rest = std::string_view(lent.data() + lent.size() - count, count + rest.size()); }
  } source;
  source.rest = zip;
  source.pattern = pattern;
  return testing::read_zip(source);
}

// read_through copying every byte and lending with several patterns, which must agree to the
// byte and the message.
Result<testing::ZipContents> read_all(const std::string& zip) {
  auto copied = read_through(zip, -1);
  for (int pattern = 0; pattern < 23; ++pattern) {
    auto lent = read_through(zip, pattern);
    REQUIRE(bool(copied) == bool(lent));
    if (copied) {
      CHECK(copied->members == lent->members);
      CHECK(copied->executable == lent->executable);
    } else {
      CHECK(copied.error().message == lent.error().message);
    }
  }
  return copied;
}

std::string refusal(const Zip& zip) {
  auto read = read_all(zip.bytes());
  REQUIRE_FALSE(read);
  return read.error().message;
}

const std::string kHeader = "#pragma once\n" + std::string(3000, 'x') + "\n";

}  // namespace

TEST_CASE("zip: stored, deflated, zip64 and descriptor members read as both tables of contents give them") {
  Zip zip;
  zip.members = {member("nvidia/cu13/include/a.h", kHeader), member("nvidia/cu13/bin/nvcc", "#!/bin/sh\n", 0),
                 member("nvidia/cu13/lib/", "", 0)};
  zip.members[1].mode = 0100755;
  Member descriptor = member("nvidia/cu13/lib/libx.so", std::string(70000, 'y'));
  descriptor.descriptor = true;
  zip.members.push_back(descriptor);
  Member wide = member("nvidia/cu13/lib/liby.so", "zip64 sizes");
  wide.zip64 = true;
  wide.descriptor = true;
  zip.members.push_back(wide);
  zip.comment = "a comment";
  for (bool zip64_end : {false, true}) {
    zip.zip64_end = zip64_end;
    auto read = read_all(zip.bytes());
    REQUIRE(read);
    REQUIRE(read->members.size() == 5);
    CHECK(read->members[0].second == kHeader);
    CHECK(read->members[1].second == "#!/bin/sh\n");
    CHECK(read->members[3].second == std::string(70000, 'y'));
    CHECK(read->members[4].second == "zip64 sizes");
    CHECK(read->executable == std::vector<bool>{false, true, false, false, false});
  }
}

TEST_CASE("zip: the local header and the central directory must agree") {
  Zip zip;
  zip.members = {member("nvidia/cu13/include/ok.h", "ok\n"), member("nvidia/cu13/bin/gcc1234", "#!/bin/sh\nevil\n")};
  SECTION("name: what pip and unzip -l show is what is unpacked") {
    zip.members[1].central_name = "nvidia/cu13/include/a.h";
    CHECK_THAT(refusal(zip),
               Catch::Contains("names the member at offset") &&
                   Catch::Contains("'nvidia/cu13/include/a.h', but its local header names it 'nvidia/cu13/bin/gcc1234'"));
  }
  SECTION("sizes") {
    zip.members[1].central_size = 4ull << 30;
    zip.members[1].zip64 = true;
    CHECK_THAT(refusal(zip), Catch::Contains("member 'nvidia/cu13/bin/gcc1234': its central directory gives size 4294967296"));
  }
  SECTION("CRC-32") {
    zip.members[1].central_crc = 1234;
    CHECK_THAT(refusal(zip), Catch::Contains("its central directory gives CRC-32 1234"));
  }
  SECTION("compression method") {
    zip.members[1].central_method = 0;
    CHECK_THAT(refusal(zip), Catch::Contains("its central directory gives compression method 0"));
  }
  SECTION("flags") {
    zip.members[1].central_flags = 0x800;
    CHECK_THAT(refusal(zip), Catch::Contains("its central directory gives the flags 2048"));
  }
  SECTION("a member the central directory leaves out") {
    zip.members[1].in_directory = false;
    CHECK_THAT(refusal(zip), Catch::Contains("member 'nvidia/cu13/bin/gcc1234' (at offset") &&
                                 Catch::Contains("is not in the central directory"));
  }
  SECTION("end records that count another directory") {
    zip.end_entries = 3;
    CHECK_THAT(refusal(zip), Catch::Contains("has end records that do not describe its central directory"));
  }
}

TEST_CASE("zip: data exactly as long as declared, with its CRC-32") {
  Zip zip;
  zip.members = {member("nvidia/cu13/lib/libx.so", "five!")};
  SECTION("a member declaring 4 GiB that holds 5 bytes, as a descriptor would") {
    zip.members[0].local_size = 4ull << 30;
    zip.members[0].zip64 = true;
    zip.members[0].central_size = 4ull << 30;
    CHECK_THAT(refusal(zip),
               Catch::Contains("member 'nvidia/cu13/lib/libx.so''s size is 5, but its local header says 4294967296"));
  }
  SECTION("stored data shorter than its header says runs into the next header") {
    zip.members[0].method = 0;
    zip.members[0].local_size = 50;
    zip.members[0].local_compressed = 50;
    CHECK_FALSE(read_all(zip.bytes()));
  }
  SECTION("a deflated member longer than it declares") {
    zip.members[0].local_size = 3;
    CHECK_THAT(refusal(zip), Catch::Contains("deflate data is corrupt or inflates to more than the 3 bytes it declares"));
  }
  SECTION("a wrong CRC-32") {
    zip.members[0].local_crc = 7;
    zip.members[0].central_crc = 7;
    CHECK_THAT(refusal(zip), Catch::Contains("CRC-32 is") && Catch::Contains("but its local header says 7"));
  }
  SECTION("a wrong CRC-32 in a data descriptor") {
    zip.members[0].descriptor = true;
    zip.members[0].local_crc = 7;
    zip.members[0].central_crc = 7;
    CHECK_THAT(refusal(zip), Catch::Contains("but its data descriptor says 7"));
  }
  SECTION("deflate data that ends before its declared compressed size") {
    zip.members[0].local_compressed = deflated("five!").size() + 4;
    zip.members[0].after_data = "\0\0\0\0";
    CHECK_THAT(refusal(zip), Catch::Contains("deflate data ends 4 bytes before"));
  }
}

TEST_CASE("zip: nothing before, between or after what the format accounts for") {
  Zip zip;
  zip.members = {member("a", "a"), member("b", "b")};
  SECTION("a prefix") {
    zip.prefix = "#!/bin/sh\n";
    CHECK_THAT(refusal(zip), Catch::Contains("does not start with a zip member"));
  }
  SECTION("bytes between members") {
    zip.members[0].after_data = "junk";
    CHECK_THAT(refusal(zip), Catch::Contains("that is neither a member nor the central directory"));
  }
  SECTION("bytes after the end record") {
    zip.after_directory = "trailing";
    CHECK_THAT(refusal(zip), Catch::Contains("has data after its end record"));
  }
  SECTION("a file cut short") {
    std::string bytes = zip.bytes();
    for (size_t keep : {size_t{3}, size_t{20}, size_t{40}, bytes.size() - 30, bytes.size() - 1}) {
      INFO("kept " << keep << " bytes");
      auto read = read_all(bytes.substr(0, keep));
      REQUIRE_FALSE(read);
      CHECK_THAT(read.error().message, Catch::Contains("cut short") || Catch::Contains("ends"));
    }
  }
  SECTION("encryption and other methods") {
    zip.members[1].flags = 1;
    CHECK_THAT(refusal(zip), Catch::Contains("member 'b' is encrypted"));
    zip.members[1].flags = 0;
    zip.members[1].method = 0;
    zip.members[1].descriptor = true;
    CHECK_THAT(refusal(zip), Catch::Contains("is stored with its size after its data"));
    zip.members[1].descriptor = false;
    zip.members[1].central_method = zip.members[1].method = 12;
    CHECK_THAT(refusal(zip), Catch::Contains("is compressed with method 12"));
  }
}
