#include "core/target.h"

#include <toml++/toml.h>

#include <algorithm>
#include <sstream>

#include "core/toml_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr size_t kMaxNameLength = 64;
// A GPU's name as a driver gives it is under 100 bytes; a longer one is no name.
constexpr size_t kMaxGpuNameLength = 256;
constexpr const char* kFix = "save it again with `cudaenv target save`, or fix it as docs/guide.md \"Targets\" shows";

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

class Parser {
 public:
  Parser(const fs::path& path, std::string_view text) : path_(path), reader_(path, text, kFix) {}

  Result<Target> run() {
    CUDAENV_TRY_ASSIGN(auto parsed, reader_.parse());
    target_.path = path_;
    target_.name = path_.stem().string();
    bool has_driver = false;
    for (auto [key, node] : in_file_order(parsed)) {
      std::string name(key->str());
      if (name == "saved_from") {
        CUDAENV_TRY_ASSIGN(target_.saved_from, reader_.expect_string(*node, "saved_from"));
      } else if (name == "driver") {
        CUDAENV_TRY(read_driver(*key, *node));
        has_driver = true;
      } else if (name == "gpus") {
        CUDAENV_TRY(read_gpus(*key, *node));
      } else {
        return reader_.error_at(key->source().begin, "unknown key '" + terminal_safe(name) + "'",
                                "a target file holds saved_from, [driver] and [[gpus]]; " + std::string(kFix));
      }
    }
    if (!has_driver) {
      return make_error(path_.string() + ": no [driver] version",
                        "write [driver] version = \"535.104.05\"; " + std::string(kFix));
    }
    return std::move(target_);
  }

 private:
  Status read_driver(const toml::key& key, toml::node& node) {
    auto* table = node.as_table();
    if (!table)
      return reader_.error_at(key.source().begin, "driver must be a table, not " + std::string(toml_type_name(node.type())));
    bool has_version = false;
    for (auto [k, v] : in_file_order(*table)) {
      std::string name(k->str());
      if (name == "version") {
        CUDAENV_TRY_ASSIGN(auto text, reader_.expect_string(*v, "[driver] version", "version", "\"535.104.05\""));
        auto version = parse_driver_version(text);
        if (!version) {
          return reader_.error_at(v->source().begin,
                                  "[driver] version \"" + terminal_safe(text) + "\" is not an NVIDIA driver version",
                                  "write it as the driver prints it, e.g. version = \"535.104.05\"");
        }
        target_.driver = *version;
        has_version = true;
      } else if (name == "cuda") {
        CUDAENV_TRY_ASSIGN(auto text, reader_.expect_string(*v, "[driver] cuda", "cuda", "\"12.2\""));
        auto version = parse_version(text);
        if (!version || version->parts.size() != 2 || version->major() < 1) {
          return reader_.error_at(v->source().begin, "[driver] cuda \"" + terminal_safe(text) + "\" is not a CUDA major.minor",
                                  "write the newest CUDA the driver runs, e.g. cuda = \"12.2\"");
        }
        target_.cuda = version;
      } else {
        return reader_.error_at(k->source().begin, "unknown key 'driver." + terminal_safe(name) + "'",
                                "[driver] holds version and cuda");
      }
    }
    if (!has_version) {
      return reader_.error_at(key.source().begin, "[driver] has no version", "write version = \"535.104.05\" under [driver]");
    }
    return ok_status();
  }

  Status read_gpus(const toml::key& key, toml::node& node) {
    auto* array = node.as_array();
    if (!array) {
      return reader_.error_at(key.source().begin,
                              "gpus must be an array of tables ([[gpus]]), not " + std::string(toml_type_name(node.type())));
    }
    if (array->size() > kMaxTargetGpus) {
      return reader_.error_at(key.source().begin, "gpus lists " + std::to_string(array->size()) + " GPUs, more than the " +
                                                      std::to_string(kMaxTargetGpus) + " any machine has");
    }
    for (toml::node& element : *array) {
      toml::table* table = element.as_table();
      if (!table) {
        return reader_.error_at(element.source().begin,
                                "a gpus entry must be a table ([[gpus]]), not " + std::string(toml_type_name(element.type())));
      }
      CUDAENV_TRY(read_gpu(element, *table));
    }
    return ok_status();
  }

  Status read_gpu(const toml::node& entry, toml::table& table) {
    TargetGpu gpu;
    bool has_capability = false;
    for (auto [k, v] : in_file_order(table)) {
      std::string name(k->str());
      if (name == "name") {
        CUDAENV_TRY_ASSIGN(gpu.name, reader_.expect_string(*v, "[[gpus]] name", "name", "\"NVIDIA A100-SXM4-80GB\""));
        if (gpu.name.size() > kMaxGpuNameLength) {
          return reader_.error_at(v->source().begin,
                                  "[[gpus]] name is " + std::to_string(gpu.name.size()) + " bytes long, more than a GPU's name");
        }
      } else if (name == "compute_capability") {
        CUDAENV_TRY_ASSIGN(auto text, reader_.expect_string(*v, "[[gpus]] compute_capability", "compute_capability", "\"8.0\""));
        auto capability = parse_compute_capability(text);
        if (!capability || capability->major() < 1 || capability->major() > 99 || capability->minor() > 9) {
          return reader_.error_at(v->source().begin,
                                  "[[gpus]] compute_capability \"" + terminal_safe(text) + "\" is not a compute capability",
                                  "write major.minor, e.g. compute_capability = \"8.0\" (an A100)");
        }
        gpu.capability = *capability;
        has_capability = true;
      } else {
        return reader_.error_at(k->source().begin, "unknown key 'gpus." + terminal_safe(name) + "'",
                                "[[gpus]] holds name and compute_capability");
      }
    }
    if (!has_capability) {
      return reader_.error_at(entry.source().begin, "a [[gpus]] entry has no compute_capability",
                              "write compute_capability = \"8.0\" in it");
    }
    target_.gpus.push_back(std::move(gpu));
    return ok_status();
  }

  fs::path path_;
  TomlReader reader_;
  Target target_;
};

}  // namespace

bool is_valid_target_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength || name[0] == '.' || name[0] == '-' || name[0] == '_') return false;
  return std::all_of(name.begin(), name.end(), is_name_char);
}

Error invalid_target_name(std::string_view name, const std::string& where) {
  return make_error(where + ": \"" + terminal_safe(name) + "\" is not a target name",
                    "use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit), e.g. a100");
}

Result<Target> parse_target(const fs::path& path, std::string_view text) { return Parser(path, text).run(); }

std::string render_target(const Target& target) {
  toml::table driver{{"version", target.driver.text}};
  if (target.cuda) driver.insert("cuda", target.cuda->str());
  toml::array gpus;
  for (const TargetGpu& gpu : target.gpus) {
    toml::table entry{{"compute_capability", gpu.capability.str()}};
    if (!gpu.name.empty()) entry.insert("name", gpu.name);
    gpus.push_back(std::move(entry));
  }
  toml::table root;
  if (!target.saved_from.empty()) root.insert("saved_from", target.saved_from);
  root.insert("driver", std::move(driver));
  if (!gpus.empty()) root.insert("gpus", std::move(gpus));
  std::ostringstream out;
  out << "# The GPU machine `" << target.name << "`: what cudaenv resolves for where it is selected\n"
      << "# ([target] name in cuda.toml, or CUDAENV_TARGET). See docs/guide.md \"Targets\".\n"
      << toml::toml_formatter(root) << "\n";
  return out.str();
}

std::vector<ComputeCapability> target_capabilities(const Target& target) {
  std::vector<ComputeCapability> capabilities;
  for (const TargetGpu& gpu : target.gpus) capabilities.push_back(gpu.capability);
  std::sort(capabilities.begin(), capabilities.end());
  capabilities.erase(std::unique(capabilities.begin(), capabilities.end()), capabilities.end());
  return capabilities;
}

std::vector<std::pair<std::string, std::string>> target_variables(const Target& target, const EnvMap& user_env,
                                                                  bool project_sets_arch) {
  std::vector<std::pair<std::string, std::string>> variables;
  std::vector<ComputeCapability> capabilities = target_capabilities(target);
  if (!capabilities.empty() && !project_sets_arch) {
    std::vector<std::string> torch, cmake;
    for (const ComputeCapability& capability : capabilities) {
      torch.push_back(capability.str());
      cmake.push_back(std::to_string(capability.major()) + std::to_string(capability.minor()));
    }
    variables.emplace_back("TORCH_CUDA_ARCH_LIST", join(torch, ";"));
    variables.emplace_back("CUDAARCHS", join(cmake, ";"));
  }
  variables.emplace_back("UV_CUDA_DRIVER_VERSION", target.driver.text);
  if (target.cuda) {
    variables.emplace_back("CONDA_OVERRIDE_CUDA", target.cuda->str());
    variables.emplace_back("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", target.cuda->str());
  }
  // The provider takes one capability, the machine's highest, as it would detect it.
  if (!capabilities.empty()) variables.emplace_back("NV_VARIANT_PROVIDER_FORCE_SM_ARCH", capabilities.back().str());
  std::erase_if(variables, [&](const auto& variable) { return env_get(user_env, variable.first).has_value(); });
  return variables;
}

}  // namespace cudaenv
