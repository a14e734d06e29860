#pragma once
// The package index pip would use, so `install --source pypi` follows a site's proxy (Artifactory,
// Nexus, devpi) without being told twice: PIP_INDEX_URL, else pip's configuration files (pure:
// the caller reads the files).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/environment.h"

namespace cudaenv {

// pip's files in the order pip loads them, each overriding the ones before (pip's
// "Configuration" documentation: global, user, site, then PIP_CONFIG_FILE): the XDG global
// files and /etc/pip.conf, ~/.pip/pip.conf and $XDG_CONFIG_HOME/pip/pip.conf, $VIRTUAL_ENV/pip.conf,
// $PIP_CONFIG_FILE. None when PIP_CONFIG_FILE is /dev/null (pip's "load no file").
std::vector<std::filesystem::path> pip_config_files(const EnvMap& env);

// `index-url` of one file: [install] over [global] (a command's section overrides [global]);
// pip also accepts index_url.
std::optional<std::string> pip_config_index_url(std::string_view text);

}  // namespace cudaenv
