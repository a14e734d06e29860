#include "torch/matrix.h"

#include <toml++/toml.h>

#include <algorithm>
#include <set>

#include "core/settings_table.h"
#include "core/toml_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

class MatrixParser {
 public:
  MatrixParser(const std::filesystem::path& path, std::string_view text)
      : path_(path), reader_(path, text, "this file ships with cudaenv; restore it from the source tree or fix that line") {}

  Result<TorchMatrix> run() {
    CUDAENV_TRY_ASSIGN(auto parsed, reader_.parse());
    matrix_.path = path_;
    for (auto [key_in_file, node_in_file] : in_file_order(parsed)) {
      const toml::key& key = *key_in_file;
      toml::node& node = *node_in_file;
      Status status = ok_status();
      if (key.str() == "index_url") status = read_index_url(node);
      else if (key.str() == "driver") status = each_table(key, node, [this](toml::table& t) { return read_driver(t); });
      else if (key.str() == "deepspeed") status = read_deepspeed(key, node);
      else if (key.str() == "kernels") status = each_table(key, node, [this](toml::table& t) { return read_kernels(t); });
      else if (key.str() == "release") status = each_table(key, node, [this](toml::table& t) { return read_release(t); });
      else status = fail(key.source().begin, "unknown key '" + std::string(key.str()) + "'");
      if (!status) return status.take_error();
    }
    if (matrix_.index_url.empty()) return fail({1, 1}, "no index_url");
    if (matrix_.releases.empty()) return fail({1, 1}, "no [[release]] tables");
    std::sort(matrix_.releases.begin(), matrix_.releases.end(),
              [](const TorchRelease& a, const TorchRelease& b) { return a.torch < b.torch; });
    return std::move(matrix_);
  }

 private:
  Error fail(const toml::source_position& pos, const std::string& what) const { return reader_.error_at(pos, what); }

  template <class ReadTable>
  Status each_table(const toml::key& key, toml::node& node, ReadTable read) {
    auto* array = node.as_array();
    if (!array)
      return fail(key.source().begin, std::string(key.str()) + " must be an array of tables: [[" + std::string(key.str()) + "]]");
    for (toml::node& element : *array) {
      auto* table = element.as_table();
      if (!table) return fail(element.source().begin, "[[" + std::string(key.str()) + "]] entries must be tables");
      CUDAENV_TRY(read(*table));
    }
    return ok_status();
  }

  Status read_index_url(toml::node& node) {
    CUDAENV_TRY_ASSIGN(auto value, reader_.expect_string(node, "index_url"));
    matrix_.index_url = value;
    return ok_status();
  }

  Result<Version> version_of(const toml::node& node, size_t min_parts, size_t max_parts) {
    auto text = node.value<std::string>();
    auto version = text && node.is_string() ? parse_version(*text) : std::nullopt;
    if (!version || version->parts.size() < min_parts || version->parts.size() > max_parts) {
      std::string parts =
          min_parts == max_parts ? std::to_string(min_parts) : std::to_string(min_parts) + " to " + std::to_string(max_parts);
      return fail(node.source().begin, "'" + text.value_or("?") + "' is not a version of " + parts + " numbers");
    }
    return *version;
  }

  Result<Version> version_at(toml::table& table, std::string_view key, size_t min_parts, size_t max_parts) {
    toml::node* node = table.get(key);
    if (!node) return fail(table.source().begin, "missing key '" + std::string(key) + "'");
    return version_of(*node, min_parts, max_parts);
  }

  Result<ComputeCapability> capability_at(toml::table& table, std::string_view key) {
    toml::node* node = table.get(key);
    if (!node) return fail(table.source().begin, "missing key '" + std::string(key) + "'");
    auto text = node->value<std::string>();
    auto capability = text && node->is_string() ? parse_compute_capability(*text) : std::nullopt;
    if (!capability) return fail(node->source().begin, "'" + text.value_or("?") + "' is not a compute capability (major.minor)");
    return *capability;
  }

  // A non-empty array of major.minor CUDA versions.
  Result<std::vector<Version>> cuda_list(std::string_view key, toml::node& node) {
    auto* array = node.as_array();
    if (!array) return fail(node.source().begin, std::string(key) + " must be an array of strings");
    std::vector<Version> versions;
    for (toml::node& element : *array) {
      CUDAENV_TRY_ASSIGN(auto version, version_of(element, 2, 2));
      versions.push_back(version);
    }
    std::sort(versions.begin(), versions.end());
    return versions;
  }

  Status check_keys(toml::table& table, const std::set<std::string_view>& known) {
    for (auto [key, node] : in_file_order(table)) {
      if (!known.count(key->str())) return fail(key->source().begin, "unknown key '" + std::string(key->str()) + "'");
    }
    return ok_status();
  }

  Status read_driver(toml::table& table) {
    CUDAENV_TRY(check_keys(table, {"cuda_major", "min_driver"}));
    toml::node* major = table.get("cuda_major");
    if (!major || !major->is_integer()) return fail(table.source().begin, "[[driver]] needs an integer cuda_major");
    auto floor = version_at(table, "min_driver", 1, 3);
    if (!floor) return floor.take_error();
    matrix_.min_driver[static_cast<int>(*major->value<int64_t>())] = *table.get("min_driver")->value<std::string>();
    return ok_status();
  }

  Status read_deepspeed(const toml::key& key, toml::node& node) {
    auto* table = node.as_table();
    auto* tolerated = table ? table->get_as<toml::table>("minor_mismatch_ok") : nullptr;
    if (!tolerated || table->size() != 1) return fail(key.source().begin, "[deepspeed] holds only a minor_mismatch_ok table");
    for (auto&& [major, list] : *tolerated) {
      int major_number = static_cast<int>(parse_decimal(major.str(), 999).value_or(0));
      if (major_number <= 0) return fail(major.source().begin, "'" + std::string(major.str()) + "' is not a CUDA major");
      CUDAENV_TRY_ASSIGN(auto versions, cuda_list(major.str(), list));
      matrix_.deepspeed_minor_ok[major_number] = versions;
    }
    return ok_status();
  }

  Status read_kernels(toml::table& table) {
    CUDAENV_TRY(check_keys(table, {"cuda", "torch_from", "min_arch"}));
    KernelFloor floor;
    CUDAENV_TRY_ASSIGN(auto cuda, version_at(table, "cuda", 2, 2));
    CUDAENV_TRY_ASSIGN(auto from, version_at(table, "torch_from", 3, 3));
    CUDAENV_TRY_ASSIGN(auto arch, capability_at(table, "min_arch"));
    matrix_.kernel_floors.push_back({cuda, from, arch});
    return ok_status();
  }

  Status read_release(toml::table& table) {
    CUDAENV_TRY(check_keys(table, {"torch", "cuda", "experimental", "pypi_default", "torchvision", "torchaudio"}));
    TorchRelease release;
    CUDAENV_TRY_ASSIGN(auto torch, version_at(table, "torch", 3, 3));
    release.torch = torch;
    for (const TorchRelease& other : matrix_.releases) {
      if (other.torch == release.torch) return fail(table.source().begin, "torch " + release.torch.str() + " is listed twice");
    }
    toml::node* cuda = table.get("cuda");
    if (!cuda) return fail(table.source().begin, "missing key 'cuda'");
    CUDAENV_TRY_ASSIGN(auto variants, cuda_list("cuda", *cuda));
    if (variants.empty()) return fail(cuda->source().begin, "cuda lists no CUDA versions");
    release.cuda = variants;
    if (toml::node* experimental = table.get("experimental")) {
      CUDAENV_TRY_ASSIGN(auto listed, cuda_list("experimental", *experimental));
      for (const Version& version : listed) {
        if (std::find(release.cuda.begin(), release.cuda.end(), version) == release.cuda.end()) {
          return fail(experimental->source().begin, "experimental " + version.str() + " is not in cuda");
        }
      }
      release.experimental = listed;
    }
    CUDAENV_TRY_ASSIGN(auto pypi, version_at(table, "pypi_default", 2, 2));
    if (std::find(release.cuda.begin(), release.cuda.end(), pypi) == release.cuda.end()) {
      return fail(table.get("pypi_default")->source().begin, "pypi_default " + pypi.str() + " is not in cuda");
    }
    release.pypi_default = pypi;
    CUDAENV_TRY_ASSIGN(auto torchvision, version_at(table, "torchvision", 3, 3));
    release.torchvision = torchvision.str();
    if (table.contains("torchaudio")) {
      CUDAENV_TRY_ASSIGN(auto torchaudio, version_at(table, "torchaudio", 3, 3));
      release.torchaudio = torchaudio.str();
    }
    matrix_.releases.push_back(std::move(release));
    return ok_status();
  }

  std::filesystem::path path_;
  TomlReader reader_;
  TorchMatrix matrix_;
};

}  // namespace

Result<TorchMatrix> parse_torch_matrix(const std::filesystem::path& path, std::string_view text) {
  return MatrixParser(path, text).run();
}

Result<TorchMatrix> load_torch_matrix(const DataFiles& data) {
  CUDAENV_TRY_ASSIGN(auto file, data.read(kTorchMatrixFileName));
  return parse_torch_matrix(file.path, file.text);
}

Status use_index_base(TorchMatrix& matrix, const std::string& base) {
  if (base.empty()) return ok_status();
  std::string url = base;
  while (url.size() > 1 && url.back() == '/') url.pop_back();
  bool web = starts_with(url, "http://") || starts_with(url, "https://") || starts_with(url, "file://");
  if (!web || url.find_first_of(" \t\n\"'") != std::string::npos) {
    return make_error(std::string(kTorchIndexSetting.variable) + " '" + base + "' is not an http(s) or file:// URL",
                      "set it to the base of the wheel indexes, e.g. https://download.pytorch.org/whl "
                      "(the folder holding cu126/, cu130/, cpu/), or unset it",
                      ErrorKind::usage);
  }
  matrix.index_url = url;
  matrix.index_origin = kTorchIndexSetting.variable;
  return ok_status();
}

std::optional<ComputeCapability> oldest_kernel_arch(const TorchMatrix& matrix, const TorchRelease& release, const Version& cuda) {
  const KernelFloor* latest = nullptr;
  for (const KernelFloor& floor : matrix.kernel_floors) {
    if (floor.cuda != cuda || release.torch < floor.torch_from) continue;
    if (!latest || latest->torch_from < floor.torch_from) latest = &floor;
  }
  if (!latest) return std::nullopt;
  return latest->min_arch;
}

std::string cuda_variant_tag(const Version& cuda) { return "cu" + std::to_string(cuda.major()) + std::to_string(cuda.minor()); }

}  // namespace cudaenv
