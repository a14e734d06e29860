#pragma once
// What `cudaenv torch` prints for a choice: the pins and index, as a pip/uv command, a
// requirements file, a pyproject fragment for uv, or JSON (pure string building).

#include <string>
#include <string_view>
#include <vector>

#include "torch/choose.h"
#include "torch/matrix.h"
#include "util/result.h"

namespace cudaenv {

enum class Installer { pip, uv };

struct TorchPin {
  std::string package;  // torch, torchvision, torchaudio
  std::string version;  // the public release: 2.1.2
  std::string local;    // the index's build tag: cu118, cpu
};

// "torch==2.1.2+cu118": the local version is what makes pip and uv replace an installed
// build of another variant (under PEP 440 `==2.1.2` is satisfied by 2.1.2+cu121).
std::string pin_text(const TorchPin& pin);

struct TorchInstall {
  std::vector<TorchPin> pins;
  std::string index_name;    // "pytorch-cu124", "pytorch-cpu"
  std::string index_url;     // https://download.pytorch.org/whl/cu124
  std::string index_origin;  // where its base came from: "shipped table", CUDAENV_TORCH_INDEX
  std::vector<std::string> notes;
};

// "torch,torchvision" -> those names in canonical order; an unknown name is a usage error.
Result<std::vector<std::string>> parse_torch_packages(std::string_view list);

// The pins for `packages`. A package this release lacks (torchaudio after 2.11) is an
// error when the user named it, and left out with a note when it came by default.
Result<TorchInstall> plan_torch_install(const TorchMatrix& matrix, const TorchChoice& choice,
                                        const std::vector<std::string>& packages, bool packages_named);

std::string render_command(Installer installer, const TorchInstall& install);
std::string render_requirements(const TorchInstall& install);

// What `cudaenv torch` would print, for one interpreter: "/venv/bin/python -m pip install
// torch==2.1.2+cu118 ... --index-url .../cu118", all three packages as by default.
struct TorchReinstall {
  std::string command;
  TorchMatch match = TorchMatch::exact;
};
Result<TorchReinstall> reinstall_command(const TorchMatrix& matrix, const TorchQuery& query, const std::string& python);
std::string render_pyproject(const TorchInstall& install);

struct TorchReport {
  const TorchQuery& query;
  const TorchChoice& choice;
  const TorchInstall& install;
  Installer installer;
};
std::string render_json(const TorchReport& report);

}  // namespace cudaenv
