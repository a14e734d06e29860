// The NVIDIA driver, loaded at run time: cudaenv has no link-time dependency on it. A
// broken libcuda.so.1 may abort, crash or hang in cuInit, so doctor loads it only in a child
// (`cudaenv doctor --driver-probe`) and reads that child's answer.
#include <dlfcn.h>

#include <csignal>
#include <cstdio>
#include <cstring>

#include "core/data_dir.h"
#include "core/version_detect.h"
#include "doctor/parsers.h"
#include "doctor/probes.h"
#include "util/process.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

using CuResult = int;
using CuDevice = int;
constexpr int kAttributeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttributeCapabilityMinor = 76;
constexpr CuResult kErrorNoDevice = 100;
constexpr CuResult kErrorStubLibrary = 34;
// More than any machine has; a driver that counts more is not believed past this.
constexpr int kMaxGpus = 64;

struct DriverApi {
  CuResult (*init)(unsigned) = nullptr;
  CuResult (*driver_get_version)(int*) = nullptr;
  CuResult (*device_get_count)(int*) = nullptr;
  CuResult (*device_get)(CuDevice*, int) = nullptr;
  CuResult (*device_get_name)(char*, int, CuDevice) = nullptr;
  CuResult (*device_get_attribute)(int*, int, CuDevice) = nullptr;

  bool complete() const {
    return init && driver_get_version && device_get_count && device_get && device_get_name && device_get_attribute;
  }
};

template <class Function>
void bind(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(::dlsym(library, name));
}

std::string dl_error() {
  const char* error = ::dlerror();
  return error ? error : "unknown error";
}

std::string init_problem(CuResult result) {
  if (result == kErrorNoDevice) return "no CUDA GPU is visible (cuInit: CUDA_ERROR_NO_DEVICE)";
  if (result == kErrorStubLibrary) return "libcuda.so.1 is the toolkit's stub, not a driver (CUDA_ERROR_STUB_LIBRARY)";
  return "cuInit failed with CUresult " + std::to_string(result);
}

// The text a driver wrote into `buffer`, up to its first NUL or the buffer's end: a
// driver that fills the buffer without terminating it is not read past.
std::string bounded(const char* buffer, size_t size) { return std::string(buffer, ::strnlen(buffer, size)); }

void read_gpus(const DriverApi& api, DriverProbe& driver, const ProbeStage& stage) {
  int count = 0;
  stage("cuDeviceGetCount");
  if (api.device_get_count(&count) != 0) return;
  for (int i = 0; i < std::min(count, kMaxGpus); ++i) {
    CuDevice device = 0;
    char name[256] = {};
    int major = 0, minor = 0;
    stage("cuDeviceGetName");
    if (api.device_get(&device, i) != 0 || api.device_get_name(name, sizeof name, device) != 0 ||
        api.device_get_attribute(&major, kAttributeCapabilityMajor, device) != 0 ||
        api.device_get_attribute(&minor, kAttributeCapabilityMinor, device) != 0) {
      continue;
    }
    driver.gpus.push_back(Gpu{bounded(name, sizeof name), ComputeCapability(major, minor)});
  }
}

std::optional<DriverVersion> nvml_driver_version(const ProbeStage& stage) {
  // Left loaded, like libcuda below: unloading a driver library a process has used is not safe.
  void* library = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) return std::nullopt;
  int (*init)() = nullptr;
  int (*get_version)(char*, unsigned) = nullptr;
  int (*shutdown)() = nullptr;
  bind(library, "nvmlInit_v2", init);
  bind(library, "nvmlSystemGetDriverVersion", get_version);
  bind(library, "nvmlShutdown", shutdown);
  stage("nvmlInit_v2");
  if (!init || !get_version || !shutdown || init() != 0) return std::nullopt;
  char text[96] = {};
  std::optional<DriverVersion> version;
  if (get_version(text, sizeof text) == 0) version = parse_driver_version(bounded(text, sizeof text));
  shutdown();
  return version;
}

// The kernel module's version, for when NVML does not answer.
void read_module_version(const FileSystemView& fs, const fs::path& root, DriverProbe& driver) {
  if (auto reading = read_driver_version(fs, root)) {
    driver.version = parse_driver_version(reading->version);
    if (driver.version) driver.version_source = reading->source.string();
  }
}

const char* const kStageMarker = "CUDAENV_DRIVER_STAGE ";
const char* const kAnswerMarker = "CUDAENV_DRIVER ";

// The name of a signal a crashing library raises (sigabbrev_np needs glibc 2.32, newer than the
// 2.28 the release runs on).
const char* signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SEGV";
    case SIGBUS: return "BUS";
    case SIGILL: return "ILL";
    case SIGFPE: return "FPE";
    case SIGABRT: return "ABRT";
    case SIGTRAP: return "TRAP";
    case SIGSYS: return "SYS";
    case SIGKILL: return "KILL";
    case SIGTERM: return "TERM";
    default: return nullptr;
  }
}

// What the child's output says about how it ended, when it gave no answer.
std::string child_failure(const ProcessOutput& output) {
  std::string stage;
  for (const std::string& line : split(output.out, '\n')) {
    if (starts_with(line, kStageMarker)) stage = line.substr(std::strlen(kStageMarker));
  }
  std::string where = stage.empty() ? "" : " in " + stage;
  if (output.exit_code > 128) {
    int signal = output.exit_code - 128;
    const char* name = signal_name(signal);
    std::string library = starts_with(stage, "nvml") ? "libnvidia-ml.so.1" : "libcuda.so.1";
    return library + " crashed the driver probe" + where + " (signal " + std::to_string(signal) +
           (name ? std::string(", SIG") + name : std::string()) + ")";
  }
  return "the driver probe stopped" + where + " with exit status " + std::to_string(output.exit_code);
}

// Where the loader found the library `symbol` is in: what LD_LIBRARY_PATH and ld.so.cache
// made of "libcuda.so.1".
std::string library_of(void* symbol) {
  Dl_info info{};
  return symbol && ::dladdr(symbol, &info) && info.dli_fname ? info.dli_fname : "";
}

}  // namespace

DriverProbe probe_driver_here(const FileSystemView& fs, const fs::path& root, const ProbeStage& stage) {
  DriverProbe driver;
  // NVML first: it comes from the same driver install as libcuda.so.1 and follows
  // LD_LIBRARY_PATH the same way; /sys and /proc only know the loaded kernel module.
  if (auto version = nvml_driver_version(stage)) {
    driver.version = version;
    driver.version_source = "NVML";
  } else {
    read_module_version(fs, root, driver);
  }
  stage("dlopen");
  void* library = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    driver.problem = "libcuda.so.1 cannot be loaded (" + dl_error() + ")";
    return driver;
  }
  driver.loaded = true;
  DriverApi api;
  bind(library, "cuInit", api.init);
  driver.library = library_of(reinterpret_cast<void*>(api.init));
  bind(library, "cuDriverGetVersion", api.driver_get_version);
  bind(library, "cuDeviceGetCount", api.device_get_count);
  bind(library, "cuDeviceGet", api.device_get);
  bind(library, "cuDeviceGetName", api.device_get_name);
  bind(library, "cuDeviceGetAttribute", api.device_get_attribute);
  if (!api.complete()) {
    driver.problem = "libcuda.so.1 lacks the driver API (" + dl_error() + ")";
    return driver;
  }
  int number = 0;
  stage("cuDriverGetVersion");
  if (api.driver_get_version(&number) == 0) driver.cuda = version_from_cuda_number(number);
  if (!driver.cuda) driver.problem = "cuDriverGetVersion gave no version";
  stage("cuInit");
  if (CuResult result = api.init(0); result != 0) {
    driver.problem = init_problem(result);
    return driver;
  }
  read_gpus(api, driver, stage);
  return driver;
}

void print_driver_probe(const FileSystemView& fs, const fs::path& root) {
  auto stage = [](const char* name) {
    std::printf("%s%s\n", kStageMarker, name);
    std::fflush(stdout);  // a crash in the next call must not lose the line
  };
  std::printf("%s%s\n", kAnswerMarker, driver_answer_json(probe_driver_here(fs, root, stage)).c_str());
}

DriverProbe probe_driver(const FileSystemView& fs, const EnvMap& env, std::chrono::milliseconds timeout, const fs::path& root) {
  DriverProbe driver;
  // user_program: from cudaenv-fetch (install's driver check) the cudaenv beside it, which
  // starts without loading libcurl's 40-odd libraries.
  auto self = user_program();
  if (!self) {
    driver.problem = "the driver probe could not start: " + self.error().message;
  } else if (auto output =
                 run_capture({self->string(), "doctor", "--driver-probe", "--machine-root", root.string()}, timeout, &env);
             !output) {
    driver.problem = "the driver probe did not answer: " + output.error().message;
    driver.crashed = true;
  } else if (size_t at = output->out.rfind(kAnswerMarker); at == std::string::npos) {
    driver.problem = child_failure(*output);
    driver.loaded = output->out.find(std::string(kStageMarker) + "cu") != std::string::npos;
    driver.crashed = output->exit_code > 128;
  } else {
    std::string line = output->out.substr(at + std::strlen(kAnswerMarker));
    if (auto read = read_driver_answer(line.substr(0, line.find('\n')))) return *read;
    else driver.problem = "the driver probe's answer is unreadable: " + read.error().message;
  }
  read_module_version(fs, root, driver);
  return driver;
}

}  // namespace cudaenv
