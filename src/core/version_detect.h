#pragma once
// Versions read from what the machine has, without running anything: a toolkit's CUDA version
// from what it ships (version.json, cuda.h, nvcc's banner), and the NVIDIA kernel driver's, read
// the way uv and `cudaenv doctor` read it (/sys/module/nvidia/version, then
// /proc/driver/nvidia/version; no nvidia-smi).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/version.h"
#include "util/file_system.h"

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

struct DriverReading {
  std::string version;           // "550.54.14"
  std::filesystem::path source;  // the file it came from
};

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 ..." -> "550.54.14".
std::optional<std::string> driver_version_from_proc_text(std::string_view text);

// nullopt when no NVIDIA driver is loaded (or the files say nothing readable).
std::optional<DriverReading> read_driver_version(const FileSystemView& fs);

}  // namespace cudaenv
