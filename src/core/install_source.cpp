#include "core/install_source.h"

namespace cudaenv {

std::string_view source_name(InstallSource source) { return source == InstallSource::pypi ? "pypi" : "redist"; }

std::optional<InstallSource> parse_install_source(std::string_view text) {
  if (text == "redist") return InstallSource::redist;
  if (text == "pypi") return InstallSource::pypi;
  return std::nullopt;
}

}  // namespace cudaenv
