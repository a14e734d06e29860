#pragma once
// A setting's value and where it came from (a command-line option, an environment variable,
// cuda.toml, a default), so `cudaenv config` can list it and an error can name the place to
// fix: CUDAENV_MIRROR=ftp://x is reported as CUDAENV_MIRROR, not as --mirror.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "util/environment.h"

namespace cudaenv {

// argument: a command-line option or argument; fallback: the default.
enum class OriginKind { argument, environment, project_file, global_file, fallback };

struct Setting {
  std::string value;
  OriginKind kind = OriginKind::fallback;
  // The option ("--mirror"), the variable ("CUDAENV_MIRROR") or the file it was read from.
  std::string where;

  // "--mirror", "CUDAENV_MIRROR", "/p/cuda.toml", "default"
  std::string origin() const;
  // The value as the user wrote it: "--mirror ftp://x", "CUDAENV_MIRROR=ftp://x",
  // "profile = \"x\" in /p/cuda.toml", "the default x".
  std::string as_written(std::string_view toml_key = {}) const;
  // How to give it another value: "--mirror VALUE", "set CUDAENV_MIRROR to VALUE", ...
  std::string how_to_set(std::string_view value, std::string_view toml_key = {}) const;
};

// Where one setting may be given, in the order that decides: the option, the variable, the
// project file's key. An absent name is a place this setting cannot be given.
struct SettingPlaces {
  const char* option = nullptr;
  const char* variable = nullptr;
  const char* toml_key = nullptr;
};

// The first of: the option's value (when given, i.e. not empty), the variable (when set and
// not empty), the cuda.toml value (when the file has it), the default.
Setting pick_setting(const SettingPlaces& places, const std::string& option_value, const EnvMap& env,
                     const std::optional<std::string>& toml_value, const std::filesystem::path& toml_path,
                     std::string default_value);

}  // namespace cudaenv
