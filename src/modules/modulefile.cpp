#include "modules/modulefile.h"

#include <algorithm>

#include "core/toolkit_env.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// A Lua long bracket of `level` '=' signs takes any text without escapes, as long as the
// text cannot close it early: no "]=...=]" of that level inside, and none formed with the
// closing bracket (text ending in "]=="). Control characters are refused before this: Lua
// would turn a carriage return into "\n".
bool closes_safely(const std::string& text, size_t level) {
  std::string closer = "]" + std::string(level, '=') + "]";
  return (text + closer).find(closer) == text.size();
}

// The least level from two up that every string of the file can use.
size_t long_bracket_level(const std::vector<std::string>& texts) {
  size_t level = 2;
  while (!std::all_of(texts.begin(), texts.end(), [&](const std::string& t) { return closes_safely(t, level); })) ++level;
  return level;
}

std::string lua_string(const std::string& text, size_t level) {
  std::string equals(level, '=');
  return "[" + equals + "[" + text + "]" + equals + "]";
}

// Tcl braces take any text except unbalanced braces and backslashes. Lmod reads a Tcl
// modulefile by running it and printing Lua with each value in double quotes, and older
// Lmods do not escape '"' there (tcl2lua.tcl), so '"' is refused too.
bool tcl_quotable(const std::string& text) { return text.find_first_of("{}\\\"") == std::string::npos; }

std::string tcl_string(const std::string& text) { return "{" + text + "}"; }

bool has_control_character(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// Every string a modulefile quotes: the toolkit's name and path and the values it sets.
std::vector<std::string> quoted_texts(const Toolkit& toolkit, const EnvChange& change) {
  std::vector<std::string> texts{toolkit.home.string(), toolkit.name};
  for (const auto& entry : change.prepend) texts.push_back(entry.second);
  for (const auto& entry : change.set) texts.push_back(entry.second);
  return texts;
}

std::string lmod_body(const Toolkit& toolkit, const EnvChange& change, const std::string& generator) {
  size_t level = long_bracket_level(quoted_texts(toolkit, change));
  auto lua = [level](const std::string& text) { return lua_string(text, level); };
  std::string out = "-- cuda/" + toolkit.name + ": " + generator + "\n";
  out += "whatis(" + lua("Name: CUDA toolkit") + ")\n";
  out += "whatis(" + lua("Version: " + toolkit.name) + ")\n";
  out += "help(" + lua("CUDA toolkit " + toolkit.name + " in " + toolkit.home.string() + ", managed by cudaenv.") + ")\n";
  // family() makes Lmod swap between CUDA modules of any name; conflict() keeps Tcl
  // Environment Modules (and Lmod sites that disable autoswap) from loading two.
  out += "family(\"cuda\")\nconflict(\"cuda\")\n";
  for (const auto& [name, entry] : change.prepend) out += "prepend_path(\"" + name + "\", " + lua(entry) + ")\n";
  for (const auto& [name, value] : change.set) out += "setenv(\"" + name + "\", " + lua(value) + ")\n";
  return out;
}

std::string tcl_body(const Toolkit& toolkit, const EnvChange& change, const std::string& generator) {
  std::string out = "#%Module1.0\n## cuda/" + toolkit.name + ": " + generator + "\n";
  out += "module-whatis " + tcl_string("CUDA toolkit " + toolkit.name) + "\n";
  out +=
      "proc ModulesHelp {} { puts stderr " + tcl_string("CUDA toolkit " + toolkit.name + " in " + toolkit.home.string()) + " }\n";
  out += "conflict cuda\n";
  for (const auto& [name, entry] : change.prepend) out += "prepend-path " + name + " " + tcl_string(entry) + "\n";
  for (const auto& [name, value] : change.set) out += "setenv " + name + " " + tcl_string(value) + "\n";
  return out;
}

}  // namespace

Result<std::string> render_modulefile(const Toolkit& toolkit, ModuleFormat format, const std::string& generator) {
  EnvChange change = toolkit_env_change(toolkit, {});
  std::string home = toolkit.home.string();
  std::vector<std::string> texts = quoted_texts(toolkit, change);
  if (std::any_of(texts.begin(), texts.end(), [format](const std::string& text) {
        return has_control_character(text) || (format == ModuleFormat::tcl && !tcl_quotable(text));
      })) {
    return make_error("the path " + home + " of CUDA " + toolkit.name + " cannot be written into a " +
                          (format == ModuleFormat::tcl ? "Tcl modulefile (it holds braces, a backslash, '\"' or a control "
                                                         "character)"
                                                       : "modulefile (it holds a control character)"),
                      format == ModuleFormat::tcl ? "use the Lua format (--format lmod), or install or register the toolkit "
                                                    "under a plainer path"
                                                  : "install or register the toolkit under a plainer path");
  }
  return format == ModuleFormat::lmod ? lmod_body(toolkit, change, generator) : tcl_body(toolkit, change, generator);
}

std::string modulefile_name(const Toolkit& toolkit, ModuleFormat format) {
  return "cuda/" + toolkit.name + (format == ModuleFormat::lmod ? ".lua" : "");
}

}  // namespace cudaenv
