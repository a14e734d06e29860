#pragma once
// Versions read from what the machine has, without running anything: a toolkit's CUDA version
// from what it ships (version.json, cuda.h, nvcc's banner), and the NVIDIA kernel driver's, read
// the way uv and `cudaenv doctor` read it (/sys/module/nvidia/version, then
// /proc/driver/nvidia/version; no nvidia-smi), unless CUDAENV_DRIVER_VERSION stands in for it.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/toolkits.h"
#include "core/version.h"
#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

// {"cuda": {"version": "12.1.1"}} -> 12.1.1
std::optional<Version> version_from_version_json(std::string_view text);
// "#define CUDA_VERSION 12010" -> 12.1
std::optional<Version> version_from_cuda_h(std::string_view text);
// "Cuda compilation tools, release 12.1, V12.1.105" -> 12.1
std::optional<Version> version_from_nvcc_banner(std::string_view text);

// The version of the toolkit at `home` from the files it ships, without running anything:
// version.json, else include/cuda.h, else targets/*/include/cuda.h (redist layouts).
std::optional<Version> shipped_toolkit_version(const FileSystemView& fs, const fs::path& home);
// A toolkit's CUDA version: its name's, else the one its files give.
std::optional<Version> toolkit_cuda_version(const FileSystemView& fs, const Toolkit& toolkit);

struct DriverReading {
  std::string version;           // "550.54.14"
  std::filesystem::path source;  // the file it came from
};

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 ..." -> "550.54.14".
std::optional<std::string> driver_version_from_proc_text(std::string_view text);

// nullopt when no NVIDIA driver is loaded (or the files say nothing readable). `root` is where
// /sys and /proc are: "/" but for a test's stand-in machine.
std::optional<DriverReading> read_driver_version(const FileSystemView& fs, const std::filesystem::path& root = "/");

// The driver `install`, `torch` and `doctor` take in place of the machine's, as uv takes
// UV_CUDA_DRIVER_VERSION and conda CONDA_OVERRIDE_CUDA: for a build machine that builds for
// other GPUs' drivers, or a driver the probes misread: CUDAENV_DRIVER_VERSION
// (kDriverVersionSetting). Its value, its source being the variable; nullopt when unset or empty; an error for a value
// that is no driver version.
Result<std::optional<DriverReading>> driver_override(const EnvMap& env);
// The driver `torch` and the shell environment take: CUDAENV_DRIVER_VERSION, else the one
// read_driver_version() finds.
Result<std::optional<DriverReading>> read_driver(const FileSystemView& fs, const EnvMap& env);

}  // namespace cudaenv
