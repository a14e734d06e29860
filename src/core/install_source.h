#pragma once
// Where `install` fetches a toolkit from: NVIDIA's redist archives (or a mirror of them), or
// NVIDIA's CUDA wheels on a package index. Written as "redist" and "pypi" by cuda.toml, --source,
// CUDAENV_SOURCE, cuda.lock and the install receipt.

#include <optional>
#include <string_view>

namespace cudaenv {

enum class InstallSource { redist, pypi };

std::string_view source_name(InstallSource source);
// nullopt for any other text.
std::optional<InstallSource> parse_install_source(std::string_view text);

}  // namespace cudaenv
