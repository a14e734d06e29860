#pragma once
// Pure readers for what the probes get back from the machine.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/version.h"
#include "doctor/probes.h"
#include "util/result.h"

namespace cudaenv {

// torch.backends.cudnn.version()'s 92600 -> 9.26.0, 8907 -> 8.9.7
std::optional<Version> version_from_cudnn(std::uint64_t number);

// The version a library's header #defines: cudnn_version.h's CUDNN_MAJOR, CUDNN_MINOR and
// CUDNN_PATCHLEVEL, nccl.h's NCCL_MAJOR, NCCL_MINOR and NCCL_PATCH. nullopt unless the major and
// minor are plain small numbers; a missing patch is 0.
std::optional<Version> cudnn_header_version(std::string_view header);
std::optional<Version> nccl_header_version(std::string_view header);

struct CompilerBanner {
  std::string kind;  // gcc, clang or unknown
  std::optional<Version> version;
};
// The output of `gcc --version` / `clang --version`.
CompilerBanner parse_compiler_banner(std::string_view text);

// The Python probe's answer line ("CUDAENV_PROBE {json}") into `python`; false when there
// is none. An answer that is not the expected JSON (a value of the wrong type, say) sets
// python.problem to what is wrong and keeps none of it.
bool read_python_answer(std::string_view output, PythonProbe& python);

// The driver probe's answer, as the child (`cudaenv doctor --driver-probe`) writes it and
// the parent reads it back; an error says which value is wrong.
std::string driver_answer_json(const DriverProbe& driver);
Result<DriverProbe> read_driver_answer(std::string_view text);

// The script the interpreter runs; prints one answer line, alone on its stdout.
extern const char* const kPythonProbeScript;

}  // namespace cudaenv
