#include "core/layout.h"

#include "core/settings_table.h"

namespace cudaenv {

std::vector<fs::path> Layout::version_roots() const {
  std::vector<fs::path> roots{versions_dir()};
  if (shared_root && *shared_root != user_root) roots.push_back(*shared_root / "versions");
  return roots;
}

std::vector<fs::path> Layout::target_dirs() const {
  std::vector<fs::path> dirs{user_root / "targets"};
  if (shared_root && *shared_root != user_root) dirs.push_back(*shared_root / "targets");
  return dirs;
}

static Result<fs::path> absolute_setting(const EnvMap& env, const char* name) {
  fs::path path = *env_get(env, name);
  if (!path.is_absolute()) {
    return make_error(std::string(name) + "='" + path.string() + "' is not an absolute path",
                      std::string("set ") + name + " to an absolute path, e.g. $HOME/.cudaenv");
  }
  // Its shims folder goes on PATH and its toolkits on PATH and LD_LIBRARY_PATH, which split at ':'.
  if (path.string().find_first_of(":\n") != std::string::npos) {
    return make_error(std::string(name) + "='" + path.string() + "' holds ':' or a newline, which would split PATH",
                      std::string("set ") + name + " to a path without them");
  }
  return path.lexically_normal();
}

const char* shared_root_variable(const EnvMap& env) {
  if (env_get(env, kSharedRootSetting.variable)) return kSharedRootSetting.variable;
  if (env_get(env, kSystemRootSetting.variable)) return kSystemRootSetting.variable;
  return nullptr;
}

Result<Layout> layout_from_env(const EnvMap& env) {
  Layout layout;
  if (env_get(env, kRootSetting.variable)) {
    CUDAENV_TRY_ASSIGN(auto root, absolute_setting(env, kRootSetting.variable));
    layout.user_root = root;
  } else if (auto home = env_get(env, "HOME")) {
    layout.user_root = fs::path(*home) / ".cudaenv";
  } else {
    return make_error("neither CUDAENV_ROOT nor HOME is set", "export CUDAENV_ROOT=/path/to/.cudaenv");
  }
  if (const char* name = shared_root_variable(env)) {
    CUDAENV_TRY_ASSIGN(auto root, absolute_setting(env, name));
    layout.shared_root = root;
  }
  return layout;
}

Result<Layout> layout_for_shim(const EnvMap& env, const fs::path& shim) {
  if (env_get(env, kRootSetting.variable) || shim.parent_path().filename() != "shims") return layout_from_env(env);
  EnvMap lookup = env;
  lookup[kRootSetting.variable] = shim.parent_path().parent_path().string();
  return layout_from_env(lookup);
}

}  // namespace cudaenv
