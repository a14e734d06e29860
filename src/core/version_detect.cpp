#include "core/version_detect.h"

#include <algorithm>
#include <string>

#include "core/settings_table.h"
#include "util/json_reader.h"
#include "util/strings.h"

namespace cudaenv {

std::optional<Version> version_from_version_json(std::string_view text) {
  auto root = JsonValue::parse(text, "version.json");
  if (!root) return std::nullopt;
  auto cuda = root->at("cuda");
  if (!cuda) return std::nullopt;
  auto version = cuda->string_at("version");
  if (!version) return std::nullopt;
  return parse_version(*version);
}

// Scanned by hand rather than with std::regex, whose matcher recurses once per character
// matched: a cuda.h or an nvcc printing a few MB of digits would overflow the stack.
namespace {

std::string_view leading_digits(std::string_view text) {
  return text.substr(0, std::min(text.size(), text.find_first_not_of("0123456789")));
}

// `text` after `word` and at least one space or tab; nullopt when they are not there.
std::optional<std::string_view> after_word(std::string_view text, std::string_view word) {
  if (!starts_with(text, word)) return std::nullopt;
  text.remove_prefix(word.size());
  size_t next = text.find_first_not_of(" \t");
  if (next == 0 || next == std::string_view::npos) return std::nullopt;
  return text.substr(next);
}

// "550.54.14" or "535.104": two or three dotted runs of digits, nothing else.
bool is_driver_version(std::string_view word) {
  std::vector<std::string> parts = split(word, '.');
  if (parts.size() < 2 || parts.size() > 3) return false;
  return std::all_of(parts.begin(), parts.end(),
                     [](const std::string& part) { return !part.empty() && leading_digits(part).size() == part.size(); });
}

}  // namespace

std::optional<Version> version_from_cuda_h(std::string_view text) {
  for (size_t at = text.find("#define"); at != std::string_view::npos; at = text.find("#define", at + 1)) {
    auto name = after_word(text.substr(at), "#define");
    auto value = name ? after_word(*name, "CUDA_VERSION") : std::nullopt;
    std::string_view digits = value ? leading_digits(*value) : std::string_view();
    if (digits.empty()) continue;
    auto number = parse_decimal(digits, 999999);
    return number ? version_from_cuda_number(static_cast<long long>(*number)) : std::nullopt;
  }
  return std::nullopt;
}

std::optional<Version> version_from_nvcc_banner(std::string_view text) {
  static constexpr std::string_view kRelease = "release ";
  for (size_t at = text.find(kRelease); at != std::string_view::npos; at = text.find(kRelease, at + 1)) {
    std::string_view rest = text.substr(at + kRelease.size());
    std::string_view major = leading_digits(rest);
    if (major.empty() || major.size() == rest.size() || rest[major.size()] != '.') continue;
    std::string_view minor = leading_digits(rest.substr(major.size() + 1));
    if (minor.empty()) continue;
    return parse_version(rest.substr(0, major.size() + 1 + minor.size()));
  }
  return std::nullopt;
}

std::optional<Version> shipped_toolkit_version(const FileSystemView& fs, const fs::path& home) {
  if (auto text = fs.read_file(home / "version.json")) {
    if (auto version = version_from_version_json(*text)) return version;
  }
  std::vector<fs::path> headers{home / "include/cuda.h"};
  for (const std::string& target : fs.list_dir(home / "targets")) headers.push_back(home / "targets" / target / "include/cuda.h");
  for (const fs::path& header : headers) {
    if (auto text = fs.read_file(header, kLargeFileLimit)) {
      if (auto version = version_from_cuda_h(*text)) return version;
    }
  }
  return std::nullopt;
}

std::optional<std::string> driver_version_from_proc_text(std::string_view text) {
  // The version is the first dotted number after "Kernel Module" (the open and the
  // proprietary module word the line differently; both put the version there).
  std::string first_line(text.substr(0, text.find('\n')));
  size_t module = first_line.find("Kernel Module");
  if (module == std::string::npos) return std::nullopt;
  for (const std::string& word : split(first_line.substr(module), ' ')) {
    if (is_driver_version(word)) return word;
  }
  return std::nullopt;
}

std::optional<DriverReading> read_driver_version(const FileSystemView& fs, const std::filesystem::path& root) {
  const std::filesystem::path sys_file = root / "sys/module/nvidia/version";
  if (auto text = fs.read_file(sys_file)) {
    std::string version(trim(*text));
    if (is_driver_version(version)) return DriverReading{version, sys_file};
  }
  const std::filesystem::path proc_file = root / "proc/driver/nvidia/version";
  if (auto text = fs.read_file(proc_file)) {
    if (auto version = driver_version_from_proc_text(*text)) return DriverReading{*version, proc_file};
  }
  return std::nullopt;
}

std::optional<Version> toolkit_cuda_version(const FileSystemView& fs, const Toolkit& toolkit) {
  return toolkit.version ? toolkit.version : shipped_toolkit_version(fs, toolkit.home);
}

Result<std::optional<DriverReading>> driver_override(const EnvMap& env) {
  Setting setting = env_setting(kDriverVersionSetting, env);
  if (setting.kind != OriginKind::environment) return std::optional<DriverReading>();
  const std::string* value = &setting.value;
  std::string version(trim(*value));
  if (!is_driver_version(version)) {
    return make_error(std::string(kDriverVersionSetting.variable) + "='" + *value + "' is not an NVIDIA driver version",
                      "write it as nvidia-smi prints it, e.g. " + std::string(kDriverVersionSetting.variable) +
                          "=580.65.06, or unset it to read this machine's driver");
  }
  return std::optional<DriverReading>(DriverReading{version, kDriverVersionSetting.variable});
}

Result<std::optional<DriverReading>> read_driver(const FileSystemView& fs, const EnvMap& env) {
  CUDAENV_TRY_ASSIGN(auto stand_in, driver_override(env));
  return stand_in ? stand_in : read_driver_version(fs);
}

}  // namespace cudaenv
