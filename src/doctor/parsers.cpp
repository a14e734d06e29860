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

namespace {

using json = nlohmann::json;

// Reads values out of a probe's JSON answer, keeping the first value of the wrong type as
// the problem: the answer comes from a program doctor does not control.
class AnswerReader {
 public:
  std::optional<std::string> string(const json& object, const char* key, const std::string& where) {
    const json* value = find(object, key, where);
    if (!value) return std::nullopt;
    if (value->is_string()) return value->get<std::string>();
    return wrong(where + key, "a string", *value);
  }
  std::optional<bool> boolean(const json& object, const char* key, const std::string& where) {
    const json* value = find(object, key, where);
    if (!value) return std::nullopt;
    if (value->is_boolean()) return value->get<bool>();
    return wrong<bool>(where + key, "true or false", *value);
  }
  std::optional<int> integer(const json& object, const char* key, const std::string& where) {
    const json* value = find(object, key, where);
    if (!value) return std::nullopt;
    if (value->is_number_integer() && value->get<int64_t>() >= 0 && value->get<int64_t>() <= 1'000'000'000) {
      return static_cast<int>(value->get<int64_t>());
    }
    return wrong<int>(where + key, "a whole number", *value);
  }
  // The array at `key`, or null; a non-array is recorded as the problem.
  const json* array(const json& object, const char* key, const std::string& where) {
    const json* value = find(object, key, where);
    if (value && !value->is_array()) {
      wrong<bool>(where + key, "an array", *value);
      return nullptr;
    }
    return value;
  }
  const json* object(const json& parent, const char* key, const std::string& where) {
    const json* value = find(parent, key, where);
    if (value && !value->is_object()) {
      wrong<bool>(where + key, "an object", *value);
      return nullptr;
    }
    return value;
  }
  std::vector<std::string> strings(const json& object, const char* key, const std::string& where) {
    std::vector<std::string> out;
    const json* list = array(object, key, where);
    if (!list) return out;
    for (const json& element : *list) {
      if (element.is_string()) out.push_back(element.get<std::string>());
      else wrong<bool>(where + key + "[]", "a string", element);
    }
    return out;
  }
  const std::string& problem() const { return problem_; }

 private:
  // The member `key` of `object`; absent and null are both "not there".
  static const json* find(const json& object, const char* key, const std::string&) {
    auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
  }
  template <class T = std::string>
  std::optional<T> wrong(const std::string& where, const char* expected, const json& value) {
    if (problem_.empty()) problem_ = where + " is " + std::string(value.type_name()) + ", not " + expected;
    return std::nullopt;
  }

  std::string problem_;
};

}  // namespace

bool read_python_answer(std::string_view output, PythonProbe& python) {
  static constexpr std::string_view kMarker = "CUDAENV_PROBE ";
  size_t at = output.rfind(kMarker);
  if (at == std::string_view::npos) return false;
  std::string_view line = output.substr(at + kMarker.size());
  auto answer = json::parse(line.substr(0, line.find('\n')), nullptr, false);
  if (!answer.is_object()) {
    python.problem = "its answer is not a JSON object";
    return true;
  }
  AnswerReader read;
  PythonProbe found = python;
  if (const json* torch = read.object(answer, "torch", "")) {
    found.has_torch = true;
    found.torch_version = read.string(*torch, "version", "torch.").value_or("");
    if (auto cuda = read.string(*torch, "cuda", "torch.")) found.torch_cuda = parse_version(*cuda);
    found.cuda_available = read.boolean(*torch, "available", "torch.").value_or(false);
    found.arch_list = read.strings(*torch, "arch_list", "torch.");
  }
  found.deepspeed_version = read.string(answer, "deepspeed", "");
  if (auto error = read.string(answer, "torch_error", "")) found.problem = "import torch failed: " + *error;
  if (!read.problem().empty()) {
    python.problem = "its answer does not read: " + read.problem();
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

Result<DriverProbe> read_driver_answer(std::string_view text) {
  auto answer = json::parse(text, nullptr, false);
  if (!answer.is_object()) return make_error("it is not a JSON object");
  AnswerReader read;
  DriverProbe driver;
  driver.loaded = read.boolean(answer, "loaded", "").value_or(false);
  driver.problem = read.string(answer, "problem", "").value_or("");
  if (auto cuda = read.string(answer, "cuda", "")) driver.cuda = parse_version(*cuda);
  if (auto version = read.string(answer, "version", "")) driver.version = parse_driver_version(*version);
  driver.version_source = read.string(answer, "version_source", "").value_or("");
  if (const json* gpus = read.array(answer, "gpus", "")) {
    for (const json& gpu : *gpus) {
      if (!gpu.is_object()) return make_error("gpus[] holds a " + std::string(gpu.type_name()) + ", not an object");
      auto name = read.string(gpu, "name", "gpus[].");
      auto major = read.integer(gpu, "major", "gpus[].");
      auto minor = read.integer(gpu, "minor", "gpus[].");
      if (name && major && minor) driver.gpus.push_back(Gpu{*name, Version{{*major, *minor}}});
    }
  }
  if (!read.problem().empty()) return make_error(read.problem());
  return driver;
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
