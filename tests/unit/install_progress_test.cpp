#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "install/progress.h"

using namespace cudaenv;

namespace {

std::string read_back(std::FILE* file) {
  std::rewind(file);
  std::string text;
  char buffer[512];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, file)) text.append(buffer, n);
  return text;
}

}  // namespace

TEST_CASE("progress without a terminal: one plain line per event, no escape codes") {
  std::FILE* out = std::tmpfile();
  REQUIRE(out);
  {
    ProgressReporter progress(out, false);
    progress.begin({"cuda_nvcc", "cuda_cccl"}, {44459684, 1024940});
    progress.download_started(0, "http://m/cuda_nvcc.tar.xz", 0);
    progress.download_progress(0, 1000);
    progress.retrying(0, "HTTP 503", 2, 3, std::chrono::milliseconds(500));
    progress.download_started(0, "http://m/cuda_nvcc.tar.xz", 1000);
    progress.verified(0, false);
    progress.verified(1, true);
    progress.extracting(0);
    progress.extracted(0);
  }
  std::string text = read_back(out);
  std::fclose(out);
  CHECK(text.find('\033') == std::string::npos);
  CHECK(text.find("downloading cuda_nvcc (44.5 MB) from http://m/cuda_nvcc.tar.xz\n") != std::string::npos);
  CHECK(text.find("cuda_nvcc: HTTP 503; try 2 of 3 in 500 ms\n") != std::string::npos);
  CHECK(text.find("resuming at 1.0 kB") != std::string::npos);
  CHECK(text.find("downloaded cuda_nvcc (44.5 MB in ") != std::string::npos);
  CHECK(text.find("using cached cuda_cccl (1.0 MB, sha256 verified)\n") != std::string::npos);
  CHECK(text.find("extracted cuda_nvcc\n") != std::string::npos);
}

TEST_CASE("progress on a terminal: bars per component and a total line") {
  std::FILE* out = std::tmpfile();
  REQUIRE(out);
  {
    ProgressReporter progress(out, true);
    progress.begin({"cuda_nvcc"}, {2000000});
    progress.download_started(0, "http://m/x", 0);
    progress.verified(0, false);
  }
  std::string text = read_back(out);
  std::fclose(out);
  CHECK(text.find("cuda_nvcc            [########################]    2.0 MB / 2.0 MB") != std::string::npos);
  CHECK(text.find("total") != std::string::npos);
  CHECK(text.find("\033[2A") != std::string::npos);  // redrawn in place
}

TEST_CASE("human-readable byte counts") {
  CHECK(human_bytes(12) == "12 B");
  CHECK(human_bytes(980000) == "980.0 kB");
  CHECK(human_bytes(44459684) == "44.5 MB");
}
