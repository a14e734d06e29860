#include "doctor/parsers.h"

#include <nlohmann/json.hpp>

#include "util/strings.h"

namespace cudaenv {

namespace {

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  for (std::string& word : split(text, ' ')) {
    if (!trim(word).empty()) out.emplace_back(trim(word));
  }
  return out;
}

}  // namespace

std::optional<DriverVersion> parse_driver_version(std::string_view text) {
  auto number = parse_version(text);
  if (!number) return std::nullopt;
  return DriverVersion{*number, std::string(text)};
}

std::optional<Version> version_from_driver_api(int number) {
  if (number < 1000) return std::nullopt;
  return Version{{number / 1000, (number % 1000) / 10}};
}

CompilerBanner parse_compiler_banner(std::string_view text) {
  CompilerBanner banner{"unknown", std::nullopt};
  std::string_view first_line = trim(text.substr(0, text.find('\n')));
  std::vector<std::string> tokens = words(first_line);
  if (size_t at = first_line.find("clang version "); at != std::string_view::npos) {
    banner.kind = "clang";
    std::vector<std::string> rest = words(first_line.substr(at + 14));
    if (!rest.empty()) banner.version = parse_version(rest.front().substr(0, rest.front().find('-')));
    return banner;
  }
  bool gcc = text.find("Free Software Foundation") != std::string_view::npos ||
             first_line.find("gcc") != std::string_view::npos || first_line.find("g++") != std::string_view::npos;
  if (!gcc || tokens.empty()) return banner;
  banner.kind = "gcc";
  banner.version = parse_version(tokens.back());
  return banner;
}

bool read_python_answer(std::string_view output, PythonProbe& python) {
  static constexpr std::string_view kMarker = "CUDAENV_PROBE ";
  size_t at = output.rfind(kMarker);
  if (at == std::string_view::npos) return false;
  std::string_view line = output.substr(at + kMarker.size());
  auto json = nlohmann::json::parse(line.substr(0, line.find('\n')), nullptr, false);
  if (!json.is_object()) return false;
  auto torch = json.find("torch");
  python.has_torch = torch != json.end() && torch->is_object();
  if (python.has_torch) {
    python.torch_version = torch->value("version", "");
    auto cuda = torch->find("cuda");
    if (cuda != torch->end() && cuda->is_string()) python.torch_cuda = parse_version(cuda->get<std::string>());
    python.cuda_available = torch->value("available", false);
    auto archs = torch->find("arch_list");
    if (archs != torch->end() && archs->is_array()) {
      for (const auto& arch : *archs) {
        if (arch.is_string()) python.arch_list.push_back(arch.get<std::string>());
      }
    }
  }
  auto deepspeed = json.find("deepspeed");
  if (deepspeed != json.end() && deepspeed->is_string()) python.deepspeed_version = deepspeed->get<std::string>();
  if (auto error = json.find("torch_error"); error != json.end() && error->is_string()) {
    python.problem = "import torch failed: " + error->get<std::string>();
  }
  return true;
}

// torch.cuda.get_arch_list() is empty without a usable driver; the arch flags torch was
// compiled with are there regardless, so those are asked for first. DeepSpeed's version comes
// from its dist-info beside the package: importing it loads all of its ops machinery, and
// importlib.metadata alone costs more than the rest of this script.
const char* const kPythonProbeScript = R"PY(
import importlib.util, json, os
answer = {}
def installed_version(spec, name):
    for location in spec.submodule_search_locations or []:
        parent = os.path.dirname(location)
        for entry in os.listdir(parent):
            if entry.startswith(name + "-") and entry.endswith(".dist-info"):
                return entry[len(name) + 1:-len(".dist-info")]
    return None
if importlib.util.find_spec("torch") is not None:
    try:
        import torch
        arch_flags = getattr(getattr(torch, "_C", None), "_cuda_getArchFlags", None)
        archs = ((arch_flags() if arch_flags else "") or "").split() or list(torch.cuda.get_arch_list())
        answer["torch"] = {"version": str(torch.__version__), "cuda": torch.version.cuda,
                           "available": bool(torch.cuda.is_available()), "arch_list": archs}
    except Exception as error:
        answer["torch_error"] = repr(error)
deepspeed_spec = importlib.util.find_spec("deepspeed")
if deepspeed_spec is not None:
    answer["deepspeed"] = installed_version(deepspeed_spec, "deepspeed")
    if answer["deepspeed"] is None:
        try:
            import deepspeed
            answer["deepspeed"] = str(deepspeed.__version__)
        except Exception as error:
            answer["deepspeed"] = "unknown (" + repr(error) + ")"
print("CUDAENV_PROBE " + json.dumps(answer))
)PY";

}  // namespace cudaenv
