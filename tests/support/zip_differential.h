#pragma once
// The zip reader's fast path held to its full version. An archive read copied from memory
// (MemorySource: every byte through read) must give the same members, bits and refusal as the
// same archive read the way a wheel's download hands it over (ArrivingFile: the first bytes on
// disk from an earlier run, the rest in batches the reader inflates in place, and the file taking
// over once it is verified whole). Where each batch ends, how many arrive before each read, and
// when the download is verified are drawn from a seed. Used by zip_differential_test (in CI) and
// fuzz_zip (libFuzzer).

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "install/arriving_file.h"
#include "install/byte_source.h"
#include "install/zip_reader.h"

namespace cudaenv::testing {

struct ZipContents {
  std::vector<std::pair<std::string, std::string>> members;  // name, data
  std::vector<bool> executable;
  bool operator==(const ZipContents&) const = default;
};

// Every member read as the extractor reads it, then the central directory. Member data past
// `most` bytes in all ends the read, as a refusal: a bomb is the disk's to stop, not the test's.
inline Result<ZipContents> read_zip(ByteSource& source, std::uint64_t most = 64u << 20) {
  ZipReader reader(source);
  ZipContents contents;
  std::uint64_t produced = 0;
  while (true) {
    CUDAENV_TRY_ASSIGN(auto member, reader.next());
    if (!member) break;
    std::string data;
    while (true) {
      CUDAENV_TRY_ASSIGN(auto piece, reader.read_data());
      if (piece.empty()) break;
      if ((produced += piece.size()) > most) return make_error("more member data than the test reads");
      data.append(reinterpret_cast<const char*>(piece.data()), piece.size());
    }
    contents.members.emplace_back(member->name, std::move(data));
  }
  CUDAENV_TRY_ASSIGN(contents.executable, reader.finish());
  return contents;
}

// An archive arriving in one thread as the downloader hands it over: before each read or lend,
// the batches the seed says came meanwhile arrive; where the reader would wait, one does, or the
// download is verified, so nothing blocks.
class SimulatedDownload : public ByteSource {
 public:
  // `part` holds the whole archive, as the .part file would once the download is verified.
  SimulatedDownload(std::string_view archive, std::uint64_t seed, const std::filesystem::path& part) : draw_(seed), part_(part) {
    // Batches of a few bytes end inside headers and deflate streams; the downloader's are up to
    // 256 KiB.
    constexpr size_t kLargestBatches[] = {8, 24, 512, 4096, 256 << 10};
    largest_batch_ = kLargestBatches[draw_() % std::size(kLargestBatches)];
    std::uint64_t present = draw_() % 4 == 0 ? draw_() % (archive.size() + 1) : 0;
    file_.begin(part, present);
    rest_ = archive.substr(present);
  }
  Result<size_t> read(std::span<std::uint8_t> out) override {
    keep_up();
    return file_.read(out);
  }
  std::span<const std::uint8_t> lend() override {
    keep_up();
    return file_.lend();
  }
  void give_back(size_t count) override { file_.give_back(count); }

 private:
  void keep_up() {
    if (verified_) return;
    auto batches = draw_() % 3;
    if (batches == 0 && file_.backlog() == 0) batches = 1;
    for (; batches > 0 && !rest_.empty(); --batches) {
      size_t size = std::min<size_t>(rest_.size(), 1 + draw_() % largest_batch_);
      std::vector<char> batch = file_.spare();
      batch.assign(rest_.begin(), rest_.begin() + static_cast<std::ptrdiff_t>(size));
      file_.arrived(std::move(batch));
      rest_.remove_prefix(size);
    }
    if (rest_.empty() && (file_.backlog() == 0 || draw_() % 4 == 0)) {
      // At random the bytes not read yet then come from the whole file, as after the rename.
      file_.verified(draw_() % 2 ? part_ : std::filesystem::path{});
      verified_ = true;
    }
  }

  ArrivingFile file_;
  std::string_view rest_;
  std::mt19937_64 draw_;
  std::filesystem::path part_;
  size_t largest_batch_ = 0;
  bool verified_ = false;
};

// The archive read copied and read as it downloads (`part` is a scratch file): whether the copy
// was read or refused, and what differs, if anything, to the byte and the message.
struct ZipComparison {
  bool refused = false;
  std::optional<std::string> difference;
};

inline ZipComparison compare_lent_with_copied(std::string_view archive, std::uint64_t seed, const std::filesystem::path& part) {
  MemorySource memory({reinterpret_cast<const std::uint8_t*>(archive.data()), archive.size()});
  auto copied = read_zip(memory);
  std::ofstream(part, std::ios::binary | std::ios::trunc).write(archive.data(), static_cast<std::streamsize>(archive.size()));
  SimulatedDownload download(archive, seed, part);
  auto lent = read_zip(download);
  ZipComparison comparison{.refused = !copied};
  if (copied && lent) {
    if (copied->members != lent->members) comparison.difference = "the members differ";
    else if (copied->executable != lent->executable) comparison.difference = "the executable bits differ";
  } else if (bool(copied) != bool(lent) || copied.error().message != lent.error().message) {
    comparison.difference = "copied: " + (copied ? std::string("read") : copied.error().message) +
                            "; as it downloads: " + (lent ? std::string("read") : lent.error().message);
  }
  return comparison;
}

}  // namespace cudaenv::testing
