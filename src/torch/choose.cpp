#include "torch/choose.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "util/strings.h"

namespace cudaenv {

namespace {

using ReleaseTest = std::function<bool(const TorchRelease&)>;

bool same_minor(const Version& a, const Version& b) { return a.major() == b.major() && a.minor() == b.minor(); }

bool is_experimental(const TorchRelease& release, const Version& variant) {
  return std::find(release.experimental.begin(), release.experimental.end(), variant) != release.experimental.end();
}

std::vector<Version> variants_of_major(const TorchRelease& release, int major) {
  std::vector<Version> found;
  for (const Version& cuda : release.cuda) {
    if (cuda.major() == major) found.push_back(cuda);
  }
  return found;
}

std::optional<Version> exact_variant(const TorchRelease& release, const Version& cuda) {
  for (const Version& variant : release.cuda) {
    if (same_minor(variant, cuda)) return variant;
  }
  return std::nullopt;
}

std::string variant_list(const std::vector<Version>& variants) {
  std::vector<std::string> tags;
  for (const Version& variant : variants) tags.push_back(cuda_variant_tag(variant));
  return join(tags, ", ");
}

std::string arch_list(const std::vector<ComputeCapability>& archs) {
  std::vector<std::string> texts;
  for (const ComputeCapability& arch : archs) texts.push_back(arch.str());
  return join(texts, ", ");
}

// "1.12.0–1.13.1, 2.4.0–2.7.1": the runs of consecutive matrix releases that pass `test`.
std::string release_runs(const TorchMatrix& matrix, const ReleaseTest& test) {
  std::vector<std::string> runs;
  const auto& releases = matrix.releases;
  for (size_t i = 0; i < releases.size();) {
    if (!test(releases[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end + 1 < releases.size() && test(releases[end + 1])) ++end;
    runs.push_back(end == i ? releases[i].torch.str() : releases[i].torch.str() + "–" + releases[end].torch.str());
    i = end + 1;
  }
  return join(runs, ", ");
}

const TorchRelease* newest_passing(const TorchMatrix& matrix, const ReleaseTest& test) {
  for (auto it = matrix.releases.rbegin(); it != matrix.releases.rend(); ++it) {
    if (test(*it)) return &*it;
  }
  return nullptr;
}

// The build in `pool` closest to `cuda`, stable ones first: within its major the nearest
// minor, a tie going to the newer CUDA (extensions built by an older nvcc run on a newer
// CUDA runtime, not the reverse); across majors the newest build of the nearest major.
Version nearest_variant(const TorchRelease& release, const std::vector<Version>& pool, const Version& cuda) {
  std::vector<Version> stable;
  for (const Version& variant : pool) {
    if (!is_experimental(release, variant)) stable.push_back(variant);
  }
  const std::vector<Version>& from = stable.empty() ? pool : stable;
  auto major_distance = [&](const Version& v) { return std::abs(v.major() - cuda.major()); };
  if (std::any_of(from.begin(), from.end(), [&](const Version& v) { return major_distance(v) == 0; })) {
    return from[*nearest_version(cuda, from)];
  }
  return *std::min_element(from.begin(), from.end(), [&](const Version& a, const Version& b) {
    return major_distance(a) != major_distance(b) ? major_distance(a) < major_distance(b) : b < a;
  });
}

Error malformed_torch_error(const TorchQuery& query) {
  std::string hint = "write a release such as 2.5.1 (or 2.5 for its newest patch release)";
  if (query.torch->find('+') != std::string::npos) hint += "; the +cuXY build tag is what cudaenv chooses for you";
  return make_error("torch version '" + *query.torch + "' (" + query.torch_origin + ") is not a version", hint, ErrorKind::usage);
}

Error unknown_torch_error(const TorchMatrix& matrix, const TorchQuery& query, const Version& wanted) {
  std::vector<std::string> nearest;
  for (size_t i = 0; i < matrix.releases.size(); ++i) {
    bool below_next = i + 1 == matrix.releases.size() || wanted < matrix.releases[i + 1].torch;
    if (matrix.releases[i].torch < wanted && below_next) nearest.push_back(matrix.releases[i].torch.str());
    bool above_previous = i == 0 || matrix.releases[i - 1].torch < wanted;
    if (wanted < matrix.releases[i].torch && above_previous) nearest.push_back(matrix.releases[i].torch.str());
  }
  return make_error(
      "torch " + *query.torch + " (" + query.torch_origin + ") is not a release cudaenv knows (" + matrix.path.string() +
          " lists " + matrix.releases.front().torch.str() + " to " + matrix.releases.back().torch.str() + ")",
      "nearest known: " + join(nearest, ", ") + "\na release newer than cudaenv's list needs a [[release]] entry in that file");
}

Error no_major_error(const TorchMatrix& matrix, const TorchQuery& query, const std::vector<const TorchRelease*>& candidates) {
  const Version& cuda = *query.cuda;
  std::string cuda_text = "CUDA " + major_minor(cuda).str() + " (" + query.cuda_origin + ")";
  if (!query.archs.empty()) cuda_text += " with kernels for compute capability " + arch_list(query.archs);
  std::string exact_runs = release_runs(matrix, [&](const TorchRelease& r) { return exact_variant(r, cuda).has_value(); });
  std::string major_runs =
      release_runs(matrix, [&](const TorchRelease& r) { return !variants_of_major(r, cuda.major()).empty(); });
  std::string hint;
  if (!exact_runs.empty()) {
    hint = "torch releases with a CUDA " + major_minor(cuda).str() + " build: " + exact_runs;
  } else if (!major_runs.empty()) {
    hint = "torch releases with a CUDA " + std::to_string(cuda.major()) + " build: " + major_runs;
  }
  if (const TorchRelease* fits =
          newest_passing(matrix, [&](const TorchRelease& r) { return !variants_of_major(r, cuda.major()).empty(); })) {
    hint += " (e.g. `cudaenv torch --torch " + fits->torch.str() + "`)\nor ";
  }
  const TorchRelease& wanted = *candidates.front();
  std::string install = major_minor(nearest_variant(wanted, wanted.cuda, cuda)).str();
  hint += "install a CUDA that torch " + wanted.torch.str() + " is built for: `cudaenv install " + install + " && cudaenv use " +
          install + "`";
  if (query.torch) {
    return make_error("torch " + wanted.torch.str() + " has no build for " + cuda_text + ": its builds are " +
                          variant_list(wanted.cuda) + ", and torch refuses to build extensions across CUDA majors",
                      hint);
  }
  return make_error("no torch release from " + matrix.releases.front().torch.str() + " to " + matrix.releases.back().torch.str() +
                        " has a build for " + cuda_text,
                    hint + "\nor install the CPU build: `cudaenv torch --cpu`");
}

std::string deepspeed_verdict(const TorchMatrix& matrix, const Version& nvcc, const Version& variant) {
  auto tolerated = matrix.deepspeed_minor_ok.find(nvcc.major());
  if (tolerated == matrix.deepspeed_minor_ok.end()) {
    return "DeepSpeed tolerates no CUDA " + std::to_string(nvcc.major()) +
           " minor mismatch: its op builds raise CUDAMismatchException unless DS_SKIP_CUDA_CHECK=1";
  }
  auto listed = [&](const Version& v) {
    return std::any_of(tolerated->second.begin(), tolerated->second.end(), [&](const Version& t) { return same_minor(t, v); });
  };
  std::vector<std::string> list;
  for (const Version& v : tolerated->second) list.push_back(v.str());
  if (listed(nvcc) && listed(variant)) {
    return "DeepSpeed accepts the pair (both are in its tolerated CUDA " + std::to_string(nvcc.major()) + " list)";
  }
  return "DeepSpeed raises CUDAMismatchException unless DS_SKIP_CUDA_CHECK=1 (its tolerated CUDA " +
         std::to_string(nvcc.major()) + " list is " + join(list, ", ") + ")";
}

std::string nearest_minor_warning(const TorchMatrix& matrix, const TorchRelease& release, const Version& nvcc,
                                  const Version& variant) {
  return "torch " + release.torch.str() + " has no build for CUDA " + major_minor(nvcc).str() + "; using " +
         cuda_variant_tag(variant) + ", its nearest CUDA " + std::to_string(nvcc.major()) +
         " build. Building extensions with nvcc " + major_minor(nvcc).str() + " against torch's CUDA " +
         major_minor(variant).str() + ": torch.utils.cpp_extension only warns about a minor mismatch; " +
         deepspeed_verdict(matrix, nvcc, variant) + ". For an exact match: `cudaenv install " + major_minor(variant).str() + "`";
}

// Why the newest release was passed over for an exact build, and how to get it anyway.
std::string newer_release_note(const TorchRelease& newest, const Version& cuda) {
  std::string text = "torch " + newest.torch.str() + " is newer but has ";
  auto same_major = variants_of_major(newest, cuda.major());
  if (same_major.empty()) {
    std::string install = major_minor(nearest_variant(newest, newest.cuda, cuda)).str();
    return text + "no CUDA " + std::to_string(cuda.major()) + " build; it needs another toolkit (`cudaenv install " + install +
           "`)";
  }
  return text + "only " + variant_list(same_major) + " for CUDA " + std::to_string(cuda.major()) + "; `--torch " +
         newest.torch.str() + "` picks it anyway when a minor mismatch is acceptable";
}

Status check_driver(const TorchMatrix& matrix, const TorchQuery& query, TorchChoice& choice) {
  auto floor = matrix.min_driver.find(choice.variant->major());
  if (floor == matrix.min_driver.end()) return ok_status();
  choice.min_driver = floor->second;
  std::string need = "CUDA " + std::to_string(choice.variant->major()) + " builds need driver " + floor->second + " or newer";
  if (!query.driver) {
    choice.notes.push_back("NVIDIA driver not found, so not checked: " + need);
    return ok_status();
  }
  auto driver = parse_driver_version(*query.driver);
  if (!driver)
    return make_error("NVIDIA driver version '" + *query.driver + "' (" + query.driver_origin + ") is not a version",
                      "write it like 550.54.14", ErrorKind::usage);
  auto older = [&](const std::string& floor_text) {
    return driver->number < parse_driver_version(floor_text).value_or(DriverVersion{}).number;
  };
  if (!older(floor->second)) return ok_status();
  std::string hint = "update the NVIDIA driver to " + floor->second + " or newer";
  for (auto it = matrix.min_driver.rbegin(); it != matrix.min_driver.rend(); ++it) {
    if (older(it->second)) continue;
    int major = it->first;
    auto has_major = [&](const TorchRelease& r) { return !variants_of_major(r, major).empty(); };
    if (const TorchRelease* fits = newest_passing(matrix, has_major)) {
      std::string cuda = variants_of_major(*fits, major).back().str();
      hint += "\nor, with this driver, a CUDA " + std::to_string(major) + " toolkit: torch " + fits->torch.str() + " has " +
              cuda_variant_tag(variants_of_major(*fits, major).back()) + " (`cudaenv install " + cuda + " && cudaenv use " +
              cuda + "`)";
    }
    break;
  }
  return make_error("NVIDIA driver " + *query.driver + " (" + query.driver_origin + ") is too old for torch " +
                        choice.release.torch.str() + "+" + cuda_variant_tag(*choice.variant) + ": " + need,
                    hint);
}

bool has_kernels(const TorchMatrix& matrix, const TorchRelease& release, const Version& cuda,
                 const std::vector<ComputeCapability>& archs) {
  auto oldest = oldest_kernel_arch(matrix, release, cuda);
  return !oldest || std::all_of(archs.begin(), archs.end(), [&](const ComputeCapability& arch) { return !(arch < *oldest); });
}

// The matrix without the builds that have no kernels for one of the GPUs (a build without them
// installs and imports, then fails with "no kernel image is available for execution").
Result<TorchMatrix> with_kernels_for(const TorchMatrix& matrix, const TorchQuery& query, std::vector<std::string>& notes) {
  TorchMatrix usable = matrix;
  usable.releases.clear();
  std::string gpus = "compute capability " + arch_list(query.archs) + " (" + query.archs_origin + ")";
  for (const TorchRelease& release : matrix.releases) {
    TorchRelease kept = release;
    std::vector<Version> dropped;
    kept.cuda.clear();
    for (const Version& cuda : release.cuda)
      (has_kernels(matrix, release, cuda, query.archs) ? kept.cuda : dropped).push_back(cuda);
    if (&release == &matrix.releases.back() && !dropped.empty()) {
      notes.push_back("torch " + release.torch.str() + "'s " + variant_list(dropped) + " builds have no kernels for " + gpus +
                      ": cudaenv offers only builds that have them");
    }
    if (kept.cuda.empty()) continue;
    if (std::find(kept.cuda.begin(), kept.cuda.end(), kept.pypi_default) == kept.cuda.end()) kept.pypi_default = kept.cuda.back();
    usable.releases.push_back(std::move(kept));
  }
  if (usable.releases.empty()) {
    return make_error("no torch build in " + matrix.path.string() + " has kernels for " + gpus,
                      "check the compute capability (nvidia-smi --query-gpu=compute_cap --format=csv)");
  }
  return usable;
}

}  // namespace

namespace {
Result<TorchChoice> choose_among(const TorchMatrix& matrix, const TorchQuery& query);
}  // namespace

const char* match_label(TorchMatch match) {
  switch (match) {
    case TorchMatch::exact: return "exact";
    case TorchMatch::nearest_minor: return "nearest_minor";
    case TorchMatch::cpu: return "cpu";
  }
  return "?";
}

Result<TorchChoice> choose_torch(const TorchMatrix& shipped, const TorchQuery& query) {
  std::vector<std::string> arch_notes;
  TorchMatrix filtered;
  if (!query.archs.empty() && !query.cpu) {
    CUDAENV_TRY_ASSIGN(auto usable, with_kernels_for(shipped, query, arch_notes));
    filtered = std::move(usable);
  }
  const TorchMatrix& matrix = filtered.releases.empty() ? shipped : filtered;
  auto choice = choose_among(matrix, query);
  if (choice) choice->notes.insert(choice->notes.begin(), arch_notes.begin(), arch_notes.end());
  return choice;
}

namespace {

Result<TorchChoice> choose_among(const TorchMatrix& matrix, const TorchQuery& query) {
  std::vector<const TorchRelease*> candidates;  // newest first
  if (query.torch) {
    auto wanted = parse_version(*query.torch);
    if (!wanted) return malformed_torch_error(query);
    for (auto it = matrix.releases.rbegin(); it != matrix.releases.rend(); ++it) {
      if (version_matches(*wanted, it->torch)) candidates.push_back(&*it);
    }
    if (candidates.empty()) return unknown_torch_error(matrix, query, *wanted);
  } else {
    for (auto it = matrix.releases.rbegin(); it != matrix.releases.rend(); ++it) candidates.push_back(&*it);
  }
  if (query.cpu) {
    TorchChoice choice{*candidates.front(), TorchMatch::cpu, std::nullopt, std::nullopt, {}, {}};
    return choice;
  }
  if (!query.cuda)
    return make_error("no CUDA version to choose a torch build for", "pass --cuda VERSION or --cpu", ErrorKind::usage);
  const Version& cuda = *query.cuda;
  TorchChoice choice;
  auto exact = std::find_if(candidates.begin(), candidates.end(),
                            [&](const TorchRelease* r) { return exact_variant(*r, cuda).has_value(); });
  if (exact != candidates.end()) {
    choice = TorchChoice{**exact, TorchMatch::exact, exact_variant(**exact, cuda), std::nullopt, {}, {}};
    if (exact != candidates.begin()) choice.notes.push_back(newer_release_note(*candidates.front(), cuda));
  } else {
    auto near = std::find_if(candidates.begin(), candidates.end(),
                             [&](const TorchRelease* r) { return !variants_of_major(*r, cuda.major()).empty(); });
    if (near == candidates.end()) return no_major_error(matrix, query, candidates);
    Version variant = nearest_variant(**near, variants_of_major(**near, cuda.major()), cuda);
    choice = TorchChoice{**near, TorchMatch::nearest_minor, variant, std::nullopt, {}, {}};
    choice.warnings.push_back(nearest_minor_warning(matrix, **near, cuda, variant));
  }
  if (is_experimental(choice.release, *choice.variant)) {
    choice.warnings.push_back(cuda_variant_tag(*choice.variant) + " is an experimental build of torch " +
                              choice.release.torch.str() + " (per PyTorch's release matrix)");
  }
  CUDAENV_TRY(check_driver(matrix, query, choice));
  return choice;
}

}  // namespace

std::optional<std::string> uv_torch_backend(const TorchMatrix& matrix, const std::string& setting, const TorchQuery& query) {
  if (setting == "none") return std::nullopt;
  if (setting == "cpu") return std::string("cpu");
  if (!query.cuda) return std::nullopt;
  auto choice = choose_torch(matrix, query);
  if (!choice || !choice->variant) return std::nullopt;
  return cuda_variant_tag(*choice->variant);
}

}  // namespace cudaenv
