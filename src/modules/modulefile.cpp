#include "modules/modulefile.h"

#include "core/toolkit_env.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// Lua long brackets take any text without escapes, as long as it has no "]==]".
std::string lua_string(const std::string& text) { return "[==[" + text + "]==]"; }

// Tcl braces take any text except unbalanced braces and backslashes, which we refuse.
std::string tcl_string(const std::string& text) { return "{" + text + "}"; }

bool quotable(const std::string& text, ModuleFormat format) {
  if (text.find('\n') != std::string::npos) return false;
  if (format == ModuleFormat::lmod) return text.find("]==]") == std::string::npos;
  return text.find_first_of("{}\\") == std::string::npos;
}

std::string lmod_body(const Toolkit& toolkit, const EnvChange& change, const std::string& generator) {
  std::string out = "-- cuda/" + toolkit.name + ": " + generator + "\n";
  out += "whatis(" + lua_string("Name: CUDA toolkit") + ")\n";
  out += "whatis(" + lua_string("Version: " + toolkit.name) + ")\n";
  out += "help(" + lua_string("CUDA toolkit " + toolkit.name + " in " + toolkit.home.string() + ", managed by cudaenv.") + ")\n";
  // family() makes Lmod swap between CUDA modules of any name; conflict() keeps Tcl
  // Environment Modules (and Lmod sites that disable autoswap) from loading two.
  out += "family(\"cuda\")\nconflict(\"cuda\")\n";
  for (const auto& [name, entry] : change.prepend) out += "prepend_path(\"" + name + "\", " + lua_string(entry) + ")\n";
  for (const auto& [name, value] : change.set) out += "setenv(\"" + name + "\", " + lua_string(value) + ")\n";
  return out;
}

std::string tcl_body(const Toolkit& toolkit, const EnvChange& change, const std::string& generator) {
  std::string out = "#%Module1.0\n## cuda/" + toolkit.name + ": " + generator + "\n";
  out += "module-whatis " + tcl_string("CUDA toolkit " + toolkit.name) + "\n";
  out += "proc ModulesHelp {} { puts stderr " + tcl_string("CUDA toolkit " + toolkit.name + " in " + toolkit.home.string()) + " }\n";
  out += "conflict cuda\n";
  for (const auto& [name, entry] : change.prepend) out += "prepend-path " + name + " " + tcl_string(entry) + "\n";
  for (const auto& [name, value] : change.set) out += "setenv " + name + " " + tcl_string(value) + "\n";
  return out;
}

}  // namespace

Result<std::string> render_modulefile(const Toolkit& toolkit, ModuleFormat format, const std::string& generator) {
  EnvChange change = toolkit_env_change(toolkit, {});
  for (const auto& [name, value] : change.set) {
    if (!quotable(value, format)) {
      return make_error("the path " + toolkit.home.string() + " of CUDA " + toolkit.name +
                            " cannot be written into a modulefile (it holds braces, backslashes or a newline)",
                        "install or register the toolkit under a plainer path");
    }
  }
  return format == ModuleFormat::lmod ? lmod_body(toolkit, change, generator) : tcl_body(toolkit, change, generator);
}

std::string modulefile_name(const Toolkit& toolkit, ModuleFormat format) {
  return "cuda/" + toolkit.name + (format == ModuleFormat::lmod ? ".lua" : "");
}

}  // namespace cudaenv
