#include "install/zip_reader.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <ctime>
#include <map>

#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr std::uint32_t kLocalSignature = 0x04034b50;
constexpr std::uint32_t kCentralSignature = 0x02014b50;
constexpr std::uint32_t kEndSignature = 0x06054b50;
constexpr std::uint32_t kZip64EndSignature = 0x06064b50;
constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr std::uint32_t kDescriptorSignature = 0x08074b50;
constexpr std::uint16_t kZip64ExtraId = 0x0001;
constexpr std::uint32_t kUnknown32 = 0xFFFFFFFF;

constexpr std::uint16_t kEncrypted = 1 << 0;
constexpr std::uint16_t kSizesAfterData = 1 << 3;  // a data descriptor follows the data
constexpr std::uint16_t kStrongEncryption = 1 << 6;
constexpr std::uint16_t kMaskedHeaders = 1 << 13;

constexpr std::uint16_t kStored = 0;
constexpr std::uint16_t kDeflated = 8;

// The largest local header: 30 bytes and a name and extra field of 64 KiB each.
constexpr size_t kBufferSize = 256 << 10;

std::uint16_t u16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
std::uint32_t u32(const std::uint8_t* p) { return u16(p) | static_cast<std::uint32_t>(u16(p + 2)) << 16; }
std::uint64_t u64(const std::uint8_t* p) { return u32(p) | static_cast<std::uint64_t>(u32(p + 4)) << 32; }

std::string shown(const std::string& name) { return "'" + terminal_safe(name) + "'"; }

std::int64_t dos_time(std::uint16_t time, std::uint16_t date) {
  std::tm parts{};
  parts.tm_year = 80 + (date >> 9);
  parts.tm_mon = ((date >> 5) & 0xF) - 1;
  parts.tm_mday = date & 0x1F;
  parts.tm_hour = time >> 11;
  parts.tm_min = (time >> 5) & 0x3F;
  parts.tm_sec = (time & 0x1F) * 2;
  return static_cast<std::int64_t>(::timegm(&parts));
}

// The zip64 sizes (and offset) an extra field gives for the fields whose 32-bit value is
// 0xFFFFFFFF, in the order the format lists them; in a local header both sizes are there.
struct Zip64Fields {
  bool present = false;
  std::uint64_t size = 0, compressed = 0, offset = 0;
};

Result<Zip64Fields> read_extra(std::span<const std::uint8_t> extra, bool local, std::uint32_t size, std::uint32_t compressed,
                               std::uint32_t offset) {
  Zip64Fields fields;
  while (!extra.empty()) {
    if (extra.size() < 4) return make_error("has a damaged extra field");
    std::uint16_t id = u16(extra.data()), length = u16(extra.data() + 2);
    if (extra.size() - 4 < length) return make_error("has a damaged extra field");
    std::span<const std::uint8_t> data = extra.subspan(4, length);
    extra = extra.subspan(4 + length);
    if (id != kZip64ExtraId) continue;
    if (fields.present) return make_error("has two zip64 extra fields");
    fields.present = true;
    size_t at = 0;
    auto field = [&](bool wanted, std::uint64_t& value) -> bool {
      if (!wanted) return true;
      if (data.size() - at < 8) return false;
      value = u64(data.data() + at);
      at += 8;
      return true;
    };
    bool whole = local ? field(true, fields.size) && field(true, fields.compressed)
                       : field(size == kUnknown32, fields.size) && field(compressed == kUnknown32, fields.compressed) &&
                             field(offset == kUnknown32, fields.offset);
    if (!whole) return make_error("has a zip64 extra field too short for the sizes it stands for");
  }
  return fields;
}

}  // namespace

// One member as its local header and data gave it.
struct ZipReader::Local {
  std::string name;
  std::uint64_t offset = 0;  // of its local header
  std::uint16_t flags = 0, method = 0;
  bool zip64 = false;  // its local header has zip64 sizes (so has its data descriptor)
  // As declared by the local header, and once the data is read, as found.
  std::uint32_t crc = 0;
  std::uint64_t compressed = 0, size = 0;
  std::int64_t mtime = 0;
};

// ISA-L's inflate, which also computes the CRC-32 of what it writes (ISAL_GZIP_NO_HDR: raw
// deflate, the gzip CRC): about 0.6 of zlib's CPU for inflating and summing NVIDIA's wheels
// (docs/performance.md). It gives back, at the stream's end, the input bytes it read ahead.
struct ZipReader::Inflater {
  inflate_state state{};
  bool ended = false;
};

// The inflated pieces: larger pieces are fewer writes, and ISA-L inflates into the caller's
// buffer directly when it has room for a whole block's output.
constexpr size_t kPieceSize = 256 << 10;

ZipReader::ZipReader(ByteSource& source) : in_(source, kBufferSize), inflater_(std::make_unique<Inflater>()), out_(kPieceSize) {}

ZipReader::~ZipReader() = default;

Result<std::span<const std::uint8_t>> ZipReader::take(size_t count, const char* what) {
  CUDAENV_TRY_ASSIGN(auto buffered, in_.fill(count));
  if (buffered.size() < count) return make_error(std::string("ends inside ") + what + ": the file is cut short");
  in_.consume(count);
  return buffered.first(count);
}

Result<std::uint32_t> ZipReader::peek_signature() {
  CUDAENV_TRY_ASSIGN(auto buffered, in_.fill(4));
  if (buffered.size() < 4) return make_error("ends before its central directory: the file is cut short");
  return u32(buffered.data());
}

Result<std::optional<ZipMember>> ZipReader::next() {
  if (at_directory_) return std::optional<ZipMember>();
  while (in_data_) {
    CUDAENV_TRY_ASSIGN(auto piece, read_data());
    if (piece.empty()) break;
  }
  std::uint64_t offset = in_.offset();
  CUDAENV_TRY_ASSIGN(std::uint32_t signature, peek_signature());
  if (signature == kCentralSignature || signature == kEndSignature || signature == kZip64EndSignature) {
    at_directory_ = true;
    return std::optional<ZipMember>();
  }
  if (signature != kLocalSignature) {
    if (offset == 0) return make_error("does not start with a zip member: it is no wheel, or has data before its first member");
    return make_error("has data at offset " + std::to_string(offset) + " that is neither a member nor the central directory");
  }
  CUDAENV_TRY(start_member(offset));
  const Local& local = members_.back();
  return std::optional<ZipMember>(ZipMember{local.name, local.size, local.name.back() == '/', local.mtime});
}

Status ZipReader::start_member(std::uint64_t offset) {
  CUDAENV_TRY_ASSIGN(auto header, take(30, "a local header"));
  Local local;
  local.offset = offset;
  local.flags = u16(header.data() + 6);
  local.method = u16(header.data() + 8);
  std::uint16_t time = u16(header.data() + 10), date = u16(header.data() + 12);
  local.crc = u32(header.data() + 14);
  std::uint32_t compressed = u32(header.data() + 18), size = u32(header.data() + 22);
  std::uint16_t name_length = u16(header.data() + 26), extra_length = u16(header.data() + 28);
  CUDAENV_TRY_ASSIGN(auto name, take(name_length, "a local header"));
  local.name.assign(name.begin(), name.end());
  std::string what = "member " + shown(local.name);
  if (local.name.empty() || local.name.find('\0') != std::string::npos) return make_error(what + " has no usable name");
  CUDAENV_TRY_ASSIGN(auto extra_bytes, take(extra_length, "a local header"));
  auto extra = read_extra(extra_bytes, true, size, compressed, 0);
  if (!extra) return make_error(what + " " + extra.error().message);
  if (local.flags & (kEncrypted | kStrongEncryption | kMaskedHeaders)) return make_error(what + " is encrypted");
  if (local.method != kStored && local.method != kDeflated) {
    return make_error(what + " is compressed with method " + std::to_string(local.method) +
                      ", where wheels use deflate (8) or none (0)");
  }
  bool deferred = local.flags & kSizesAfterData;
  if (deferred && local.method == kStored) {
    return make_error(what + " is stored with its size after its data, which cannot be read as it arrives");
  }
  local.zip64 = extra->present;
  local.compressed = compressed == kUnknown32 && extra->present ? extra->compressed : compressed;
  local.size = size == kUnknown32 && extra->present ? extra->size : size;
  if ((compressed == kUnknown32 || size == kUnknown32) && !extra->present) {
    return make_error(what + " has zip64 sizes but no zip64 extra field");
  }
  if (!deferred && local.method == kStored && local.compressed != local.size) {
    return make_error(what + " is stored, but its sizes differ (" + std::to_string(local.compressed) + " and " +
                      std::to_string(local.size) + " bytes)");
  }
  local.mtime = dos_time(time, date);
  members_.push_back(std::move(local));
  in_data_ = true;
  consumed_ = 0;
  produced_ = 0;
  crc_ = 0;
  data_left_ = deferred ? UINT64_MAX : members_.back().compressed;
  if (members_.back().method == kDeflated) {
    isal_inflate_init(&inflater_->state);
    inflater_->state.crc_flag = ISAL_GZIP_NO_HDR;
    inflater_->ended = false;
  }
  return ok_status();
}

Result<std::span<const std::uint8_t>> ZipReader::read_data() {
  if (!in_data_) return std::span<const std::uint8_t>();
  Local& local = members_.back();
  bool deferred = local.flags & kSizesAfterData;
  if (local.method == kStored) {
    if (data_left_ == 0) {
      CUDAENV_TRY(end_member());
      return std::span<const std::uint8_t>();
    }
    CUDAENV_TRY_ASSIGN(auto buffered, in_.fill(1));
    if (buffered.empty()) return make_error("member " + shown(local.name) + " is cut short: the file ends inside its data");
    std::span<const std::uint8_t> piece =
        buffered.first(static_cast<size_t>(std::min<std::uint64_t>(buffered.size(), data_left_)));
    in_.consume(piece.size());
    data_left_ -= piece.size();
    consumed_ += piece.size();
    produced_ += piece.size();
    crc_ = crc32_gzip_refl(crc_, piece.data(), piece.size());
    return piece;
  }
  inflate_state& state = inflater_->state;
  while (!inflater_->ended) {
    std::span<const std::uint8_t> input;
    if (data_left_ > 0) {
      CUDAENV_TRY_ASSIGN(auto buffered, in_.fill(1));
      input = buffered.first(static_cast<size_t>(std::min<std::uint64_t>(buffered.size(), data_left_)));
    }
    state.next_in = const_cast<std::uint8_t*>(input.data());
    state.avail_in = static_cast<std::uint32_t>(input.size());
    state.next_out = out_.data();
    state.avail_out = static_cast<std::uint32_t>(out_.size());
    int status = isal_inflate(&state);
    size_t read = input.size() - state.avail_in, written = out_.size() - state.avail_out;
    in_.consume(read);
    consumed_ += read;
    if (!deferred) data_left_ -= read;
    produced_ += written;
    // One refusal for both: in a damaged stream, whether ISA-L reports the damage or writes past
    // the declared size first depends on the pieces the input came in (zip_differential_test).
    if (status < 0 || (!deferred && produced_ > local.size)) {
      return make_error("member " + shown(local.name) + "'s deflate data is corrupt" +
                        (deferred ? "" : " or inflates to more than the " + std::to_string(local.size) + " bytes it declares"));
    }
    if (state.block_state == ISAL_BLOCK_FINISH) {
      inflater_->ended = true;
      crc_ = state.crc;
      // The whole bytes still in ISA-L's bit buffer follow the deflate data (a data descriptor).
      size_t unread = state.read_in_length / 8;
      in_.unconsume(unread);
      consumed_ -= unread;
      if (!deferred) data_left_ += unread;
    } else if (read == 0 && written == 0) {
      if (data_left_ == 0) {
        return make_error("member " + shown(local.name) + "'s deflate data runs past the " + std::to_string(local.compressed) +
                          " compressed bytes it declares");
      }
      return make_error("member " + shown(local.name) + " is cut short: the file ends inside its data");
    }
    if (written == 0) continue;
    return std::span<const std::uint8_t>(out_.data(), written);
  }
  CUDAENV_TRY(end_member());
  return std::span<const std::uint8_t>();
}

Status ZipReader::end_member() {
  Local& local = members_.back();
  std::string what = "member " + shown(local.name);
  in_data_ = false;
  auto differ = [&](const char* field, std::uint64_t declared, std::uint64_t found, const char* where) {
    return make_error(what + "'s " + field + " is " + std::to_string(found) + ", but its " + where + " says " +
                      std::to_string(declared));
  };
  if (local.flags & kSizesAfterData) {
    CUDAENV_TRY_ASSIGN(auto head, in_.fill(4));
    if (head.size() >= 4 && u32(head.data()) == kDescriptorSignature) in_.consume(4);
    size_t width = local.zip64 ? 8 : 4;
    CUDAENV_TRY_ASSIGN(auto descriptor, take(4 + 2 * width, "a data descriptor"));
    std::uint32_t crc = u32(descriptor.data());
    std::uint64_t compressed = width == 8 ? u64(descriptor.data() + 4) : u32(descriptor.data() + 4);
    std::uint64_t size = width == 8 ? u64(descriptor.data() + 12) : u32(descriptor.data() + 8);
    if (crc != crc_) return differ("CRC-32", crc, crc_, "data descriptor");
    if (compressed != consumed_) return differ("compressed size", compressed, consumed_, "data descriptor");
    if (size != produced_) return differ("size", size, produced_, "data descriptor");
    // A local header that gives them anyway must agree too.
    if (local.crc != 0 && local.crc != crc_) return differ("CRC-32", local.crc, crc_, "local header");
    if (local.compressed != 0 && local.compressed != consumed_)
      return differ("compressed size", local.compressed, consumed_, "local header");
    if (local.size != 0 && local.size != produced_) return differ("size", local.size, produced_, "local header");
  } else {
    if (data_left_ != 0) {
      return make_error(what + "'s deflate data ends " + std::to_string(data_left_) + " bytes before the " +
                        std::to_string(local.compressed) + " compressed bytes it declares");
    }
    if (produced_ != local.size) return differ("size", local.size, produced_, "local header");
    if (crc_ != local.crc) return differ("CRC-32", local.crc, crc_, "local header");
  }
  local.crc = crc_;
  local.compressed = consumed_;
  local.size = produced_;
  return ok_status();
}

Result<std::vector<bool>> ZipReader::finish() {
  if (!at_directory_) return make_error("the central directory is read before the members");
  std::uint64_t directory_offset = in_.offset();
  std::map<std::uint64_t, size_t> by_offset;
  for (size_t i = 0; i < members_.size(); ++i) by_offset[members_[i].offset] = i;
  std::vector<bool> listed(members_.size(), false), executable(members_.size(), false);
  size_t entries = 0;
  while (true) {
    CUDAENV_TRY_ASSIGN(std::uint32_t signature, peek_signature());
    if (signature != kCentralSignature) break;
    CUDAENV_TRY(read_central_entry(by_offset, listed, executable));
    ++entries;
  }
  for (size_t i = 0; i < members_.size(); ++i) {
    if (!listed[i]) {
      return make_error("member " + shown(members_[i].name) + " (at offset " + std::to_string(members_[i].offset) +
                        ") is not in the central directory, so pip and unzip -l would not show it");
    }
  }
  CUDAENV_TRY(read_end_records(directory_offset, in_.offset() - directory_offset, entries));
  return executable;
}

Status ZipReader::read_central_entry(const std::map<std::uint64_t, size_t>& by_offset, std::vector<bool>& listed,
                                     std::vector<bool>& executable) {
  CUDAENV_TRY_ASSIGN(auto header, take(46, "the central directory"));
  std::uint16_t flags = u16(header.data() + 8), method = u16(header.data() + 10);
  std::uint32_t crc = u32(header.data() + 16), compressed32 = u32(header.data() + 20), size32 = u32(header.data() + 24);
  std::uint16_t name_length = u16(header.data() + 28), extra_length = u16(header.data() + 30);
  std::uint16_t comment_length = u16(header.data() + 32), disk = u16(header.data() + 34);
  std::uint32_t external = u32(header.data() + 38), offset32 = u32(header.data() + 42);
  CUDAENV_TRY_ASSIGN(auto name_bytes, take(name_length, "the central directory"));
  std::string name(name_bytes.begin(), name_bytes.end());
  CUDAENV_TRY_ASSIGN(auto extra_bytes, take(extra_length, "the central directory"));
  auto extra = read_extra(extra_bytes, false, size32, compressed32, offset32);
  if (!extra) return make_error("the central directory entry of " + shown(name) + " " + extra.error().message);
  CUDAENV_TRY(take(comment_length, "the central directory"));
  auto wide = [&](std::uint32_t narrow, std::uint64_t zip64) { return narrow == kUnknown32 && extra->present ? zip64 : narrow; };
  std::uint64_t offset = wide(offset32, extra->offset);
  if (disk != 0) return make_error("is split over several disks, which no wheel is");
  auto found = by_offset.find(offset);
  if (found == by_offset.end()) {
    return make_error("its central directory lists " + shown(name) + " at offset " + std::to_string(offset) +
                      ", where no member starts: a member that is not in the archive");
  }
  size_t index = found->second;
  const Local& local = members_[index];
  if (listed[index]) return make_error("its central directory lists the member at offset " + std::to_string(offset) + " twice");
  listed[index] = true;
  if (name != local.name) {
    return make_error("its central directory names the member at offset " + std::to_string(offset) + " " + shown(name) +
                      ", but its local header names it " + shown(local.name));
  }
  std::string what = "member " + shown(name) + ": its central directory gives ";
  auto differ = [&](const char* field, std::uint64_t central, std::uint64_t actual) {
    return make_error(what + field + " " + std::to_string(central) + ", its local header and data " + std::to_string(actual));
  };
  if (flags != local.flags) return differ("the flags", flags, local.flags);
  if (method != local.method) return differ("compression method", method, local.method);
  if (crc != local.crc) return differ("CRC-32", crc, local.crc);
  if (wide(compressed32, extra->compressed) != local.compressed)
    return differ("compressed size", wide(compressed32, extra->compressed), local.compressed);
  if (wide(size32, extra->size) != local.size) return differ("size", wide(size32, extra->size), local.size);
  executable[index] = ((external >> 16) & 0111) != 0;
  return ok_status();
}

Status ZipReader::read_end_records(std::uint64_t directory_offset, std::uint64_t directory_size, size_t entries) {
  CUDAENV_TRY_ASSIGN(std::uint32_t signature, peek_signature());
  bool zip64 = signature == kZip64EndSignature;
  Error wrong =
      make_error("has end records that do not describe its central directory (" + std::to_string(entries) + " entries, " +
                 std::to_string(directory_size) + " bytes at offset " + std::to_string(directory_offset) + ")");
  if (zip64) {
    std::uint64_t record_offset = in_.offset();
    CUDAENV_TRY_ASSIGN(auto record, take(56, "its zip64 end record"));
    std::uint64_t record_size = u64(record.data() + 4);
    bool fits = record_size >= 44 && u32(record.data() + 16) == 0 && u32(record.data() + 20) == 0 &&
                u64(record.data() + 24) == entries && u64(record.data() + 32) == entries &&
                u64(record.data() + 40) == directory_size && u64(record.data() + 48) == directory_offset;
    if (!fits) return wrong;
    for (std::uint64_t left = record_size - 44; left > 0;) {  // its extensible data
      size_t piece = static_cast<size_t>(std::min<std::uint64_t>(left, kBufferSize));
      CUDAENV_TRY(take(piece, "its zip64 end record"));
      left -= piece;
    }
    CUDAENV_TRY_ASSIGN(std::uint32_t next, peek_signature());
    if (next != kZip64LocatorSignature) return make_error("has a zip64 end record without its locator");
    CUDAENV_TRY_ASSIGN(auto locator, take(20, "its zip64 end locator"));
    if (u32(locator.data() + 4) != 0 || u64(locator.data() + 8) != record_offset || u32(locator.data() + 16) != 1) return wrong;
    CUDAENV_TRY_ASSIGN(signature, peek_signature());
  }
  if (signature != kEndSignature) return make_error("has data after its central directory where its end record should be");
  CUDAENV_TRY_ASSIGN(auto end, take(22, "its end record"));
  // Each field as it is, or (with a zip64 record) all ones for "see the zip64 record".
  auto matches = [&](std::uint64_t field, std::uint64_t all_ones, std::uint64_t actual) {
    return field == actual || (zip64 && field == all_ones);
  };
  bool fits = matches(u16(end.data() + 4), 0xFFFF, 0) && matches(u16(end.data() + 6), 0xFFFF, 0) &&
              matches(u16(end.data() + 8), 0xFFFF, entries) && matches(u16(end.data() + 10), 0xFFFF, entries) &&
              matches(u32(end.data() + 12), kUnknown32, directory_size) &&
              matches(u32(end.data() + 16), kUnknown32, directory_offset);
  if (!fits) return wrong;
  CUDAENV_TRY(take(u16(end.data() + 20), "its comment"));
  CUDAENV_TRY_ASSIGN(auto rest, in_.fill(1));
  if (!rest.empty()) return make_error("has data after its end record");
  return ok_status();
}

}  // namespace cudaenv
