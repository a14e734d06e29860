#pragma once
// The package index pip would use, so `install --source pypi` follows a site's proxy (Artifactory,
// Nexus, devpi) without being told twice: PIP_INDEX_URL, else pip's configuration files (read
// through a FileSystemView, so tested on an in-memory one).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/setting.h"
#include "util/environment.h"
#include "util/file_system.h"

namespace cudaenv {

// pip's files in the order pip loads them, each overriding the ones before (pip 23's
// configuration.py, checked with `pip config debug`): the XDG global files and /etc/pip.conf;
// ~/.pip/pip.conf and $XDG_CONFIG_HOME/pip/pip.conf unless PIP_CONFIG_FILE names a file that
// exists; $VIRTUAL_ENV/pip.conf; $PIP_CONFIG_FILE. None when PIP_CONFIG_FILE is /dev/null.
std::vector<std::filesystem::path> pip_config_files(const EnvMap& env, const FileSystemView& fs);

// What pip would use as index: PIP_INDEX_URL (an environment setting), else the last file
// that sets index-url (a file setting: where is that file).
std::optional<Setting> pip_index_url(const EnvMap& env, const FileSystemView& fs);

// `index-url` of one file: [install] over [global] (a command's section overrides [global]);
// pip also accepts index_url.
std::optional<std::string> pip_config_index_url(std::string_view text);

}  // namespace cudaenv
