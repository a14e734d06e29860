#pragma once
// Reading a zip (a wheel) front to back as its bytes arrive: each local header, then its data,
// inflated or stored, its CRC-32 and length verified; then the central directory, which must
// list exactly the members read, in their places, with the same name, sizes, CRC-32, method and
// flags; then the end records, and the file's end. So the members unpacked are the members that
// pip and `unzip -l` show, each exactly as long as both tables of contents say.
//
// The input is untrusted (an index can vouch for any bytes): every length is bounded by what
// arrives, nothing is allocated from a declared size, and anything the format does not account
// for (data before the first member or between members, after the end records) is an error.
// Refused although zipfile reads them: encrypted members, methods other than stored and deflate,
// a stored member whose size only follows its data (it cannot be read as it arrives), zip files
// split over disks, and data before the first member (a self-extracting prefix).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "install/byte_source.h"
#include "util/result.h"

namespace cudaenv {

struct ZipMember {
  std::string name;        // as the local header and the central directory have it
  std::uint64_t size = 0;  // uncompressed, as declared (0 when the local header defers it to after the data)
  bool directory = false;  // the name ends in '/'
  std::int64_t mtime = 0;  // seconds since the epoch, from the DOS time (taken as UTC)
};

class ZipReader {
 public:
  explicit ZipReader(ByteSource& source);
  ~ZipReader();
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  // The next member's local header; nullopt at the central directory. The data of the member
  // before it is read (and verified) first, if its reader did not.
  Result<std::optional<ZipMember>> next();
  // The current member's next piece of data; empty at its end, once its length and CRC-32
  // matched what it declares.
  Result<std::span<const std::uint8_t>> read_data();
  // After next() gave nullopt: reads the central directory and end records to the file's end
  // and checks them against the members read. For each member, in order: whether the central
  // directory gives it an executable bit (as pip reads it).
  Result<std::vector<bool>> finish();

 private:
  struct Local;
  struct Inflater;
  Status start_member(std::uint64_t offset);
  Status end_member();
  Result<std::span<const std::uint8_t>> take(size_t count, const char* what);
  Result<std::uint32_t> peek_signature();
  Status read_central_entry(const std::map<std::uint64_t, size_t>& by_offset, std::vector<bool>& listed,
                            std::vector<bool>& executable);
  Status read_end_records(std::uint64_t directory_offset, std::uint64_t directory_size, size_t entries);

  SourceBuffer in_;
  std::vector<Local> members_;
  std::unique_ptr<Inflater> inflater_;
  bool in_data_ = false;
  std::uint64_t data_left_ = 0;  // compressed bytes of the current member not read yet (UINT64_MAX: until its end)
  std::uint64_t consumed_ = 0;   // its compressed bytes read
  std::uint64_t produced_ = 0;   // its bytes handed out
  std::uint32_t crc_ = 0;        // of those bytes
  bool at_directory_ = false;
  std::vector<std::uint8_t> out_;  // a piece of inflated data
};

}  // namespace cudaenv
