#include "doctor/parsers.h"

#include <nlohmann/json.hpp>

#include "util/json_reader.h"
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

namespace {

using json = nlohmann::json;

// What the probe script prints: {"torch": {...}, "deepspeed": "...", "torch_error": "..."}.
Status read_python_json(const JsonValue& answer, PythonProbe& python) {
  auto torch = answer.find("torch");
  if (!torch) return torch.take_error();
  if (*torch) {
    const JsonValue& t = **torch;
    python.has_torch = true;
    auto version = t.optional_string("version");
    if (!version) return version.take_error();
    python.torch_version = version->value_or("");
    auto cuda = t.optional_string("cuda");
    if (!cuda) return cuda.take_error();
    if (*cuda) python.torch_cuda = parse_version(**cuda);
    auto available = t.optional_boolean("available");
    if (!available) return available.take_error();
    python.cuda_available = available->value_or(false);
    auto archs = t.strings_at("arch_list");
    if (!archs) return archs.take_error();
    python.arch_list = std::move(*archs);
  }
  auto deepspeed = answer.optional_string("deepspeed");
  if (!deepspeed) return deepspeed.take_error();
  python.deepspeed_version = *deepspeed;
  auto error = answer.optional_string("torch_error");
  if (!error) return error.take_error();
  if (*error) python.problem = "import torch failed: " + **error;
  return ok_status();
}

}  // namespace

bool read_python_answer(std::string_view output, PythonProbe& python) {
  static constexpr std::string_view kMarker = "CUDAENV_PROBE ";
  size_t at = output.rfind(kMarker);
  if (at == std::string_view::npos) return false;
  std::string_view line = output.substr(at + kMarker.size());
  auto answer = JsonValue::parse(line.substr(0, line.find('\n')), "its answer");
  PythonProbe found = python;
  Status read = answer ? read_python_json(*answer, found) : Status(answer.take_error());
  if (!read) {
    python.problem = read.error().message;  // and none of the answer is kept
    return true;
  }
  python = std::move(found);
  return true;
}

std::string driver_answer_json(const DriverProbe& driver) {
  json gpus = json::array();
  for (const Gpu& gpu : driver.gpus) {
    gpus.push_back({{"name", gpu.name}, {"major", gpu.capability.major()}, {"minor", gpu.capability.minor()}});
  }
  json answer = {{"loaded", driver.loaded}, {"problem", driver.problem},
                 {"cuda", driver.cuda ? json(driver.cuda->str()) : json(nullptr)},
                 {"version", driver.version ? json(driver.version->text) : json(nullptr)},
                 {"version_source", driver.version_source}, {"gpus", gpus}};
  // A GPU name is whatever the driver wrote: replace what is not UTF-8 rather than fail.
  return answer.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// A compute capability part: a small whole number, whatever the answer says.
Result<int> capability_part(const JsonValue& gpu, std::string_view key) {
  auto value = gpu.at(key);
  if (!value) return value.take_error();
  auto number = value->unsigned_integer();
  if (!number) return number.take_error();
  if (*number > 99) return value->error("is not a compute capability part");
  return static_cast<int>(*number);
}

Result<DriverProbe> read_driver_json(const JsonValue& answer) {
  DriverProbe driver;
  auto loaded = answer.optional_boolean("loaded");
  if (!loaded) return loaded.take_error();
  driver.loaded = loaded->value_or(false);
  auto problem = answer.optional_string("problem");
  if (!problem) return problem.take_error();
  driver.problem = problem->value_or("");
  auto cuda = answer.optional_string("cuda");
  if (!cuda) return cuda.take_error();
  if (*cuda) driver.cuda = parse_version(**cuda);
  auto version = answer.optional_string("version");
  if (!version) return version.take_error();
  if (*version) driver.version = parse_driver_version(**version);
  auto source = answer.optional_string("version_source");
  if (!source) return source.take_error();
  driver.version_source = source->value_or("");
  auto gpus = answer.at("gpus");
  if (!gpus) return gpus.take_error();
  auto elements = gpus->elements();
  if (!elements) return elements.take_error();
  for (const JsonValue& gpu : *elements) {
    auto name = gpu.string_at("name");
    if (!name) return name.take_error();
    auto major = capability_part(gpu, "major");
    if (!major) return major.take_error();
    auto minor = capability_part(gpu, "minor");
    if (!minor) return minor.take_error();
    driver.gpus.push_back(Gpu{std::move(*name), Version{{*major, *minor}}});
  }
  return driver;
}

}  // namespace

Result<DriverProbe> read_driver_answer(std::string_view text) {
  auto answer = JsonValue::parse(text, "its answer");
  if (!answer) return answer.take_error();
  return read_driver_json(*answer);
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
