#pragma once
// tests/support/test_mirror (the loopback HTTP server of the install tests) run for one unit test:
// it serves `root`, with the faults of `faults` (see test_mirror.cpp), until destroyed; `log`, where
// given, gets a line per request (test_mirror's --log).

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace cudaenv::testing {

class LoopbackMirror {
 public:
  LoopbackMirror(const std::filesystem::path& root, const std::filesystem::path& faults, const std::filesystem::path& log = {});
  ~LoopbackMirror();
  LoopbackMirror(const LoopbackMirror&) = delete;
  LoopbackMirror& operator=(const LoopbackMirror&) = delete;

  // "http://127.0.0.1:PORT/", or empty where the server did not start.
  const std::string& url() const { return url_; }

 private:
  pid_t pid_ = -1;
  std::string url_;
};

}  // namespace cudaenv::testing
