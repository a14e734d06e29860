#include "torch/render.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "util/json_reader.h"
#include "util/strings.h"

namespace cudaenv {

// --json keeps the fields in the order written here, as every --json does.
using json = nlohmann::ordered_json;

namespace {

const std::vector<std::string>& known_packages() {
  static const std::vector<std::string> names{"torch", "torchvision", "torchaudio"};
  return names;
}

// The index wheels for Linux and Windows carry the local tag; the macOS ones (PyPI's, or the
// cpu index's) do not, so a project locked on every platform pins the public release there.
constexpr const char* kTaggedPlatforms = "sys_platform == 'linux' or sys_platform == 'win32'";
constexpr const char* kUntaggedPlatforms = "sys_platform == 'darwin'";

// The CUDA indexes hold Linux and Windows wheels only; macOS resolves from PyPI (uv's guide).
std::string source_marker(const TorchInstall& install) {
  return install.index_name == "pytorch-cpu" ? "" : std::string(", marker = \"") + kTaggedPlatforms + "\"";
}

json optional_json(const std::optional<std::string>& text) { return text ? json(*text) : json(nullptr); }

json optional_json(const std::optional<Version>& version) {
  return optional_json(version ? std::optional<std::string>(version->str()) : std::nullopt);
}

// "pip install <pins> --index-url <url>": what every command form shares.
std::string install_arguments(const TorchInstall& install) {
  std::string command = "pip install";
  for (const TorchPin& pin : install.pins) command += " " + pin_text(pin);
  return command + " --index-url " + install.index_url;
}

}  // namespace

std::string pin_text(const TorchPin& pin) { return pin.package + "==" + pin.version + "+" + pin.local; }

Result<std::vector<std::string>> parse_torch_packages(std::string_view list) {
  std::vector<std::string> wanted;
  for (const std::string& item : split(list, ',')) {
    std::string name(trim(item));
    if (std::find(known_packages().begin(), known_packages().end(), name) == known_packages().end()) {
      std::string hint = "choose from torch, torchvision, torchaudio";
      if (auto guess = closest_word(name, known_packages())) hint = "did you mean " + *guess + "? " + hint;
      return make_error("--packages: '" + name + "' is not one of cudaenv torch's packages", hint, ErrorKind::usage);
    }
    wanted.push_back(name);
  }
  std::vector<std::string> ordered;
  for (const std::string& name : known_packages()) {
    if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) ordered.push_back(name);
  }
  return ordered;
}

Result<TorchInstall> plan_torch_install(const TorchMatrix& matrix, const TorchChoice& choice,
                                        const std::vector<std::string>& packages, bool packages_named) {
  TorchInstall install;
  std::string tag = choice.variant ? cuda_variant_tag(*choice.variant) : "cpu";
  install.index_name = "pytorch-" + tag;
  install.index_url = matrix.index_url + "/" + tag;
  install.index_origin = matrix.index_origin;
  const TorchRelease& release = choice.release;
  for (const std::string& package : packages) {
    std::optional<std::string> version;
    if (package == "torch") version = release.torch.str();
    else if (package == "torchvision" && !release.torchvision.empty()) version = release.torchvision;
    else if (package == "torchvision") version = std::nullopt;
    else version = release.torchaudio;
    if (version) {
      install.pins.push_back({package, *version, tag});
      continue;
    }
    std::string why =
        package + " has no release for torch " + release.torch.str() +
        (package == "torchaudio"
             ? " (torchaudio 2.11 is built on the stable ABI and works with later torch, where the index carries it)"
             : " that cudaenv knows (no torchvision wheel on the index requires it)");
    if (packages_named) return make_error(why, "leave it out of --packages", ErrorKind::usage);
    install.notes.push_back(why + "; left out");
  }
  return install;
}

std::string render_command(Installer installer, const TorchInstall& install) {
  return (installer == Installer::uv ? "uv " : "") + install_arguments(install);
}

Result<TorchReinstall> reinstall_command(const TorchMatrix& matrix, const TorchQuery& query, const std::string& python) {
  CUDAENV_TRY_ASSIGN(auto choice, choose_torch(matrix, query));
  CUDAENV_TRY_ASSIGN(auto install, plan_torch_install(matrix, choice, known_packages(), false));
  return TorchReinstall{shell_word(python) + " -m " + install_arguments(install), choice.match};
}

std::string render_requirements(const TorchInstall& install) {
  std::string text = "--index-url " + install.index_url + "\n";
  for (const TorchPin& pin : install.pins) text += pin_text(pin) + "\n";
  return text;
}

std::string render_pyproject(const TorchInstall& install) {
  std::string text =
      "# Merge into pyproject.toml: uv takes these packages from " + install.index_url +
      " only\n# (the index is explicit, so every other package still comes from PyPI).\n[project]\ndependencies = [\n";
  for (const TorchPin& pin : install.pins) {
    text += "  " + json_quote(pin_text(pin) + "; " + kTaggedPlatforms) + ",\n";
    text += "  " + json_quote(pin.package + "==" + pin.version + "; " + kUntaggedPlatforms) + ",\n";
  }
  text += "]\n\n[[tool.uv.index]]\nname = " + json_quote(install.index_name) + "\nurl = " + json_quote(install.index_url) +
          "\nexplicit = true\n\n[tool.uv.sources]\n";
  for (const TorchPin& pin : install.pins) {
    text += pin.package + " = [{ index = " + json_quote(install.index_name) + source_marker(install) + " }]\n";
  }
  return text;
}

std::string render_json(const TorchReport& report) {
  const TorchChoice& choice = report.choice;
  const TorchQuery& query = report.query;
  json packages = json::object();
  for (const TorchPin& pin : report.install.pins) packages[pin.package] = pin.version + "+" + pin.local;
  std::vector<std::string> variants;
  for (const Version& variant : choice.release.cuda) variants.push_back(cuda_variant_tag(variant));
  std::vector<std::string> requirements = split(render_requirements(report.install), '\n');
  requirements.pop_back();
  json out = {
      {"torch", choice.release.torch.str()},
      {"torchvision", choice.release.torchvision},
      {"torchaudio", optional_json(choice.release.torchaudio)},
      {"packages", packages},
      {"match", match_label(choice.match)},
      {"variant", choice.variant ? cuda_variant_tag(*choice.variant) : "cpu"},
      {"variant_cuda", optional_json(choice.variant)},
      {"release_variants", variants},
      {"pypi_default", cuda_variant_tag(choice.release.pypi_default)},
      {"release_python_tags", choice.release.python_tags},
      {"release_platforms", choice.release.platforms},
      {"variant_is_pypi_default", choice.variant && *choice.variant == choice.release.pypi_default},
      {"cuda", query.cpu ? json(nullptr) : optional_json(query.cuda)},
      {"cuda_origin", query.cpu ? json(nullptr) : json(query.cuda_origin)},
      {"torch_request", optional_json(query.torch)},
      {"torch_origin", query.torch_origin},
      {"driver", optional_json(query.driver)},
      {"driver_origin", query.driver ? json(query.driver_origin) : json(nullptr)},
      {"min_driver", optional_json(choice.min_driver)},
      {"index_name", report.install.index_name},
      {"index_url", report.install.index_url},
      {"installer", report.installer == Installer::uv ? "uv" : "pip"},
      {"command", render_command(report.installer, report.install)},
      {"requirements", requirements},
      {"origins",
       {{"release", choice.release.origin},
        {"release_variants", choice.release.origin},
        {"torchvision", choice.release.pairing_origin},
        {"torchaudio", choice.release.pairing_origin},
        {"index_url", report.install.index_origin}}},
      {"warnings", choice.warnings},
      {"notes", choice.notes},
  };
  for (const std::string& note : report.install.notes) out["notes"].push_back(note);
  return json_text(out);
}

}  // namespace cudaenv
