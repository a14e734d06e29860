#include "shell/trust.h"

#include "util/file_system.h"
#include "util/sha256.h"

namespace cudaenv {

namespace {

struct Contents {
  fs::path real_path;
  std::string text;
};

Result<Contents> read_contents(const fs::path& file) {
  std::error_code ec;
  fs::path real = fs::canonical(file, ec);
  if (ec) return make_error("cannot find " + file.string() + ": " + ec.message(), "give the path of a cuda.toml");
  CUDAENV_TRY_ASSIGN(auto text, RealFileSystem().read_file(real));
  return Contents{real, std::move(text)};
}

std::string first_line_of(const fs::path& file) {
  auto text = RealFileSystem().read_file(file);
  return text ? text->substr(0, text->find('\n')) : std::string();
}

}  // namespace

std::string trust_key(const fs::path& real_path, std::string_view contents) {
  Sha256 hash;
  std::string prefix = real_path.string() + "\n";
  hash.update(prefix.data(), prefix.size());
  hash.update(contents.data(), contents.size());
  return hash.finish();
}

bool TrustStore::is_trusted(const CudaToml& project) const { return is_trusted(project.path, project.text); }

bool TrustStore::is_trusted(const fs::path& file, std::string_view contents) const {
  std::error_code ec;
  fs::path real = fs::canonical(file, ec);
  return !ec && fs::is_regular_file(dir_ / trust_key(real, contents), ec);
}

Result<fs::path> TrustStore::trust(const fs::path& file) const {
  CUDAENV_TRY_ASSIGN(auto contents, read_contents(file));
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return make_error("cannot create " + dir_.string() + ": " + ec.message(), "check CUDAENV_ROOT's permissions");
  CUDAENV_TRY(write_file_atomically(dir_ / trust_key(contents.real_path, contents.text), contents.real_path.string() + "\n"));
  return contents.real_path;
}

Result<int> TrustStore::untrust(const fs::path& file) const {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(file, ec);
  if (ec) return make_error("cannot resolve " + file.string() + ": " + ec.message());
  int removed = 0;
  for (const fs::directory_entry& record : fs::directory_iterator(dir_, ec)) {
    if (first_line_of(record.path()) != real.string()) continue;
    if (fs::remove(record.path(), ec)) ++removed;
    if (ec) return make_error("cannot remove " + record.path().string() + ": " + ec.message(), "check its permissions");
  }
  return removed;
}

}  // namespace cudaenv
