#pragma once
// Modulefiles for clusters: Lmod (Lua) or Environment Modules (Tcl), setting exactly the
// environment of a selected toolkit (docs/design.md), named cuda/<version> like site modules.

#include <string>

#include "core/toolkits.h"
#include "util/result.h"

namespace cudaenv {

enum class ModuleFormat { lmod, tcl };

// The text of the modulefile; a path Tcl or Lua cannot quote safely is an error.
Result<std::string> render_modulefile(const Toolkit& toolkit, ModuleFormat format, const std::string& generator);

// "cuda/12.1.1.lua" for Lmod, "cuda/12.1.1" for Tcl: the path under a module folder.
std::string modulefile_name(const Toolkit& toolkit, ModuleFormat format);

}  // namespace cudaenv
