#pragma once
// Version numbers: CUDA versions ("12", "12.1", "12.1.1") and how requests match them, NVIDIA
// driver versions, and GPU compute capabilities.

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaenv {

struct Version {
  std::vector<int> parts;  // numeric components, 1 to 4 of them

  std::string str() const;
  int major() const { return parts.empty() ? 0 : parts[0]; }
  int minor() const { return parts.size() > 1 ? parts[1] : 0; }
  int patch() const { return parts.size() > 2 ? parts[2] : 0; }
  // Numeric, component by component; a shorter version sorts before a longer
  // one with the same prefix ("12.1" < "12.1.0").
  std::strong_ordering operator<=>(const Version& other) const;
  bool operator==(const Version& other) const = default;
};

// Accepts 1-4 dot-separated decimal numbers, nothing else ("12.1.1", not "v12" or "12.x").
std::optional<Version> parse_version(std::string_view text);

// "12.1.1" -> 12.1: facts and comparisons work on major.minor.
Version major_minor(const Version& version);

// True when every component of `request` equals the same component of `candidate`:
// "12" matches 12.4.1, "12.1" matches 12.1.1 but not 12.10.0.
bool version_matches(const Version& request, const Version& candidate);

// The candidate closest to `target`: same major first, then the nearest minor, then patch;
// ties go to the newer one. Returns an index into `candidates`, or nullopt if empty.
std::optional<size_t> nearest_version(const Version& target, const std::vector<Version>& candidates);

// CUDA's integer form, as the CUDA_VERSION macro and cuDriverGetVersion give it: major * 1000 +
// minor * 10 (12040 is 12.4). None below 1000 (no major) and past major 999 (no CUDA).
std::optional<Version> version_from_cuda_number(long long number);

// An NVIDIA driver version as printed (550.54.14, 580.65.06): compared by number, shown as
// text. Doctor's probes, the shipped facts and `cudaenv torch` read it here.
struct DriverVersion {
  Version number;
  std::string text;
};

std::optional<DriverVersion> parse_driver_version(std::string_view text);

// A GPU compute capability (8.9, which nvcc calls sm_89): always exactly major.minor. Read
// three ways, all here: a plain major.minor (`cudaenv torch --arch`, the shipped facts), an arch
// entry as cuda.toml's arch and TORCH_CUDA_ARCH_LIST write it ("9.0a", "8.6+PTX"), and an nvcc
// arch name as torch's compiled arch list gives it ("sm_90a", "compute_90").
class ComputeCapability {
 public:
  ComputeCapability() = default;
  ComputeCapability(int major_part, int minor_part) : major_(major_part), minor_(minor_part) {}
  int major() const { return major_; }
  int minor() const { return minor_; }
  std::string str() const;  // "8.9"
  // NVIDIA's binary compatibility rule: native code for this arch runs on a GPU of `gpu`'s
  // capability when both have the same major and `gpu`'s minor is no lower (sm_86 on an 8.9).
  bool runs_on(const ComputeCapability& gpu) const { return major_ == gpu.major_ && minor_ <= gpu.minor_; }
  std::strong_ordering operator<=>(const ComputeCapability& other) const = default;
  bool operator==(const ComputeCapability& other) const = default;

 private:
  int major_ = 0;
  int minor_ = 0;
};

struct ArchEntry {
  ComputeCapability capability;
  char suffix = 0;   // 'a' (that GPU only), 'f' (its family), another letter, or none
  bool ptx = false;  // "+PTX" / compute_XY: PTX too, JIT-compiled for any newer GPU
};

// "8.9" -> 8.9; anything but two numbers is none.
std::optional<ComputeCapability> parse_compute_capability(std::string_view text);

// "8.9", "9.0a", "8.6+PTX" -> the entry; none for anything else.
std::optional<ArchEntry> parse_arch_entry(std::string_view text);

// "sm_86", "sm_90a", "sm_120", "compute_90" -> the entry (the last digit is the minor).
std::optional<ArchEntry> parse_nvcc_arch(std::string_view text);

// 8.9 -> "sm_89"
std::string sm_name(const ComputeCapability& capability);

}  // namespace cudaenv
