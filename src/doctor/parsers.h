#pragma once
// Pure readers for what the probes get back from the machine.

#include <optional>
#include <string>
#include <string_view>

#include "core/version.h"
#include "doctor/probes.h"

namespace cudaenv {

// cuDriverGetVersion's 12040 -> 12.4
std::optional<Version> version_from_driver_api(int number);

struct CompilerBanner {
  std::string kind;  // gcc, clang or unknown
  std::optional<Version> version;
};
// The output of `gcc --version` / `clang --version`.
CompilerBanner parse_compiler_banner(std::string_view text);

// The Python probe's answer line ("CUDAENV_PROBE {json}") into `python`; false when
// there is none or it is not the expected JSON.
bool read_python_answer(std::string_view output, PythonProbe& python);

// The script the interpreter runs; prints one answer line.
extern const char* const kPythonProbeScript;

}  // namespace cudaenv
