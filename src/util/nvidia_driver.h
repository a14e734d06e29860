#pragma once
// The NVIDIA kernel driver's version, read the way uv and `cudaenv doctor` read it:
// /sys/module/nvidia/version, then /proc/driver/nvidia/version. No nvidia-smi, no process.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "util/file_system.h"

namespace cudaenv {

struct DriverReading {
  std::string version;           // "550.54.14"
  std::filesystem::path source;  // the file it came from
};

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 ..." -> "550.54.14".
std::optional<std::string> driver_version_from_proc_text(std::string_view text);

// nullopt when no NVIDIA driver is loaded (or the files say nothing readable).
std::optional<DriverReading> read_driver_version(const FileSystemView& fs);

}  // namespace cudaenv
