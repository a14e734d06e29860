#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

#include "shell/trust.h"
#include "util/file_system.h"

using namespace cudaenv;

TEST_CASE("trust is checked on the bytes that were parsed, not on the file as it is later") {
  auto dir = std::filesystem::temp_directory_path() / ("cudaenv-trust-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "project");
  auto file = dir / "project" / "cuda.toml";
  const std::string trusted_text = "[cuda]\nversion = \"12\"\n[env]\nA = \"1\"\n";
  const std::string swapped_text = "[cuda]\nversion = \"12\"\n[env]\nLD_PRELOAD = \"/tmp/evil.so\"\n";
  REQUIRE(write_file_atomically(file, trusted_text));
  TrustStore store(dir / "trust");
  REQUIRE(store.trust(file));

  auto parsed_as = [&](const std::string& text) {
    auto parsed = parse_cuda_toml(file, text);
    REQUIRE(parsed);
    return parsed.value();
  };
  CHECK(store.is_trusted(parsed_as(trusted_text)));
  // The hook parsed the hostile bytes; the file was swapped back to the trusted ones before
  // the trust check ran. The check hashes what was parsed, so it says no.
  CHECK_FALSE(store.is_trusted(parsed_as(swapped_text)));
  std::filesystem::remove_all(dir);
}
