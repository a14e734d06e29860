// Reading the NVIDIA driver version the way uv and doctor do: /sys first, then /proc.
#include <catch2/catch.hpp>

#include "support/memory_file_system.h"
#include "util/nvidia_driver.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

TEST_CASE("the driver version is read from /proc/driver/nvidia/version's first line") {
  CHECK(driver_version_from_proc_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
                                      "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n") == "550.54.14");
  CHECK(driver_version_from_proc_text("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  "
                                      "(dvs-builder@U16-I3-B03-4-3)  Sun Jul 27 07:09:25 UTC 2025\n") == "580.65.06");
  CHECK(driver_version_from_proc_text("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104  Sat Aug 19 2023\n") ==
        "535.104");
  CHECK_FALSE(driver_version_from_proc_text(""));
  CHECK_FALSE(driver_version_from_proc_text("GCC version:  gcc version 12.3.0\n"));
}

TEST_CASE("read_driver_version prefers /sys/module/nvidia/version, then /proc, else nothing") {
  MemoryFileSystem both;
  both.file("/sys/module/nvidia/version", "560.35.03\n")
      .file("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22\n");
  auto reading = read_driver_version(both);
  REQUIRE(reading);
  CHECK(reading->version == "560.35.03");
  CHECK(reading->source == "/sys/module/nvidia/version");

  MemoryFileSystem proc_only;
  proc_only.file("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22\n");
  reading = read_driver_version(proc_only);
  REQUIRE(reading);
  CHECK(reading->version == "550.54.14");
  CHECK(reading->source == "/proc/driver/nvidia/version");

  MemoryFileSystem garbled;
  garbled.file("/sys/module/nvidia/version", "unknown\n");
  CHECK_FALSE(read_driver_version(garbled));
  CHECK_FALSE(read_driver_version(MemoryFileSystem()));
}
