#include "core/data_dir.h"

#include <unistd.h>

#include <vector>

#include "core/settings_table.h"
#include "util/file_system.h"

namespace cudaenv {

namespace fs = std::filesystem;

Result<fs::path> running_program() {
  auto self = RealFileSystem().read_link("/proc/self/exe");
  if (!self) {
    return make_error("cannot find the running cudaenv program through /proc/self/exe", "is /proc mounted?");
  }
  return *self;
}

namespace {

// PREFIX for PREFIX/bin/cudaenv and for PREFIX/libexec/cudaenv/cudaenv-fetch alike.
fs::path install_prefix(const fs::path& self) {
  fs::path dir = self.parent_path();
  if (dir.filename() == "cudaenv" && dir.parent_path().filename() == "libexec") return dir.parent_path().parent_path();
  return dir.parent_path();
}

}  // namespace

static Result<fs::path> manifests_dir(const EnvMap& env) {
  if (Setting dir = env_setting(kManifestsDirSetting, env); !dir.value.empty()) return fs::path(dir.value);
  std::vector<fs::path> candidates;
  if (auto self = running_program()) candidates.push_back(install_prefix(*self) / "share/cudaenv/manifests");
  candidates.push_back(CUDAENV_SOURCE_MANIFESTS_DIR);
  std::error_code ec;
  for (const fs::path& candidate : candidates) {
    if (fs::is_directory(candidate, ec)) return candidate;
  }
  return make_error("cudaenv's data folder was not found (looked in " + candidates.front().string() + ")",
                    "reinstall cudaenv with ./install.sh, or set CUDAENV_MANIFESTS_DIR");
}

DataFiles DataFiles::find(const EnvMap& env) {
  DataFiles files;
  files.dir_ = manifests_dir(env);
  return files;
}

Result<DataFile> DataFiles::read(const std::string& name) const {
  if (!dir_) return dir_.error();
  fs::path path = *dir_ / name;
  auto text = RealFileSystem().read_file(path, kLargeFileLimit);
  if (!text) return make_error(text.error().message, "reinstall cudaenv, or set CUDAENV_MANIFESTS_DIR");
  return DataFile{path, std::move(*text)};
}

Result<fs::path> user_program() {
  CUDAENV_TRY_ASSIGN(auto self, running_program());
  if (self.filename() != "cudaenv-fetch") return self;
  for (const fs::path& candidate : {self.parent_path() / "cudaenv", install_prefix(self) / "bin/cudaenv"}) {
    if (candidate != self && RealFileSystem().is_executable(candidate)) return candidate;
  }
  return self;
}

Result<fs::path> locate_program(const std::string& name) {
  CUDAENV_TRY_ASSIGN(auto self, running_program());
  fs::path libexec = install_prefix(self) / "libexec/cudaenv";
  for (const fs::path& candidate : {self.parent_path() / name, libexec / name}) {
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return make_error(name + " was not found beside " + self.string() + " or in " + libexec.string(),
                    "reinstall cudaenv (./install.sh) so its programs are installed together");
}

}  // namespace cudaenv
