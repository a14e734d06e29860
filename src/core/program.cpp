#include "core/program.h"

#include "util/strings.h"

namespace cudaenv {

static Error missing_program_error(const FileSystemView& fs, const Layout& layout, const Selection& selection,
                                   const std::string& program) {
  auto having = toolkits_with_program(fs, list_toolkits(fs, layout), program);
  std::string hint = having.empty() ? "no installed toolkit has it"
                                    : "it is in: " + join(having, ", ") + " (e.g. `cudaenv shell " + having.back() + "`)";
  return make_error(program + " is not part of CUDA " + selection.toolkit.name + " (" + selection.request.origin() + ")", hint,
                    ErrorKind::program_not_found);
}

Result<fs::path> program_for_selection(const FileSystemView& fs, const EnvMap& env, const Layout& layout,
                                       const Selection& selection, const std::string& program,
                                       const std::function<bool(const fs::path&)>& is_a_shim) {
  auto shim = [&](const fs::path& path) { return is_a_shim && is_a_shim(path); };
  if (selection.toolkit.source == ToolkitSource::system) {
    auto path = find_on_path(fs, env, program, layout.shims_dir());
    if (!path) return missing_program_error(fs, layout, selection, program);
    if (shim(*path)) {
      return make_error(path->string() + " is a cudaenv shim outside " + layout.shims_dir().string(),
                        "remove it from PATH; the system toolkit must be a real one");
    }
    return *path;
  }
  fs::path path = selection.toolkit.bin_dir() / program;
  if (!fs.is_executable(path)) return missing_program_error(fs, layout, selection, program);
  if (shim(path)) {
    return make_error(path.string() + " is a cudaenv shim (a link or copy of cudaenv-shim), not the real " + program +
                          " of CUDA " + selection.toolkit.name,
                      "the toolkit " + selection.toolkit.home.string() + " is damaged: reinstall or re-register it");
  }
  return path;
}

}  // namespace cudaenv
