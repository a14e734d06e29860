#include "doctor/facts.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/data_dir.h"
#include "core/toml_reader.h"

namespace cudaenv {

namespace fs = std::filesystem;

bool CudaRelease::builds_for(const ComputeCapability& arch) const {
  return std::find(archs.begin(), archs.end(), arch) != archs.end();
}

bool CudaRelease::runs_on(const ComputeCapability& cc) const {
  return std::any_of(archs.begin(), archs.end(), [&](const ComputeCapability& arch) { return arch.runs_on(cc); });
}

const CudaRelease* CudaFacts::release(const Version& version) const {
  for (const CudaRelease& release : releases) {
    if (release.version == major_minor(version)) return &release;
  }
  return nullptr;
}

const CudaRelease* CudaFacts::first_building_for(const ComputeCapability& cc) const {
  for (const CudaRelease& release : releases) {
    if (release.builds_for(cc)) return &release;
  }
  return nullptr;
}

const CudaRelease* CudaFacts::last_building_for(const ComputeCapability& cc) const {
  for (auto it = releases.rbegin(); it != releases.rend(); ++it) {
    if (it->builds_for(cc)) return &*it;
  }
  return nullptr;
}

const CudaRelease* CudaFacts::newest_within(const Version& driver_cuda) const {
  const CudaRelease* best = nullptr;
  for (const CudaRelease& release : releases) {
    if (release.version <= major_minor(driver_cuda)) best = &release;
  }
  return best;
}

std::optional<Version> CudaFacts::torch_cuda_for(const ComputeCapability& cc) const {
  for (const auto& [capability, cuda] : torch_last_cuda) {
    if (cc <= capability) return cuda;
  }
  if (const CudaRelease* first = first_building_for(cc)) return first->version;
  return std::nullopt;
}

std::optional<Version> release_version(std::string_view text) {
  size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  while (end > 0 && text[end - 1] == '.') --end;
  return parse_version(text.substr(0, end));
}

const DeepSpeedList* CudaFacts::deepspeed_list(const std::optional<Version>& deepspeed) const {
  if (deepspeed_lists.empty()) return nullptr;
  if (!deepspeed) return &deepspeed_lists.back();
  const DeepSpeedList* found = nullptr;
  for (const DeepSpeedList& list : deepspeed_lists) {
    if (list.from <= *deepspeed) found = &list;
  }
  return found;
}

namespace {

bool list_tolerates(const DeepSpeedList& list, const Version& a, const Version& b) {
  auto minors = list.minor_ok.find(a.major());
  if (minors == list.minor_ok.end()) return false;
  auto listed = [&](const Version& v) {
    return std::find(minors->second.begin(), minors->second.end(), v) != minors->second.end();
  };
  return listed(a) && listed(b);
}

}  // namespace

bool CudaFacts::deepspeed_tolerates(const Version& nvcc, const Version& torch_cuda,
                                    const std::optional<Version>& deepspeed) const {
  Version a = major_minor(nvcc), b = major_minor(torch_cuda);
  if (a == b) return true;
  const DeepSpeedList* list = deepspeed_list(deepspeed);
  return list && list_tolerates(*list, a, b);
}

std::optional<Version> CudaFacts::deepspeed_first_tolerating(const Version& nvcc, const Version& torch_cuda) const {
  for (const DeepSpeedList& list : deepspeed_lists) {
    if (list_tolerates(list, major_minor(nvcc), major_minor(torch_cuda))) return list.from;
  }
  return std::nullopt;
}

std::optional<int> CudaFacts::torch_gcc_max(const Version& torch, const Version& cuda) const {
  std::optional<int> bound;
  for (const TorchGccBounds& row : torch_gcc) {
    if (row.from > torch) break;
    if (auto it = row.gcc_max.find(major_minor(cuda)); it != row.gcc_max.end()) bound = it->second;
  }
  return bound;
}

namespace {

class FactsParser {
 public:
  FactsParser(const fs::path& path, std::string_view text)
      : path_(path), reader_(path, text, "reinstall cudaenv; this file ships with it") {}

  Result<CudaFacts> run() {
    CUDAENV_TRY_ASSIGN(auto parsed, reader_.parse());
    toml::table& root = parsed;
    CUDAENV_TRY(read_releases(root));
    CUDAENV_TRY(read_named_arches(root));
    CUDAENV_TRY(read_torch_rules(root));
    CUDAENV_TRY(read_deepspeed(root));
    toml::node* integrated = root["integrated_archs"].node();
    if (!integrated) return bad("integrated_archs is missing");
    CUDAENV_TRY_ASSIGN(auto integrated_archs, capabilities(*integrated, "integrated_archs"));
    facts_.integrated_archs = std::move(integrated_archs);
    return std::move(facts_);
  }

 private:
  Error bad(const std::string& what) const {
    return make_error(path_.string() + ": " + what, "reinstall cudaenv; this file ships with it");
  }

  Result<std::vector<std::string>> strings(toml::node& node, const std::string& what) {
    return reader_.expect_string_array(node, what);
  }

  // The array's strings, each read by `parse`; `kind` says what a bad one is not.
  template <class Parse>
  auto each_parsed(toml::node& node, const std::string& what, Parse parse, const char* kind)
      -> Result<std::vector<typename decltype(parse(std::string_view()))::value_type>> {
    CUDAENV_TRY_ASSIGN(auto texts, strings(node, what));
    std::vector<typename decltype(parse(std::string_view()))::value_type> out;
    for (const std::string& text : texts) {
      auto value = parse(text);
      if (!value) return bad(what + ": '" + text + "' is not " + kind);
      out.push_back(*value);
    }
    return out;
  }

  Result<std::vector<Version>> versions(toml::node& node, const std::string& what) {
    return each_parsed(
        node, what, [](std::string_view text) { return parse_version(text); }, "a version");
  }

  Result<std::vector<ComputeCapability>> capabilities(toml::node& node, const std::string& what) {
    return each_parsed(
        node, what, [](std::string_view text) { return parse_compute_capability(text); }, "a compute capability (major.minor)");
  }

  Result<DriverVersion> driver_at(toml::node& table_node, const std::string& where) {
    toml::table* table = table_node.as_table();
    auto text = table ? (*table)["driver"].value<std::string>() : std::nullopt;
    auto version = text ? parse_driver_version(*text) : std::nullopt;
    if (!version) return bad(where + ".driver must be a driver version string");
    return *version;
  }

  Status read_releases(toml::table& root) {
    toml::table* cuda = root["cuda"].as_table();
    if (!cuda) return bad("no [cuda] table");
    for (auto&& [key, node] : *cuda) {
      std::string where = "cuda." + std::string(key.str());
      auto version = parse_version(key.str());
      toml::table* table = node.as_table();
      if (!version || version->parts.size() != 2 || !table) return bad(where + " must be a table named major.minor");
      CudaRelease release{*version, std::nullopt, std::nullopt, std::nullopt, {}};
      if (table->contains("driver")) {
        CUDAENV_TRY_ASSIGN(auto driver, driver_at(node, where));
        release.driver = driver;
      }
      if (auto gcc = (*table)["gcc_max"].value<int64_t>()) release.gcc_max = static_cast<int>(*gcc);
      if (auto clang = (*table)["clang_max"].value<int64_t>()) release.clang_max = static_cast<int>(*clang);
      toml::node* archs_node = (*table)["archs"].node();
      if (!archs_node) return bad(where + ".archs is missing");
      CUDAENV_TRY_ASSIGN(auto archs, capabilities(*archs_node, where + ".archs"));
      release.archs = std::move(archs);
      facts_.releases.push_back(std::move(release));
    }
    std::sort(facts_.releases.begin(), facts_.releases.end(),
              [](const CudaRelease& a, const CudaRelease& b) { return a.version < b.version; });
    return ok_status();
  }

  Status read_named_arches(toml::table& root) {
    toml::table* torch = root["torch"].as_table();
    toml::table* named = torch ? (*torch)["named_arches"].as_table() : nullptr;
    if (!named) return bad("no [torch.named_arches] table");
    for (auto&& [key, node] : *named) {
      CUDAENV_TRY_ASSIGN(auto list, strings(node, "torch.named_arches." + std::string(key.str())));
      facts_.named_arches[std::string(key.str())] = std::move(list);
    }
    toml::table* last = (*torch)["last_cuda_for_capability"].as_table();
    if (!last) return bad("no [torch.last_cuda_for_capability] table");
    for (auto&& [key, node] : *last) {
      auto capability = parse_compute_capability(key.str());
      auto cuda = node.value<std::string>() ? parse_version(*node.value<std::string>()) : std::nullopt;
      if (!capability || !cuda) return bad("torch.last_cuda_for_capability: compute capabilities = CUDA versions expected");
      facts_.torch_last_cuda[*capability] = *cuda;
    }
    return ok_status();
  }

  Result<Version> version_at(toml::table& table, const char* key, const std::string& where) {
    auto text = table[key].value<std::string>();
    auto version = text ? parse_version(*text) : std::nullopt;
    if (!version) return bad(where + "." + key + " must be a version string");
    return *version;
  }

  // Each table of the array `parent.key` ([[where]]): its `from` version and its other keys,
  // handed to `read(from, key, value)`, which returns an error or adds them up.
  template <class Read>
  Status read_rows(toml::table& parent, const char* key, const std::string& where, Read read) {
    toml::array* rows = parent[key].as_array();
    if (!rows) return bad("no [[" + where + "]]");
    for (toml::node& node : *rows) {
      toml::table* row = node.as_table();
      if (!row) return bad("[[" + where + "]] must be tables");
      CUDAENV_TRY_ASSIGN(auto from, version_at(*row, "from", where));
      CUDAENV_TRY(read(from, *row));
    }
    return ok_status();
  }

  // [torch] supported_arches and [[torch.gcc_bounds]]
  Status read_torch_rules(toml::table& root) {
    toml::table* torch = root["torch"].as_table();
    toml::node* supported = torch ? (*torch)["supported_arches"].node() : nullptr;
    if (!supported) return bad("torch.supported_arches is missing");
    CUDAENV_TRY_ASSIGN(auto arches, strings(*supported, "torch.supported_arches"));
    facts_.torch_supported_arches = std::move(arches);
    return read_rows(*torch, "gcc_bounds", "torch.gcc_bounds", [&](const Version& from, toml::table& row) -> Status {
      TorchGccBounds bounds{from, {}};
      for (auto&& [key, value] : row) {
        if (key.str() == "from") continue;
        auto cuda = parse_version(key.str());
        auto gcc = value.value<int64_t>();
        if (!cuda || !gcc) return bad("torch.gcc_bounds: '" + std::string(key.str()) + "' must be a CUDA version = a gcc major");
        bounds.gcc_max[major_minor(*cuda)] = static_cast<int>(*gcc);
      }
      facts_.torch_gcc.push_back(std::move(bounds));
      return ok_status();
    });
  }

  // [deepspeed] and [[deepspeed.older_lists]]; the newest list comes from pytorch.toml.
  Status read_deepspeed(toml::table& root) {
    toml::table* deepspeed = root["deepspeed"].as_table();
    if (!deepspeed) return bad("no [deepspeed] table");
    CUDAENV_TRY_ASSIGN(auto newest, version_at(*deepspeed, "newest_list_from", "deepspeed"));
    CUDAENV_TRY_ASSIGN(auto skip, version_at(*deepspeed, "skip_check_from", "deepspeed"));
    facts_.deepspeed_skip_from = skip;
    CUDAENV_TRY(
        read_rows(*deepspeed, "older_lists", "deepspeed.older_lists", [&](const Version& from, toml::table& row) -> Status {
          DeepSpeedList list{from, {}};
          for (auto&& [key, value] : row) {
            if (key.str() == "from") continue;
            int major = 0;
            auto [end, ec] = std::from_chars(key.str().data(), key.str().data() + key.str().size(), major);
            if (ec != std::errc{} || end != key.str().data() + key.str().size()) {
              return bad("deepspeed.older_lists: '" + std::string(key.str()) + "' must be a CUDA major");
            }
            CUDAENV_TRY_ASSIGN(auto minors, versions(value, "deepspeed.older_lists." + std::string(key.str())));
            list.minor_ok[major] = std::move(minors);
          }
          facts_.deepspeed_lists.push_back(std::move(list));
          return ok_status();
        }));
    std::sort(facts_.deepspeed_lists.begin(), facts_.deepspeed_lists.end(),
              [](const DeepSpeedList& a, const DeepSpeedList& b) { return a.from < b.from; });
    if (!facts_.deepspeed_lists.empty() && facts_.deepspeed_lists.back().from >= newest) {
      return bad("deepspeed.newest_list_from must be newer than every older list");
    }
    // Its minors are pytorch.toml's, filled in by adopt_torch_matrix.
    facts_.deepspeed_lists.push_back(DeepSpeedList{newest, {}});
    return ok_status();
  }

  fs::path path_;
  TomlReader reader_;
  CudaFacts facts_;
};

}  // namespace

Result<CudaFacts> parse_cuda_facts(const fs::path& path, std::string_view text) { return FactsParser(path, text).run(); }

Status adopt_torch_matrix(CudaFacts& facts, const TorchMatrix& matrix) {
  for (const auto& [major, text] : matrix.min_driver) {
    auto driver = parse_driver_version(text);
    if (!driver) return make_error(matrix.path.string() + ": '" + text + "' is not a driver version");
    facts.family_driver[major] = *driver;
  }
  if (facts.deepspeed_lists.empty()) return make_error("cuda-facts.toml has no [deepspeed] lists");
  facts.deepspeed_lists.back().minor_ok = matrix.deepspeed_minor_ok;
  facts.torch_matrix = matrix;
  return ok_status();
}

Result<CudaFacts> load_cuda_facts(const DataFiles& data) {
  CUDAENV_TRY_ASSIGN(auto file, data.read("cuda-facts.toml"));
  auto facts = parse_cuda_facts(file.path, file.text);
  if (!facts) return facts;
  CUDAENV_TRY_ASSIGN(auto matrix, load_torch_matrix(data));
  CUDAENV_TRY(adopt_torch_matrix(*facts, matrix));
  CUDAENV_TRY_ASSIGN(auto extensions, load_extension_catalog(data));
  facts->extensions = std::move(extensions);
  return facts;
}

}  // namespace cudaenv
