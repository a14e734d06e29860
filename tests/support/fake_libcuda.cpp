// A stand-in for the NVIDIA driver's libcuda.so.1 and libnvidia-ml.so.1, so doctor's
// driver probe runs for real on machines without a GPU. Its answers come from:
//   FAKE_CUDA_DRIVER_VERSION   cuDriverGetVersion, e.g. 12040 (default)
//   FAKE_CUDA_GPUS             "NVIDIA GeForce RTX 4090:8.9;NVIDIA H100:9.0" (none: no device)
//   FAKE_CUDA_INIT_ERROR       a CUresult for cuInit to fail with
//   FAKE_NVIDIA_DRIVER_VERSION nvmlSystemGetDriverVersion, e.g. 550.54.14 (unset: NVML fails)
//   FAKE_CUDA_MODE             a broken driver: "abort", "segv" or "hang" in cuInit, or
//                              "unterminated": cuDeviceGetName fills the whole buffer, no NUL
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {

enum { kSuccess = 0, kInvalidValue = 1, kNoDevice = 100, kMaxGpus = 8 };

struct gpu {
  char name[160];
  int major, minor;
};

namespace {

int read_gpus(struct gpu* gpus) {
  const char* spec = getenv("FAKE_CUDA_GPUS");
  int count = 0;
  while (spec && *spec && count < kMaxGpus) {
    const char* end = strchr(spec, ';');
    size_t length = end ? (size_t)(end - spec) : strlen(spec);
    char item[160];
    if (length >= sizeof item) length = sizeof item - 1;
    memcpy(item, spec, length);
    item[length] = '\0';
    char* colon = strrchr(item, ':');
    if (colon) {
      *colon = '\0';
      snprintf(gpus[count].name, sizeof gpus[count].name, "%s", item);
      if (sscanf(colon + 1, "%d.%d", &gpus[count].major, &gpus[count].minor) == 2) ++count;
    }
    spec = end ? end + 1 : nullptr;
  }
  return count;
}

bool mode_is(const char* mode) {
  const char* value = getenv("FAKE_CUDA_MODE");
  return value && strcmp(value, mode) == 0;
}

}  // namespace

int cuInit(unsigned flags) {
  (void)flags;
  if (mode_is("abort")) abort();
  if (mode_is("segv")) raise(SIGSEGV);
  while (mode_is("hang")) pause();
  const char* error = getenv("FAKE_CUDA_INIT_ERROR");
  if (error && *error) return atoi(error);
  struct gpu gpus[kMaxGpus];
  return read_gpus(gpus) ? kSuccess : kNoDevice;
}

int cuDriverGetVersion(int* version) {
  const char* value = getenv("FAKE_CUDA_DRIVER_VERSION");
  *version = value && *value ? atoi(value) : 12040;
  return kSuccess;
}

int cuDeviceGetCount(int* count) {
  struct gpu gpus[kMaxGpus];
  *count = read_gpus(gpus);
  return kSuccess;
}

int cuDeviceGet(int* device, int ordinal) {
  struct gpu gpus[kMaxGpus];
  if (ordinal < 0 || ordinal >= read_gpus(gpus)) return kInvalidValue;
  *device = ordinal;
  return kSuccess;
}

int cuDeviceGetName(char* name, int length, int device) {
  struct gpu gpus[kMaxGpus];
  if (device < 0 || device >= read_gpus(gpus) || length <= 0) return kInvalidValue;
  if (mode_is("unterminated")) {
    memset(name, 'X', (size_t)length);
    return kSuccess;
  }
  snprintf(name, (size_t)length, "%s", gpus[device].name);
  return kSuccess;
}

int cuDeviceGetAttribute(int* value, int attribute, int device) {
  struct gpu gpus[kMaxGpus];
  if (device < 0 || device >= read_gpus(gpus)) return kInvalidValue;
  if (attribute == 75) *value = gpus[device].major; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
  else if (attribute == 76) *value = gpus[device].minor;
  else return kInvalidValue;
  return kSuccess;
}

int nvmlInit_v2(void) {
  const char* version = getenv("FAKE_NVIDIA_DRIVER_VERSION");
  return version && *version ? kSuccess : 9; /* NVML_ERROR_DRIVER_NOT_LOADED */
}

int nvmlSystemGetDriverVersion(char* version, unsigned length) {
  snprintf(version, length, "%s", getenv("FAKE_NVIDIA_DRIVER_VERSION"));
  return kSuccess;
}

int nvmlShutdown(void) { return kSuccess; }

}  // extern "C"
