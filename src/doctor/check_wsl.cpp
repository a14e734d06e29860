// WSL2: the GPU belongs to the Windows NVIDIA driver, whose libcuda.so.1 and nvidia-smi WSL maps
// into /usr/lib/wsl/lib; there is no /proc/driver/nvidia and no /sys/module/nvidia. A Linux
// NVIDIA driver installed inside WSL (nvidia-driver-*, cuda-drivers, the `cuda` metapackage)
// puts its own libcuda.so.1 ahead of it, and CUDA no longer initialises: NVIDIA's CUDA on WSL
// guide says to install none.
#include "doctor/check_versions.h"
#include "util/strings.h"

namespace cudaenv::doctor_detail {

namespace {

// `path` lies under WSL's driver folders (/usr/lib/wsl/lib, /usr/lib/wsl/drivers).
bool from_windows_driver(const WslProbe& wsl, const fs::path& path) {
  std::string prefix = wsl.driver_dir.parent_path().string() + "/";
  return starts_with(path.lexically_normal().string(), prefix);
}

// The command that removes the Debian package a file came from.
std::string remove_package_of(const fs::path& file) {
  return "sudo apt-get remove --purge \"$(dpkg -S " + posix_quote(file.string()) + " | cut -d: -f1)\"";
}

Finding wsl_driver(const Probes& probes) {
  const WslProbe& wsl = probes.wsl;
  const DriverProbe& driver = probes.driver;
  std::string windows = (wsl.driver_dir / "libcuda.so.1").string();
  if (driver.loaded && !from_windows_driver(wsl, driver.library)) {
    return finding(
        "wsl", Severity::error,
        "WSL2 loads libcuda.so.1 from " + driver.library + ", a Linux NVIDIA driver's, not the Windows driver's " + windows,
        "Under WSL2 the GPU is the Windows driver's; a Linux NVIDIA driver installed inside WSL puts its own "
        "libcuda.so.1 first, and CUDA then fails to initialise (its kernel module cannot load in WSL). Remove "
        "it; install CUDA toolkits without a driver (cudaenv's, or NVIDIA's WSL-Ubuntu packages).",
        {remove_package_of(driver.library) + " && sudo ldconfig"});
  }
  if (driver.loaded) return finding("wsl", Severity::ok, "WSL2: libcuda.so.1 is the Windows driver's (" + driver.library + ")");
  if (!wsl.has_libcuda) {
    return finding("wsl", Severity::error, "WSL2 without the Windows driver's libraries: " + windows + " is missing",
                   "WSL2 gets the GPU from the NVIDIA driver installed on Windows, which maps its libraries into " +
                       wsl.driver_dir.string() +
                       ". Install or update the NVIDIA driver on Windows (not inside WSL), then restart WSL "
                       "(`wsl --shutdown` in Windows).");
  }
  std::string dir = wsl.driver_dir.string();
  return finding("wsl", Severity::error, "WSL2: " + windows + " is there, but the loader does not find it",
                 "WSL registers " + dir +
                     " with the loader in /etc/ld.so.conf.d/ld.wsl.conf; without it no program finds "
                     "the driver.",
                 {"export LD_LIBRARY_PATH=" + posix_quote(dir) + "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}",
                  "echo " + posix_quote(dir) + " | sudo tee /etc/ld.so.conf.d/ld.wsl.conf && sudo ldconfig"});
}

std::optional<Finding> wsl_nvidia_smi(const WslProbe& wsl) {
  fs::path windows = wsl.driver_dir / "nvidia-smi";
  if (wsl.nvidia_smi && !from_windows_driver(wsl, *wsl.nvidia_smi)) {
    return finding("wsl-nvidia-smi", Severity::warning,
                   "nvidia-smi on PATH is " + wsl.nvidia_smi->string() + ", a Linux driver's, not " + windows.string(),
                   "A Linux driver's nvidia-smi cannot reach the GPU under WSL2 (\"couldn't communicate with the NVIDIA "
                   "driver\"); the Windows driver's is " +
                       windows.string() + ".",
                   {remove_package_of(*wsl.nvidia_smi)});
  }
  if (!wsl.nvidia_smi) {
    return finding("wsl-nvidia-smi", Severity::info, "nvidia-smi is not on PATH: under WSL2 it is " + windows.string(),
                   "WSL maps the Windows driver's nvidia-smi there; cudaenv reads the driver without it.",
                   {"export PATH=\"$PATH\":" + posix_quote(wsl.driver_dir.string())});
  }
  return std::nullopt;
}

}  // namespace

std::vector<Finding> check_wsl(const Probes& probes) {
  if (!probes.wsl.wsl) return {};
  std::vector<Finding> out{wsl_driver(probes)};
  if (auto smi = wsl_nvidia_smi(probes.wsl)) out.push_back(std::move(*smi));
  return out;
}

}  // namespace cudaenv::doctor_detail
