#pragma once
// What cudaenv knows about NVIDIA's releases and component profiles: the data in
// manifests/redist-releases.toml and manifests/redist-profiles.toml, parsed without I/O.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data_dir.h"
#include "core/version.h"
#include "util/result.h"

namespace cudaenv {

struct Release {
  std::string label;  // "12.1.1"
  Version version;
  std::optional<std::string> date;    // "2023-04-19"
  std::optional<std::string> sha256;  // pinned hash of redistrib_<label>.json
};

struct ReleaseCatalog {
  std::string default_base;       // NVIDIA's redist folder URL, ending in '/'
  std::vector<Release> releases;  // newest first
  // What a folder listing may show but is never offered: labels below `oldest` (stubs) and
  // those in `not_offered` (previews).
  std::optional<Version> oldest;
  std::vector<std::string> not_offered;

  const Release* find(std::string_view label) const;
  bool offered(const std::string& label) const;
  // The newest release a request is a prefix of ("12.1" -> 12.1.1). A full x.y.z that is not
  // listed is passed through, for mirrors that carry newer releases than this list.
  Result<std::string> resolve(std::string_view request) const;
};

struct ProfileCatalog {
  std::string default_profile;
  // major -> profile -> entries: component keys or role names
  std::map<int, std::map<std::string, std::vector<std::string>>> by_major;
  // role -> the component keys that fill it across releases ("cccl" -> cuda_cccl, cccl)
  std::map<std::string, std::vector<std::string>> roles;
  std::vector<std::string> full_exclude;  // patterns; a trailing '*' matches any suffix

  bool excluded_from_full(std::string_view component) const;
  // The component keys a profile entry or --component name can stand for: a role's keys when
  // it names a role or one of its keys, else the name itself.
  std::vector<std::string> alternatives(const std::string& name) const;
  // Profile names offered for a major, "full" included.
  std::vector<std::string> names(int major) const;
};

Result<ReleaseCatalog> parse_release_catalog(std::string_view text, const std::filesystem::path& path);
Result<ProfileCatalog> parse_profile_catalog(std::string_view text, const std::filesystem::path& path);

Result<ReleaseCatalog> load_release_catalog(const DataFiles& data);
Result<ProfileCatalog> load_profile_catalog(const DataFiles& data);
// manifests/cudnn-releases.toml: cuDNN's redist releases, in the same format.
Result<ReleaseCatalog> load_cudnn_catalog(const DataFiles& data);

}  // namespace cudaenv
