// The differential fuzz test that CI runs briefly: the fuzz corpus's wheels, damaged at random,
// read as a download hands them over (the fast path: batches lent in place) and copied from
// memory (the full version) must agree (support/zip_differential.h). fuzz_zip runs the same
// comparison under libFuzzer for as long as one likes (bench/fuzz.sh).
//   CUDAENV_FUZZ_RUNS (default 2000) and CUDAENV_FUZZ_SEED (default: random, printed on failure)
//   widen or repeat a run.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "support/zip_differential.h"

using namespace cudaenv;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> archives;
  for (const auto& entry : fs::directory_iterator(fs::path(CUDAENV_SOURCE_DIR) / "tests/fuzz/corpus/zip")) {
    std::ifstream in(entry.path(), std::ios::binary);
    archives.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return archives;
}

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value ? std::strtoull(value, nullptr, 10) : fallback;
}

// The damage a hostile index or a cut transfer does: bits flipped, bytes set, cut, dropped,
// repeated or inserted, and fields moved to where another was.
void damage(std::string& archive, std::mt19937_64& draw) {
  auto at = [&](size_t size) { return size == 0 ? 0 : draw() % size; };
  size_t where = at(archive.size() + 1);
  size_t length = 1 + draw() % 64;
  switch (draw() % 7) {
    case 0:
      if (!archive.empty()) archive[at(archive.size())] ^= static_cast<char>(1 << (draw() % 8));
      break;
    case 1:
      if (!archive.empty()) archive[at(archive.size())] = static_cast<char>(draw() % 3 == 0 ? 0xFF : draw());
      break;
    case 2: archive.resize(where); break;
    case 3: archive.erase(where, length); break;
    case 4: archive.insert(where, archive.substr(at(archive.size()), length)); break;
    case 5:
      for (size_t i = 0; i < length; ++i)
        archive.insert(archive.begin() + static_cast<std::ptrdiff_t>(where), static_cast<char>(draw()));
      break;
    default:
      if (archive.size() >= 8) archive.replace(at(archive.size() - 4), 4, archive.substr(at(archive.size() - 4), 4));
  }
}

}  // namespace

TEST_CASE("zip differential: a wheel read as it downloads reads as its copy does, damaged at random") {
  auto archives = corpus();
  REQUIRE(archives.size() >= 8);
  std::uint64_t seed = env_or("CUDAENV_FUZZ_SEED", std::random_device{}());
  std::uint64_t runs = env_or("CUDAENV_FUZZ_RUNS", 2000);
  INFO("repeat with CUDAENV_FUZZ_SEED=" << seed);
  std::mt19937_64 draw(seed);
  fs::path part = fs::temp_directory_path() / ("cudaenv-zip-differential-" + std::to_string(::getpid()) + ".part");
  std::uint64_t refused = 0;
  for (std::uint64_t run = 0; run < runs; ++run) {
    std::string archive = archives[draw() % archives.size()];
    for (auto count = draw() % 4; count > 0; --count) damage(archive, draw);
    auto comparison = testing::compare_lent_with_copied(archive, draw(), part);
    if (comparison.difference) FAIL("run " << run << ": " << *comparison.difference);
    refused += comparison.refused;
  }
  fs::remove(part);
  // Both ways through the reader ran often: archives read to their end, and refusals.
  CHECK(refused > runs / 20);
  CHECK(runs - refused > runs / 20);
}
