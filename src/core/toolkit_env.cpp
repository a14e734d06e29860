#include "core/toolkit_env.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "util/json_reader.h"
#include "util/strings.h"

namespace cudaenv {

EnvChange toolkit_env_change(const Toolkit& toolkit, const std::vector<std::string>& arch) {
  EnvChange change;
  if (toolkit.source != ToolkitSource::system) {
    std::string home = toolkit.home.string();
    change.prepend = {{"PATH", home + "/bin"}, {"LD_LIBRARY_PATH", home + "/lib64"}};
    change.set = {{"CUDA_HOME", home}, {"CUDA_PATH", home}, {"CUDAToolkit_ROOT", home}, {"CUDACXX", home + "/bin/nvcc"}};
  }
  if (!arch.empty()) {
    // torch wants "8.9;9.0;8.6+PTX", CMake wants "89;90;86"; CMake has no +PTX spelling
    // that keeps its default of real and virtual code, so the suffix is dropped there.
    std::vector<std::string> cmake_archs;
    for (const std::string& entry : arch) {
      std::string digits;
      for (char c : entry.substr(0, entry.find('+'))) {
        if (c != '.') digits += c;
      }
      cmake_archs.push_back(digits);
    }
    change.set.emplace_back("TORCH_CUDA_ARCH_LIST", join(arch, ";"));
    change.set.emplace_back("CUDAARCHS", join(cmake_archs, ";"));
  }
  return change;
}

std::optional<CompilerDrivers> compiler_drivers(std::string_view compiler) {
  size_t slash = compiler.rfind('/');
  std::string folder(compiler.substr(0, slash == std::string_view::npos ? 0 : slash + 1));
  std::string name(compiler.substr(folder.size()));
  // The C++ spelling first: "clang++" holds "clang", "g++" is no "gcc".
  static const std::pair<const char*, const char*> kPairs[] = {{"clang", "clang++"}, {"gcc", "g++"}};
  for (const auto& [c, cxx] : kPairs) {
    for (bool is_cxx : {true, false}) {
      std::string_view word = is_cxx ? cxx : c;
      size_t at = name.rfind(word);
      if (at == std::string::npos) continue;
      std::string before = name.substr(0, at), after = name.substr(at + word.size());
      return CompilerDrivers{folder + before + c + after, folder + before + cxx + after};
    }
  }
  if (name == "cc" || name == "c++") return CompilerDrivers{folder + "cc", folder + "c++"};
  return std::nullopt;
}

EnvChange selection_env_change(const Selection& selection, const SelectionExtras& extras) {
  static const std::vector<std::string> none;
  const std::optional<CudaToml>& project = selection.project;
  EnvChange change = toolkit_env_change(selection.toolkit, project ? project->arch : none);
  if (project && project->host_compiler) {
    // nvcc links with its host compiler, so it gets the C++ driver: with gcc, a .cu file that
    // uses the C++ library links without libstdc++ (docs/host-compiler.md).
    auto drivers = compiler_drivers(*project->host_compiler);
    std::string c = drivers ? drivers->c : *project->host_compiler, cxx = drivers ? drivers->cxx : c;
    change.set.insert(change.set.end(), {{"NVCC_CCBIN", cxx}, {"CUDAHOSTCXX", cxx}, {"CC", c}, {"CXX", cxx}});
  }
  if (extras.uv_torch_backend) change.set.emplace_back("UV_TORCH_BACKEND", *extras.uv_torch_backend);
  change.set.insert(change.set.end(), extras.target_variables.begin(), extras.target_variables.end());
  return change;
}

std::string prepend_entry(const std::string& list, const std::string& entry) {
  std::vector<std::string> kept{entry};
  if (!list.empty()) {
    for (std::string& existing : split(list, ':')) {
      if (existing != entry) kept.push_back(std::move(existing));
    }
  }
  return join(kept, ":");
}

void apply_env_change(const EnvChange& change, EnvMap& env) {
  for (const auto& [name, value] : change.set) env[name] = value;
  for (const auto& [name, entry] : change.prepend) env[name] = prepend_entry(env[name], entry);
}

std::vector<std::pair<std::string, std::string>> changed_values(const EnvChange& change, const EnvMap& env) {
  EnvMap after = env;
  apply_env_change(change, after);
  std::vector<std::pair<std::string, std::string>> values;
  auto add = [&](const std::string& name) {
    bool seen = std::any_of(values.begin(), values.end(), [&](const auto& v) { return v.first == name; });
    if (!seen) values.emplace_back(name, after[name]);
  };
  for (const auto& entry : change.prepend) add(entry.first);
  for (const auto& entry : change.set) add(entry.first);
  return values;
}

static bool is_path_list(const std::string& name) {
  return name.size() >= 4 && name.compare(name.size() - 4, 4, "PATH") == 0 && name != "CUDA_PATH";
}

std::string render_exports(const std::vector<std::pair<std::string, std::string>>& values, ShellDialect dialect) {
  std::string out;
  if (dialect == ShellDialect::json) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    for (const auto& [name, value] : values) object[name] = value;
    return json_text(object);
  }
  for (const auto& [name, value] : values) {
    if (dialect == ShellDialect::posix) {
      out += "export " + name + "=" + posix_quote(value) + ";\n";
      continue;
    }
    // fish keeps *PATH variables as lists and joins them with ':' when exporting.
    out += "set -gx " + name;
    if (is_path_list(name)) {
      for (const std::string& entry : split(value, ':')) out += " " + fish_quote(entry);
    } else {
      out += " " + fish_quote(value);
    }
    out += ";\n";
  }
  return out;
}

}  // namespace cudaenv
