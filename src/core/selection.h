#pragma once
// Which toolkit is active here, and why (docs/design.md "Which toolkit is active"):
// CUDAENV_VERSION -> nearest cuda.toml upwards -> $CUDAENV_ROOT/version -> system.

#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/cuda_toml.h"
#include "core/layout.h"
#include "core/setting.h"
#include "core/toolkits.h"
#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

struct Request {
  std::string value;  // "12.1", "system", a registered name
  OriginKind kind = OriginKind::fallback;
  fs::path file;                // the cuda.toml or global file it came from
  std::string command = "use";  // an argument's command ("prefix", "exec --cuda"): what hints suggest

  // "set by /p/cuda.toml", "set by CUDAENV_VERSION", ...
  std::string origin() const;
};

struct Selection {
  Request request;
  Toolkit toolkit;
  std::optional<CudaToml> project;  // the cuda.toml governing the directory, if any
  std::vector<std::string> warnings;
};

// A selection that failed keeps what it had decided: the request, unless none could be read
// (a broken cuda.toml, an invalid CUDAENV_VERSION), so a report can say what was asked.
struct FailedSelection {
  Error error;
  std::optional<Request> request;
};

// Either outcome, for a caller that reports a failure instead of stopping at it (doctor).
using SelectionOutcome = std::variant<Selection, FailedSelection>;

// The nearest cuda.toml at or above `dir`.
std::optional<fs::path> find_project_file(const FileSystemView& fs, const fs::path& dir);

// The project file that governs `cwd`, parsed; nullopt when there is none.
Result<std::optional<CudaToml>> load_project(const FileSystemView& fs, const fs::path& cwd);

Result<Request> select_request(const FileSystemView& fs, const EnvMap& env, const Layout& layout,
                               const std::optional<CudaToml>& project);

// Exact name first (no listing), then the newest version the request is a prefix of.
std::optional<Toolkit> match_toolkit(const std::string& request, const ToolkitIndex& toolkits);

// The error for a request nothing matches: installed ones, the nearest, and the fix.
Error not_installed_error(const Request& request, const std::vector<Toolkit>& toolkits);

// The one resolution of a request to a toolkit: the shim, exec, env, the hook, doctor
// and every command come here.
Result<Toolkit> resolve_request(const FileSystemView& fs, const EnvMap& env, const Layout& layout, const Request& request,
                                const ToolkitIndex& toolkits);

// The whole selection: the request (`given`, as an argument, before all others), its toolkit
// and the governing project file.
SelectionOutcome select_or_fail(const FileSystemView& fs, const EnvMap& env, const fs::path& cwd, const Layout& layout,
                                const ToolkitIndex& toolkits, const std::optional<std::string>& given = std::nullopt);
// The same, for the callers that stop at a failure.
Result<Selection> select_toolkit(const FileSystemView& fs, const EnvMap& env, const fs::path& cwd, const Layout& layout,
                                 const ToolkitIndex& toolkits, const std::optional<std::string>& given = std::nullopt);
Result<Selection> select_toolkit(const FileSystemView& fs, const EnvMap& env, const fs::path& cwd, const Layout& layout,
                                 const std::optional<std::string>& given = std::nullopt);

}  // namespace cudaenv
