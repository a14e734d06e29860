// Python, torch and DeepSpeed: asked by running the interpreter, never by importing them here.
#include "core/toolkits.h"
#include "doctor/parsers.h"
#include "doctor/probes.h"
#include "util/process.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

std::optional<fs::path> find_python(const FileSystemView& fs, const EnvMap& env, const std::optional<fs::path>& given) {
  if (given) {
    if (given->has_parent_path()) return fs.is_executable(*given) ? given : std::nullopt;
    return find_on_path(fs, env, given->string(), {});
  }
  for (const char* name : {"python3", "python"}) {
    if (auto path = find_on_path(fs, env, name, {})) return path;
  }
  return std::nullopt;
}

}  // namespace

PythonProbe probe_python(const FileSystemView& fs, const EnvMap& env, const std::optional<fs::path>& python,
                         std::chrono::milliseconds timeout) {
  PythonProbe probe;
  probe.limit = timeout;
  probe.interpreter = find_python(fs, env, python);
  if (!probe.interpreter) {
    if (python) {
      probe.interpreter = python;
      probe.problem = "not found";
    }
    return probe;
  }
  auto started = std::chrono::steady_clock::now();
  auto output = run_capture({probe.interpreter->string(), "-c", kPythonProbeScript}, timeout, &env);
  probe.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  if (!output) {
    // run_capture stops a program only at the deadline or for printing too much.
    probe.timed_out = probe.took >= timeout;
    probe.problem = probe.timed_out ? "no answer within " + seconds_text(std::chrono::duration<double>(timeout).count()) +
                                          " (importing torch reads hundreds of MB)"
                                    : output.error().message;
  } else if (!read_python_answer(output->out, probe)) {
    // A traceback ends with the line that says what went wrong.
    std::string said(trim(output->err));
    if (size_t last_line = said.rfind('\n'); last_line != std::string::npos) said.erase(0, last_line + 1);
    probe.problem = "exit status " + std::to_string(output->exit_code) + (said.empty() ? "" : ": " + said);
  }
  return probe;
}

}  // namespace cudaenv
