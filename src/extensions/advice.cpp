#include "extensions/advice.h"

#include <algorithm>
#include <cmath>

#include "util/strings.h"

namespace cudaenv {

namespace {

std::string replace_all(std::string text, std::string_view from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// For a package the catalog does not list: the figure of the heavier packages it does.
constexpr double kUnknownJobMemoryGb = 8;

std::string torch_minor(const Version& torch) { return std::to_string(torch.major()) + "." + std::to_string(torch.minor()); }

// "for torch 2.15 with CUDA 13 (cxx11abiTRUE, cp312, linux_x86_64)": what the wheel's name encodes.
std::string wheel_fit(const ExtensionTarget& target) {
  std::string text = "for torch " + torch_minor(target.torch);
  if (target.cuda) text += " with CUDA " + std::to_string(target.cuda->major());
  text += std::string(" (cxx11abi") + (target.cxx11_abi ? "TRUE" : "FALSE");
  if (!target.python_tag.empty()) text += ", " + target.python_tag;
  return text + ", " + target.platform + ")";
}

std::string version_or_latest(const ExtensionEntry& entry, const ExtensionRequest& request) {
  return request.version.value_or(entry.latest);
}

// TORCH_CUDA_ARCH_LIST as torch's cpp_extension reads it: "8.0;9.0".
std::string arch_list(const std::vector<ComputeCapability>& archs) {
  std::vector<ComputeCapability> sorted = archs;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<std::string> names;
  for (const ComputeCapability& arch : sorted) names.push_back(arch.str());
  return join(names, ";");
}

BuildPlan build_plan(const ExtensionEntry& entry, const std::optional<std::string>& version, const ExtensionTarget& target) {
  BuildPlan plan;
  plan.cuda = major_minor(*target.cuda);
  plan.install_toolkit = !target.toolkit_installed;
  plan.env.emplace_back("MAX_JOBS", std::to_string(max_jobs(entry.job_memory_gb, target.memory_available, target.cores)));
  if (!target.archs.empty()) plan.env.emplace_back("TORCH_CUDA_ARCH_LIST", arch_list(target.archs));
  for (const auto& variable : entry.build_env) plan.env.push_back(variable);
  bool versioned = entry.source.find("{version}") != std::string::npos;
  std::string source = entry.source;
  if (versioned && version) source = replace_all(source, "{version}", *version);
  else if (versioned) source = entry.name;  // no release known: the newest sdist
  else if (version && source == entry.name) source += "==" + *version;
  plan.requirement = source;
  plan.options.push_back("--no-build-isolation");
  if (target.reinstall) {
    for (const char* option : {"--force-reinstall", "--no-deps", "--no-cache-dir"}) plan.options.push_back(option);
  }
  for (const std::string& option : entry.build_options) plan.options.push_back(option);
  return plan;
}

ExtensionAdvice build_advice(const ExtensionEntry& entry, const std::optional<std::string>& version,
                             const ExtensionTarget& target, std::string why) {
  ExtensionAdvice advice;
  advice.package = entry.name;
  advice.why = std::move(why);
  if (!target.cuda) {
    advice.why += "; and a source build needs a CUDA build of torch, this one is for the CPU";
    return advice;
  }
  advice.kind = AdviceKind::build;
  advice.build = build_plan(entry, version, target);
  return advice;
}

std::string label(const ExtensionEntry& entry, const std::optional<std::string>& version) {
  return entry.name + (version ? " " + *version : "");
}

ExtensionAdvice advise_wheel(const ExtensionEntry& entry, const ExtensionRequest& request, const ExtensionTarget& target,
                             const WheelAnswers& answers) {
  std::string version = version_or_latest(entry, request);
  std::string name = label(entry, version);
  if (!target.cuda) return build_advice(entry, version, target, "no " + name + " wheel for a CPU build of torch");
  if (target.python_tag.empty()) {
    return build_advice(
        entry, version, target,
        "no Python interpreter said its CPython tag, which " + entry.name + "'s wheel names carry (pass --python)");
  }
  std::string url = *fitting_wheel_url(entry, version, target);
  auto answer = answers.find(url);
  WheelPresence presence = answer == answers.end() ? WheelPresence::unknown : answer->second.presence;
  if (presence == WheelPresence::present) {
    ExtensionAdvice advice;
    advice.package = entry.name;
    advice.kind = AdviceKind::wheel;
    advice.requirement = url;
    advice.why = "the prebuilt " + name + " wheel " + wheel_fit(target);
    return advice;
  }
  if (presence == WheelPresence::absent)
    return build_advice(entry, version, target, "no " + name + " wheel " + wheel_fit(target));
  std::string reason = answer == answers.end() ? "not asked" : answer->second.why;
  ExtensionAdvice advice = build_advice(
      entry, version, target, "cannot tell whether " + url_origin(url) + " has the " + name + " wheel " + wheel_fit(target));
  advice.unreachable.push_back(url + ": " + reason);
  return advice;
}

ExtensionAdvice advise_pypi(const ExtensionEntry& entry, const ExtensionRequest& request, const ExtensionTarget& target) {
  ExtensionAdvice advice;
  advice.package = entry.name;
  const PinnedRelease* pinned = nullptr;
  for (const PinnedRelease& release : entry.releases) {
    if (!request.version || release.version == *request.version) {
      pinned = &release;
      break;
    }
  }
  std::string version = pinned ? pinned->version : request.version.value_or("");
  std::string name = label(entry, pinned || request.version ? std::optional<std::string>(version) : std::nullopt);
  if (pinned && pinned->torch != target.torch) {
    advice = build_advice(entry, version, target,
                          name + "'s wheels require torch " + pinned->torch.str() + "; this torch is " + target.torch.str());
    advice.torch_required = pinned->torch;
    return advice;
  }
  if (pinned && target.cuda && pinned->cuda_major != target.cuda->major()) {
    return build_advice(entry, version, target,
                        name + "'s wheels are built for CUDA " + std::to_string(pinned->cuda_major) + "; torch uses CUDA " +
                            major_minor(*target.cuda).str());
  }
  advice.kind = AdviceKind::pypi;
  advice.requirement = entry.name + (version.empty() ? "" : "==" + version);
  advice.why = name + " from PyPI";
  return advice;
}

ExtensionAdvice advise_index(const ExtensionEntry& entry, const ExtensionRequest& request, const ExtensionTarget& target) {
  ExtensionAdvice advice;
  advice.package = entry.name;
  advice.kind = AdviceKind::pytorch_index;
  advice.requirement = entry.name;
  if (request.version) {
    advice.requirement += "==" + *request.version;
    std::string tag = target.index_url.substr(target.index_url.rfind('/') + 1);
    if (entry.local_tag && request.version->find('+') == std::string::npos) advice.requirement += "+" + tag;
  }
  advice.why = label(entry, request.version) + " from " + target.index_url + ", beside torch";
  return advice;
}

}  // namespace

Result<std::vector<ExtensionRequest>> parse_extension_requests(const ExtensionCatalog& catalog, std::string_view list) {
  std::vector<ExtensionRequest> requests;
  for (const std::string& item : split(list, ',')) {
    std::string text(trim(item));
    size_t pin = text.find("==");
    std::string name(trim(text.substr(0, pin)));
    ExtensionRequest request;
    if (pin != std::string::npos) {
      std::string version(trim(text.substr(pin + 2)));
      bool plain = !version.empty() &&
                   version.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz.+-_") == std::string::npos &&
                   std::isdigit(static_cast<unsigned char>(version[0]));
      if (!plain) {
        return make_error("--with: '" + text + "' does not name a release", "write PKG or PKG==VERSION, e.g. flash-attn==2.8.3",
                          ErrorKind::usage);
      }
      request.version = version;
    }
    const ExtensionEntry* entry = catalog.find(name);
    if (!entry) {
      std::string hint = "cudaenv knows " + join(catalog.names(), ", ") + " (" + catalog.path.string() + ")";
      if (auto guess = closest_word(normalize_project_name(name), catalog.names())) hint = "did you mean " + *guess + "? " + hint;
      return make_error("--with: '" + name + "' is not an extension cudaenv knows", hint, ErrorKind::usage);
    }
    request.name = entry->name;
    if (std::any_of(requests.begin(), requests.end(), [&](const ExtensionRequest& r) { return r.name == request.name; })) {
      return make_error("--with names " + request.name + " twice", "name each package once", ErrorKind::usage);
    }
    requests.push_back(request);
  }
  return requests;
}

std::optional<std::string> fitting_wheel_url(const ExtensionEntry& entry, const std::string& version,
                                             const ExtensionTarget& target) {
  if (entry.wheel.empty() || !target.cuda || target.python_tag.empty() || version.empty()) return std::nullopt;
  std::string url = entry.wheel;
  url = replace_all(url, "{version}", version);
  url = replace_all(url, "{cuda_major}", std::to_string(target.cuda->major()));
  url = replace_all(url, "{torch_minor}", torch_minor(target.torch));
  url = replace_all(url, "{cxx11abi}", target.cxx11_abi ? "TRUE" : "FALSE");
  url = replace_all(url, "{python}", target.python_tag);
  url = replace_all(url, "{platform}", target.platform);
  if (target.mirror.empty()) return url;
  std::string base = target.mirror;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + url.substr(url.rfind('/'));
}

std::vector<std::string> wanted_wheels(const ExtensionCatalog& catalog, const std::vector<ExtensionRequest>& requests,
                                       const ExtensionTarget& target) {
  std::vector<std::string> urls;
  for (const ExtensionRequest& request : requests) {
    const ExtensionEntry* entry = catalog.find(request.name);
    if (!entry || entry->kind != Publishing::wheels) continue;
    if (auto url = fitting_wheel_url(*entry, version_or_latest(*entry, request), target)) urls.push_back(*url);
  }
  return urls;
}

std::string render_fix(const std::string& pip, const std::string& index_url, const ExtensionAdvice& advice) {
  if (advice.build) return render_build(pip, *advice.build);
  if (advice.requirement.empty()) return {};
  std::string text = pip + " install --force-reinstall --no-deps " + shell_word(advice.requirement);
  if (advice.kind == AdviceKind::pytorch_index) text += " --index-url " + index_url;
  return text;
}

std::optional<Version> required_torch(const ExtensionCatalog& catalog, const ExtensionRequest& request) {
  const ExtensionEntry* entry = catalog.find(request.name);
  if (!entry) return std::nullopt;
  for (const PinnedRelease& release : entry->releases) {
    if (!request.version || release.version == *request.version) return release.torch;
  }
  return std::nullopt;
}

ExtensionAdvice advise(const ExtensionEntry& entry, const ExtensionRequest& request, const ExtensionTarget& target,
                       const WheelAnswers& answers) {
  switch (entry.kind) {
    case Publishing::pytorch_index: return advise_index(entry, request, target);
    case Publishing::wheels: return advise_wheel(entry, request, target, answers);
    case Publishing::pypi: return advise_pypi(entry, request, target);
    case Publishing::source: break;
  }
  return build_advice(entry, request.version, target, entry.name + " publishes no wheels: a source build");
}

ExtensionEntry entry_for(const ExtensionCatalog& catalog, const std::string& name) {
  if (const ExtensionEntry* known = catalog.find(name)) return *known;
  ExtensionEntry entry;
  entry.name = normalize_project_name(name);
  entry.kind = Publishing::source;
  entry.source = entry.name + "=={version}";
  entry.job_memory_gb = kUnknownJobMemoryGb;
  return entry;
}

unsigned max_jobs(double job_memory_gb, const std::optional<std::uint64_t>& memory_available, unsigned cores) {
  if (!memory_available || job_memory_gb <= 0) return 1;
  double gigabytes = static_cast<double>(*memory_available) / (1024.0 * 1024.0 * 1024.0);
  double fits = std::floor(gigabytes / job_memory_gb);
  unsigned jobs = fits < 1 ? 1u : fits > 4096 ? 4096u : static_cast<unsigned>(fits);
  return std::max(1u, std::min(jobs, std::max(1u, cores)));
}

std::string render_build(const std::string& pip, const BuildPlan& build) {
  std::string cuda = build.cuda.str();
  std::string text = build.install_toolkit ? "cudaenv install " + cuda + " && " : "";
  text += "cudaenv exec --cuda " + cuda + " -- env";
  for (const auto& [name, value] : build.env) text += " " + name + "=" + shell_word(value);
  text += " " + pip + " install";
  for (const std::string& option : build.options) text += " " + shell_word(option);
  return text + " " + shell_word(build.requirement);
}

std::string render_with(const std::string& pip, const std::vector<std::string>& torch_pins, const std::string& index_url,
                        const std::vector<ExtensionAdvice>& advice) {
  std::string text = pip + " install";
  for (const std::string& pin : torch_pins) text += " " + pin;
  bool from_pypi = false;
  for (const ExtensionAdvice& item : advice) {
    if (item.requirement.empty()) continue;
    text += " " + shell_word(item.requirement);
    from_pypi = from_pypi || item.kind == AdviceKind::wheel || item.kind == AdviceKind::pypi;
  }
  text += (from_pypi ? " --extra-index-url " : " --index-url ") + index_url;
  for (const ExtensionAdvice& item : advice) {
    if (item.build) text += " && " + render_build(pip, *item.build);
  }
  return text;
}

}  // namespace cudaenv
