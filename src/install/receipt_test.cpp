#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "install/receipt.h"

using namespace cudaenv;

namespace {

const std::string kSha(64, 'a');
const std::string kOtherSha(64, 'b');

InstallPlan wheel_plan() {
  return InstallPlan{
      .label = "13.2.1",
      .source = InstallSource::pypi,
      .origin = "https://pypi.example/simple",
      .pinned_by_url = "https://pypi.example/files/cuda_toolkit-13.2.1-py2.py3-none-any.whl",
      .pinned_by_sha256 = kOtherSha,
      .files = {
          Archive{.name = "cuda_nvcc",
                  .version = "13.2.78",
                  .url = "https://pypi.example/files/nvidia_cuda_nvcc-13.2.78-py3-none-manylinux_2_17_x86_64.whl",
                  .sha256 = kSha,
                  .size = 123456789,
                  .distribution = "nvidia-cuda-nvcc"},
          Archive{.name = "cudnn",
                  .version = "9.10.0.56",
                  .url = "https://m.example/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.10.0.56_cuda13-archive.tar.xz",
                  .sha256 = kOtherSha,
                  .size = 1003184568}}};
}

const InstallRequest kRequest{.label = "13.2.1", .profile = "minimal", .platform = "linux-x86_64"};

}  // namespace

TEST_CASE("receipt: the plan's archives are written and read back unchanged") {
  InstallPlan plan = wheel_plan();
  std::string text = render_receipt(kRequest, plan, {{"cudnn", {"include/cudnn.h", "lib/libcudnn.so.9"}}});
  auto receipt = parse_receipt(text, "/r/cudaenv-install.json");
  REQUIRE(receipt);
  CHECK(receipt->profile == "minimal");
  CHECK(receipt->archives == plan.files);

  auto json = nlohmann::json::parse(text);
  CHECK(json["origin"] == "https://pypi.example/simple");
  CHECK(json["source"] == "pypi");
  CHECK_FALSE(json.contains("source_kind"));
  CHECK(json["metapackage"]["sha256"] == kOtherSha);
  CHECK(json["components"][0]["wheel"] == "nvidia_cuda_nvcc-13.2.78-py3-none-manylinux_2_17_x86_64.whl");
  CHECK_FALSE(json["components"][0].contains("files"));
  CHECK(json["components"][1]["files"].size() == 2);
  CHECK_FALSE(json["components"][1].contains("distribution"));

  plan.source = InstallSource::redist;
  auto redist = nlohmann::json::parse(render_receipt(kRequest, plan, {}));
  CHECK(redist["source"] == "redist");
  CHECK(redist.contains("manifest"));
  CHECK(render_receipt(kRequest, wheel_plan(), {}) == render_receipt(kRequest, wheel_plan(), {}));
}

TEST_CASE("receipt: those earlier cudaenvs wrote read the same") {
  // With the origin as "source" and the source as "source_kind" (the first receipts with wheels).
  std::string with_source_kind = R"({
  "label": "13.2.1", "profile": "minimal", "platform": "linux-x86_64",
  "source": "https://pypi.example/simple", "source_kind": "pypi",
  "metapackage": {"url": "https://pypi.example/files/cuda_toolkit-13.2.1-py2.py3-none-any.whl", "sha256": ")" +
                                 kOtherSha + R"("},
  "components": [
    {"name": "cuda_nvcc", "version": "13.2.78",
     "url": "https://pypi.example/files/nvidia_cuda_nvcc-13.2.78-py3-none-manylinux_2_17_x86_64.whl",
     "sha256": ")" + kSha + R"(", "size": 123456789, "distribution": "nvidia-cuda-nvcc",
     "wheel": "nvidia_cuda_nvcc-13.2.78-py3-none-manylinux_2_17_x86_64.whl"},
    {"name": "cudnn", "version": "9.10.0.56",
     "url": "https://m.example/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.10.0.56_cuda13-archive.tar.xz",
     "sha256": ")" + kOtherSha + R"(", "size": 1003184568, "files": ["include/cudnn.h"]}]})";
  auto receipt = parse_receipt(with_source_kind, "/r/cudaenv-install.json");
  REQUIRE(receipt);
  CHECK(receipt->profile == "minimal");
  CHECK(receipt->archives == wheel_plan().files);

  // Before wheels: the redist folder as "source", no kind, and the install time.
  std::string before_wheels = R"({"label": "12.1.1", "profile": "torch", "platform": "linux-x86_64",
  "source": "https://m.example/cuda/redist/", "manifest": {"url": "https://m.example/cuda/redist/redistrib_12.1.1.json",
  "sha256": ")" + kOtherSha + R"("}, "installed_at": "2026-11-20T10:00:00Z",
  "components": [{"name": "cuda_nvcc", "version": "12.1.105",
  "url": "https://m.example/cuda/redist/cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.1.105-archive.tar.xz",
  "sha256": ")" + kSha + R"(", "size": 44459684}]})";
  auto old = parse_receipt(before_wheels, "/r/cudaenv-install.json");
  REQUIRE(old);
  CHECK(old->profile == "torch");
  REQUIRE(old->archives.size() == 1);
  CHECK(old->archives[0] ==
        Archive{.name = "cuda_nvcc",
                .version = "12.1.105",
                .url = "https://m.example/cuda/redist/cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.1.105-archive.tar.xz",
                .sha256 = kSha,
                .size = 44459684});
}

TEST_CASE("receipt: a damaged one counts as none, a sparse one is read") {
  for (const char* text : {"[1]", R"({"components": "x"})", R"({"profile": 5, "components": []})",
                           R"({"profile": "minimal", "components": [{"name": ["cuda_nvcc"]}]})",
                           R"({"profile": "minimal", "components": [{"name": "cuda_nvcc", "size": "12"}]})",
                           R"({"profile": "minimal", "components": [{"name": "cuda_nvcc", "url": 7}]})", "not json"}) {
    INFO(text);
    CHECK_FALSE(parse_receipt(text, "/r/cudaenv-install.json"));
  }
  auto sparse = parse_receipt(R"({"profile": "minimal", "components": [{"name": "cuda_nvcc"}]})", "/r/cudaenv-install.json");
  REQUIRE(sparse);
  CHECK(sparse->archives == std::vector<Archive>{Archive{.name = "cuda_nvcc"}});
  auto none = parse_receipt(R"({"profile": "full", "components": null})", "/r/cudaenv-install.json");
  REQUIRE(none);
  CHECK(none->archives.empty());
}
