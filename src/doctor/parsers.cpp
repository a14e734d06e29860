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

// The value of `#define NAME 123` (spaces or tabs anywhere between), the first one in the text.
std::optional<int> defined_number(std::string_view text, std::string_view name) {
  for (const std::string& line : split(text, '\n')) {
    std::vector<std::string> tokens;
    for (std::string& word : split(line, ' ')) {
      for (std::string& token : split(word, '\t')) {
        if (!trim(token).empty()) tokens.emplace_back(trim(token));
      }
    }
    if (tokens.size() >= 2 && tokens[0] == "#" && tokens[1] == "define") tokens.erase(tokens.begin());
    else if (!tokens.empty() && tokens[0] == "#define") tokens[0] = "define";
    if (tokens.size() < 3 || tokens[0] != "define" || tokens[1] != name) continue;
    auto value = parse_decimal(tokens[2], 100000);
    if (!value) return std::nullopt;
    return static_cast<int>(*value);
  }
  return std::nullopt;
}

std::optional<Version> header_version(std::string_view header, const char* major, const char* minor, const char* patch) {
  auto x = defined_number(header, major), y = defined_number(header, minor);
  if (!x || !y) return std::nullopt;
  return Version{{*x, *y, defined_number(header, patch).value_or(0)}};
}

}  // namespace

std::optional<Version> cudnn_header_version(std::string_view header) {
  return header_version(header, "CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL");
}

std::optional<Version> nccl_header_version(std::string_view header) {
  return header_version(header, "NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH");
}

std::optional<Version> version_from_cudnn(std::uint64_t number) {
  // CUDNN_VERSION in cudnn_version.h: MAJOR * 1000 + MINOR * 100 + PATCH up to 8.x,
  // MAJOR * 10000 + MINOR * 100 + PATCH from 9.0 on (9.0.0 is 90000).
  if (number == 0) return std::nullopt;
  std::uint64_t major_unit = number >= 90000 ? 10000 : 1000;
  std::uint64_t major = number / major_unit, rest = number % major_unit;
  if (major > 99) return std::nullopt;
  return Version{{static_cast<int>(major), static_cast<int>(rest / 100), static_cast<int>(rest % 100)}};
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

// "nvidia_wheels": [{"name": "nvidia-cuda-runtime", "version": "13.2.86"}, ...]
Status read_nvidia_wheels(const JsonValue& torch, PythonProbe& python) {
  CUDAENV_TRY_ASSIGN(auto wheels, torch.find("nvidia_wheels"));
  if (!wheels) return ok_status();
  CUDAENV_TRY_ASSIGN(auto elements, wheels->elements());
  for (const JsonValue& wheel : elements) {
    CUDAENV_TRY_ASSIGN(auto name, wheel.string_at("name"));
    CUDAENV_TRY_ASSIGN(auto version, wheel.string_at("version"));
    // nvidia-cuda-runtime for CUDA 13, nvidia-cuda-runtime-cu12 and -cu11 before it.
    if (name == "nvidia-cuda-runtime" || starts_with(name, "nvidia-cuda-runtime-cu")) {
      python.cuda_runtime = parse_version(version);
    }
    python.nvidia_wheels.push_back({std::move(name), std::move(version)});
  }
  return ok_status();
}

// What torch carries: cuDNN's number, NCCL's "2.30.7" and the nvidia-* wheels.
Status read_torch_libraries(const JsonValue& torch, PythonProbe& python) {
  CUDAENV_TRY_ASSIGN(auto cudnn, torch.find("cudnn"));
  if (cudnn) {
    CUDAENV_TRY_ASSIGN(auto number, cudnn->unsigned_integer());
    python.cudnn = version_from_cudnn(number);
  }
  CUDAENV_TRY_ASSIGN(auto nccl, torch.optional_string("nccl"));
  if (nccl) python.nccl = parse_version(*nccl);
  return read_nvidia_wheels(torch, python);
}

// What the probe script prints: {"torch": {...}, "deepspeed": "...", "torch_error": "..."}.
Status read_python_json(const JsonValue& answer, PythonProbe& python) {
  CUDAENV_TRY_ASSIGN(auto torch, answer.find("torch"));
  if (torch) {
    const JsonValue& t = *torch;
    python.has_torch = true;
    CUDAENV_TRY_ASSIGN(auto version, t.optional_string("version"));
    python.torch_version = version.value_or("");
    CUDAENV_TRY_ASSIGN(auto cuda, t.optional_string("cuda"));
    if (cuda) python.torch_cuda = parse_version(*cuda);
    CUDAENV_TRY_ASSIGN(auto available, t.optional_boolean("available"));
    python.cuda_available = available.value_or(false);
    CUDAENV_TRY_ASSIGN(auto archs, t.strings_at("arch_list"));
    python.arch_list = std::move(archs);
    CUDAENV_TRY(read_torch_libraries(t, python));
    CUDAENV_TRY_ASSIGN(auto dir, t.optional_string("dir"));
    if (dir) python.torch_dir = fs::path(*dir);
    CUDAENV_TRY_ASSIGN(auto abi, t.optional_boolean("cxx11_abi"));
    python.torch_cxx11_abi = abi;
  }
  CUDAENV_TRY_ASSIGN(auto interpreter, answer.find("python"));
  if (interpreter) {
    CUDAENV_TRY_ASSIGN(auto sys_path, interpreter->strings_at("sys_path"));
    python.sys_path.assign(sys_path.begin(), sys_path.end());
    CUDAENV_TRY_ASSIGN(auto stdlib, interpreter->optional_string("stdlib"));
    if (stdlib) python.stdlib = fs::path(*stdlib);
    CUDAENV_TRY_ASSIGN(auto tag, interpreter->optional_string("tag"));
    python.python_tag = tag.value_or("");
    CUDAENV_TRY_ASSIGN(auto platform, interpreter->optional_string("platform"));
    python.platform = platform.value_or("");
  }
  CUDAENV_TRY_ASSIGN(auto deepspeed, answer.optional_string("deepspeed"));
  python.deepspeed_version = deepspeed;
  CUDAENV_TRY_ASSIGN(auto error, answer.optional_string("torch_error"));
  if (error) python.problem = "import torch failed: " + *error;
  CUDAENV_TRY_ASSIGN(auto nvidia, answer.find("nvidia_dirs"));
  if (nvidia) {
    CUDAENV_TRY_ASSIGN(auto dirs, answer.strings_at("nvidia_dirs"));
    python.nvidia_dirs.assign(dirs.begin(), dirs.end());
  }
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
  json answer = {{"loaded", driver.loaded},
                 {"problem", driver.problem},
                 {"cuda", driver.cuda ? json(driver.cuda->str()) : json(nullptr)},
                 {"version", driver.version ? json(driver.version->text) : json(nullptr)},
                 {"version_source", driver.version_source},
                 {"library", driver.library},
                 {"gpus", gpus}};
  // A GPU name is whatever the driver wrote: replace what is not UTF-8 rather than fail.
  return answer.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// A compute capability part: a small whole number, whatever the answer says.
Result<int> capability_part(const JsonValue& gpu, std::string_view key) {
  CUDAENV_TRY_ASSIGN(auto value, gpu.at(key));
  CUDAENV_TRY_ASSIGN(auto number, value.unsigned_integer());
  if (number > 99) return value.error("is not a compute capability part");
  return static_cast<int>(number);
}

Result<DriverProbe> read_driver_json(const JsonValue& answer) {
  DriverProbe driver;
  CUDAENV_TRY_ASSIGN(auto loaded, answer.optional_boolean("loaded"));
  driver.loaded = loaded.value_or(false);
  CUDAENV_TRY_ASSIGN(auto problem, answer.optional_string("problem"));
  driver.problem = problem.value_or("");
  CUDAENV_TRY_ASSIGN(auto cuda, answer.optional_string("cuda"));
  if (cuda) driver.cuda = parse_version(*cuda);
  CUDAENV_TRY_ASSIGN(auto version, answer.optional_string("version"));
  if (version) driver.version = parse_driver_version(*version);
  CUDAENV_TRY_ASSIGN(auto source, answer.optional_string("version_source"));
  driver.version_source = source.value_or("");
  CUDAENV_TRY_ASSIGN(auto library, answer.optional_string("library"));
  driver.library = library.value_or("");
  CUDAENV_TRY_ASSIGN(auto gpus, answer.at("gpus"));
  CUDAENV_TRY_ASSIGN(auto elements, gpus.elements());
  for (const JsonValue& gpu : elements) {
    CUDAENV_TRY_ASSIGN(auto name, gpu.string_at("name"));
    CUDAENV_TRY_ASSIGN(auto major, capability_part(gpu, "major"));
    CUDAENV_TRY_ASSIGN(auto minor, capability_part(gpu, "minor"));
    driver.gpus.push_back(Gpu{std::move(name), ComputeCapability(major, minor)});
  }
  return driver;
}

}  // namespace

Result<DriverProbe> read_driver_answer(std::string_view text) {
  CUDAENV_TRY_ASSIGN(auto answer, JsonValue::parse(text, "its answer"));
  return read_driver_json(answer);
}

// The `nvidia` namespace package's folders are where NVIDIA's wheels are: found, not imported.
// torch.cuda.get_arch_list() is empty without a usable driver; the arch flags torch was
// compiled with are there regardless, so those are asked for first. DeepSpeed's version comes
// from its dist-info beside the package: importing it loads all of its ops machinery, and
// importlib.metadata alone costs more than the rest of this script when torch is absent.
// torch and DeepSpeed print warnings on both streams, from Python and from C++: stdout is
// moved onto stderr at the descriptor before anything is imported, so the saved stdout
// carries the answer alone.
const char* const kPythonProbeScript = R"PY(
import importlib.util, json, os, sys, sysconfig
answer_stream = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
answer = {}
def installed_version(spec, name):
    for location in spec.submodule_search_locations or []:
        parent = os.path.dirname(location)
        for entry in os.listdir(parent):
            if entry.startswith(name + "-") and entry.endswith(".dist-info"):
                return entry[len(name) + 1:-len(".dist-info")]
    return None
def asked(question):
    try:
        return question()
    except Exception:
        return None
def nccl_version(torch):
    version = torch.cuda.nccl.version()
    return ".".join(str(part) for part in version) if isinstance(version, tuple) else None
def nvidia_wheels(torch):
    import importlib.metadata
    site = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
    found = {}
    for dist in importlib.metadata.distributions(path=[site]):
        name = dist.metadata["Name"] or ""
        if name.lower().startswith("nvidia"):
            found[name] = dist.version
    return [{"name": name, "version": found[name]} for name in sorted(found)]
torch_spec = importlib.util.find_spec("torch")
if torch_spec is not None:
    try:
        import torch
        arch_flags = getattr(getattr(torch, "_C", None), "_cuda_getArchFlags", None)
        archs = ((arch_flags() if arch_flags else "") or "").split() or list(torch.cuda.get_arch_list())
        answer["torch"] = {"version": str(torch.__version__), "cuda": torch.version.cuda,
                           "available": bool(torch.cuda.is_available()), "arch_list": archs,
                           "cudnn": asked(lambda: torch.backends.cudnn.version()),
                           "nccl": asked(lambda: nccl_version(torch)),
                           "nvidia_wheels": asked(lambda: nvidia_wheels(torch)),
                           "dir": os.path.dirname(os.path.abspath(torch.__file__)),
                           "cxx11_abi": asked(lambda: bool(torch._C._GLIBCXX_USE_CXX11_ABI))}
    except Exception as error:
        answer["torch_error"] = repr(error)
def nvidia_dirs():
    spec = importlib.util.find_spec("nvidia")
    return [str(d) for d in (spec.submodule_search_locations or [])] if spec else []
answer["nvidia_dirs"] = asked(nvidia_dirs) or []
implementation = {"cpython": "cp", "pypy": "pp"}.get(sys.implementation.name, sys.implementation.name)
answer["python"] = {"sys_path": [os.path.abspath(p) for p in sys.path if p],
                    "stdlib": sysconfig.get_paths()["stdlib"],
                    "tag": implementation + str(sys.version_info[0]) + str(sys.version_info[1]),
                    "platform": sysconfig.get_platform().replace("-", "_").replace(".", "_")}
deepspeed_spec = importlib.util.find_spec("deepspeed")
if deepspeed_spec is not None:
    answer["deepspeed"] = installed_version(deepspeed_spec, "deepspeed")
    if answer["deepspeed"] is None:
        try:
            import deepspeed
            answer["deepspeed"] = str(deepspeed.__version__)
        except Exception as error:
            answer["deepspeed"] = "unknown (" + repr(error) + ")"
answer_stream.write("CUDAENV_PROBE " + json.dumps(answer) + "\n")
answer_stream.flush()
)PY";

}  // namespace cudaenv
