// The NVIDIA driver, loaded at run time: cudaenv has no link-time dependency on it.
#include <dlfcn.h>

#include "doctor/parsers.h"
#include "doctor/probe.h"
#include "util/nvidia_driver.h"

namespace cudaenv {

namespace {

using CuResult = int;
using CuDevice = int;
constexpr int kAttributeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttributeCapabilityMinor = 76;
constexpr CuResult kErrorNoDevice = 100;
constexpr CuResult kErrorStubLibrary = 34;

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

void read_gpus(const DriverApi& api, DriverProbe& driver) {
  int count = 0;
  if (api.device_get_count(&count) != 0) return;
  for (int i = 0; i < count; ++i) {
    CuDevice device = 0;
    char name[256] = {};
    int major = 0, minor = 0;
    if (api.device_get(&device, i) != 0 || api.device_get_name(name, sizeof name, device) != 0 ||
        api.device_get_attribute(&major, kAttributeCapabilityMajor, device) != 0 ||
        api.device_get_attribute(&minor, kAttributeCapabilityMinor, device) != 0) {
      continue;
    }
    driver.gpus.push_back(Gpu{name, Version{{major, minor}}});
  }
}

std::optional<DriverVersion> nvml_driver_version() {
  // Left loaded, like libcuda below: unloading a driver library a process has used is not safe.
  void* library = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) return std::nullopt;
  int (*init)() = nullptr;
  int (*get_version)(char*, unsigned) = nullptr;
  int (*shutdown)() = nullptr;
  bind(library, "nvmlInit_v2", init);
  bind(library, "nvmlSystemGetDriverVersion", get_version);
  bind(library, "nvmlShutdown", shutdown);
  if (!init || !get_version || !shutdown || init() != 0) return std::nullopt;
  char text[96] = {};
  std::optional<DriverVersion> version;
  if (get_version(text, sizeof text) == 0) version = parse_driver_version(text);
  shutdown();
  return version;
}

}  // namespace

DriverProbe probe_driver(const FileSystemView& fs) {
  DriverProbe driver;
  // NVML first: it comes from the same driver install as libcuda.so.1 and follows
  // LD_LIBRARY_PATH the same way; /sys and /proc only know the loaded kernel module.
  if (auto version = nvml_driver_version()) {
    driver.version = version;
    driver.version_source = "NVML";
  } else if (auto reading = read_driver_version(fs)) {
    driver.version = parse_driver_version(reading->version);
    if (driver.version) driver.version_source = reading->source.string();
  }
  void* library = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    driver.problem = "libcuda.so.1 cannot be loaded (" + dl_error() + ")";
    return driver;
  }
  driver.loaded = true;
  DriverApi api;
  bind(library, "cuInit", api.init);
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
  if (api.driver_get_version(&number) == 0) driver.cuda = version_from_driver_api(number);
  if (!driver.cuda) driver.problem = "cuDriverGetVersion gave no version";
  if (CuResult result = api.init(0); result != 0) {
    driver.problem = init_problem(result);
    return driver;
  }
  read_gpus(api, driver);
  return driver;
}

}  // namespace cudaenv
