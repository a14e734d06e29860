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
  CHECK(text.find("cuda_nvcc [############]    2.0 MB / 2.0 MB") != std::string::npos);
  CHECK(text.find("total") != std::string::npos);
  CHECK(text.find("\033[2A\r\033[J") != std::string::npos);  // redrawn in place, the old rows cleared
}

TEST_CASE("progress: each version of a multi-version run keeps its bars, titled") {
  std::FILE* out = std::tmpfile();
  REQUIRE(out);
  {
    ProgressReporter progress(out, true);
    progress.begin({"cuda_nvcc"}, {2000000}, "CUDA 12.4.1");
    progress.verified(0, false);
    progress.end();
    progress.begin({"cuda_cccl"}, {1000}, "CUDA 12.1.1");
    progress.download_started(0, "http://m/y", 400);
    progress.verified(0, false);
    progress.end();
  }
  std::string text = read_back(out);
  std::fclose(out);
  CHECK(text.find("CUDA 12.4.1 [") != std::string::npos);
  CHECK(text.find("CUDA 12.1.1 [") != std::string::npos);
  // The second run never moves above its own two rows, so the first run's stay on screen.
  CHECK(text.find("\033[4A") == std::string::npos);
  CHECK(text.find("600 B fetched") != std::string::npos);  // after a resume, what this run fetched
}

TEST_CASE("progress rows fit the terminal: parts go, least useful first, labels keep whole words") {
  ProgressRow row{"cuda_nvcc", 12000000, 44459684, 2500000, "downloading"};
  for (size_t width : {200u, 120u, 100u, 80u, 60u, 40u, 30u, 20u, 12u}) {
    INFO(width);
    std::string text = layout_progress_row(row, 12, width);
    CHECK(text.size() < width);
    CHECK_THAT(text, Catch::EndsWith("downloading"));
  }
  CHECK(layout_progress_row(row, 12, 200) ==
        "cuda_nvcc    [######------------------]   12.0 MB / 44.5 MB      2.5 MB/s ETA 00:13   downloading");
  CHECK(layout_progress_row(row, 12, 80) == "cuda_nvcc    [#-----]   12.0 MB / 44.5 MB      2.5 MB/s ETA 00:13   downloading");
  CHECK(layout_progress_row(row, 12, 60) == "cuda_nvcc    [##--------]   12.0 MB / 44.5 MB   downloading");
  CHECK(layout_progress_row(row, 12, 40) == "cuda_nvcc    [###---------] downloading");
  CHECK(layout_progress_row(row, 12, 20) == "cuda..  downloading");
  CHECK(fit_label("cuda_sanitizer_api", 18) == "cuda_sanitizer_api");
  CHECK(fit_label("cuda_sanitizer_api", 16) == "cuda_sanitizer..");
  CHECK(fit_label("cuda_sanitizer_api", 12) == "cuda..");
  CHECK(fit_label("cuda_nvcc (linux-x86_64)", 20) == "cuda_nvcc (linux..");
  CHECK(fit_label("libnvjitlink", 8) == "libnvj..");
}

TEST_CASE("human-readable byte counts") {
  CHECK(human_bytes(12) == "12 B");
  CHECK(human_bytes(980000) == "980.0 kB");
  CHECK(human_bytes(44459684) == "44.5 MB");
}
