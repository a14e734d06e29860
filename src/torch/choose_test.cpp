// Choosing a torch build: exact cuXY over the whole matrix, nearest minor, never another
// major, the driver floor, and bad input.
#include <catch2/catch.hpp>

#include "support/shipped_torch_matrix.h"
#include "torch/choose.h"
#include "torch/render.h"

using namespace cudaenv;

namespace {

const TorchMatrix& matrix() { return testing::shipped_torch_matrix(); }

TorchQuery query(const char* cuda, const char* torch = nullptr, const char* driver = nullptr) {
  TorchQuery q;
  q.cuda = parse_version(cuda);
  q.cuda_origin = "--cuda";
  if (torch) q.torch = torch;
  q.torch_origin = torch ? "--torch" : "the newest that fits";
  if (driver) q.driver = driver;
  q.driver_origin = "--driver";
  return q;
}

TorchChoice choose(const TorchQuery& q) {
  auto choice = choose_torch(matrix(), q);
  INFO((choice ? "" : choice.error().message + " / " + choice.error().hint));
  REQUIRE(choice);
  return *choice;
}

Error refuse(const TorchQuery& q) {
  auto choice = choose_torch(matrix(), q);
  REQUIRE_FALSE(choice);
  return choice.error();
}

std::string all_text(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

}  // namespace

TEST_CASE("every release x every CUDA variant it has is an exact match, with its own torchvision/torchaudio") {
  size_t pairs = 0;
  for (const TorchRelease& release : matrix().releases) {
    for (const Version& variant : release.cuda) {
      for (const std::string& toolkit : {variant.str(), variant.str() + ".0", variant.str() + ".2"}) {
        INFO("torch " << release.torch.str() << " on CUDA " << toolkit);
        std::string torch = release.torch.str();
        TorchChoice choice = choose(query(toolkit.c_str(), torch.c_str(), "999"));
        CHECK(choice.match == TorchMatch::exact);
        CHECK(choice.release.torch == release.torch);
        REQUIRE(choice.variant);
        CHECK(*choice.variant == variant);
        CHECK(*choice.min_driver == matrix().min_driver.at(variant.major()));
        bool experimental = std::count(release.experimental.begin(), release.experimental.end(), variant) > 0;
        CHECK(choice.warnings.size() == (experimental ? 1u : 0u));
        auto install = plan_torch_install(matrix(), choice, {"torch", "torchvision", "torchaudio"}, false);
        REQUIRE(install);
        CHECK(install->index_url == "https://download.pytorch.org/whl/" + cuda_variant_tag(variant));
        REQUIRE(install->pins.size() >= 2);
        CHECK(install->pins[0].version == torch);
        CHECK(install->pins[1].version == release.torchvision);
        CHECK(install->pins.size() == (release.torchaudio ? 3u : 2u));
        if (release.torchaudio) CHECK(install->pins[2].version == *release.torchaudio);
        ++pairs;
      }
    }
  }
  CHECK(pairs >= 3 * 78);  // 1.12.0-2.14.0: 30 releases, 78 release x CUDA pairs
}

TEST_CASE("without --torch, each CUDA gets the newest release that has its exact build") {
  for (const TorchRelease& release : matrix().releases) {
    for (const Version& variant : release.cuda) {
      INFO("CUDA " << variant.str());
      const TorchRelease* newest = nullptr;
      for (const TorchRelease& other : matrix().releases) {
        if (std::count(other.cuda.begin(), other.cuda.end(), variant)) newest = &other;
      }
      TorchChoice choice = choose(query(variant.str().c_str()));
      CHECK(choice.release.torch == newest->torch);
      CHECK(choice.match == TorchMatch::exact);
    }
  }
  TorchChoice on_124 = choose(query("12.4.1"));
  CHECK(on_124.release.torch.str() == "2.6.0");
  CHECK(all_text(on_124.notes).find("torch 2.15.0 is newer but has no CUDA 12 build") != std::string::npos);
  CHECK_THAT(
      all_text(choose(query("11.8")).notes),
      Catch::Contains("torch 2.15.0 is newer but has no CUDA 11 build; it needs another toolkit (`cudaenv install 13.2`)"));
}

TEST_CASE("a torch prefix picks its newest patch release") {
  CHECK(choose(query("12.4", "2.5")).release.torch.str() == "2.5.1");
  CHECK(choose(query("11.8", "2")).release.torch.str() == "2.7.1");
}

TEST_CASE("no exact build: the nearest minor of the same major, with a warning for extensions and DeepSpeed") {
  TorchChoice choice = choose(query("12.5.1", "2.14.0"));
  CHECK(choice.match == TorchMatch::nearest_minor);
  CHECK(choice.variant->str() == "12.6");
  REQUIRE(choice.warnings.size() == 1);
  CHECK_THAT(choice.warnings[0], Catch::Contains("no build for CUDA 12.5; using cu126"));
  CHECK_THAT(choice.warnings[0], Catch::Contains("torch.utils.cpp_extension only warns"));
  CHECK_THAT(choice.warnings[0], Catch::Contains("DeepSpeed accepts the pair"));
  CHECK_THAT(choice.warnings[0], Catch::Contains("`cudaenv install 12.6`"));

  // 12.7 sits between cu126 and cu128: the newer wins, and DeepSpeed does not list 12.7.
  choice = choose(query("12.7", "2.9.1"));
  CHECK(choice.variant->str() == "12.8");
  CHECK_THAT(choice.warnings[0], Catch::Contains("DeepSpeed raises CUDAMismatchException unless DS_SKIP_CUDA_CHECK=1"));

  // CUDA 13 has no DeepSpeed tolerance at all; an experimental build loses a tie to a stable one.
  choice = choose(query("13.1", "2.12.0"));
  CHECK(choice.variant->str() == "13.0");
  CHECK_THAT(choice.warnings[0], Catch::Contains("DeepSpeed tolerates no CUDA 13 minor mismatch"));
  CHECK(choose(query("13.1", "2.14.0")).variant->str() == "13.2");

  // Without --torch: the newest release with any build of that major.
  choice = choose(query("12.7"));
  CHECK(choice.release.torch.str() == "2.14.1");
  CHECK(choice.variant->str() == "12.6");
  CHECK(choose(query("11.5")).variant->str() == "11.8");
  CHECK(choose(query("10.1")).release.torch.str() == "1.12.1");
}

TEST_CASE("an experimental build is chosen with a warning") {
  TorchChoice choice = choose(query("13.2", "2.12.0"));
  CHECK(choice.match == TorchMatch::exact);
  REQUIRE(choice.warnings.size() == 1);
  CHECK_THAT(choice.warnings[0], Catch::Contains("cu132 is an experimental build of torch 2.12.0"));
}

TEST_CASE("never a different CUDA major: an error listing releases that fit and the toolkit to install") {
  Error error = refuse(query("11.8", "2.14.0"));
  CHECK_THAT(error.message,
             Catch::Contains("torch 2.14.0 has no build for CUDA 11.8 (--cuda): its builds are cu126, cu130, cu132"));
  CHECK_THAT(error.hint, Catch::Contains("torch releases with a CUDA 11.8 build: 2.0.0–2.7.1"));
  CHECK_THAT(error.hint, Catch::Contains("`cudaenv torch --torch 2.7.1`"));
  CHECK_THAT(error.hint, Catch::Contains("`cudaenv install 12.6 && cudaenv use 12.6`"));

  error = refuse(query("10.2", "2.0.0"));
  CHECK_THAT(error.hint, Catch::Contains("CUDA 10.2 build: 1.12.0–1.12.1"));

  error = refuse(query("12.4", "1.13.1"));
  CHECK_THAT(error.hint, Catch::Contains("CUDA 12.4 build: 2.4.0–2.6.0"));
  CHECK_THAT(error.hint, Catch::Contains("`cudaenv install 11.6"));  // the stable build; 11.7 was experimental

  error = refuse(query("14.0"));
  CHECK_THAT(error.message, Catch::Contains("no torch release from 1.12.0 to 2.15.0 has a build for CUDA 14.0"));
  CHECK_THAT(error.hint, Catch::Contains("`cudaenv install 13.2 && cudaenv use 13.2`"));
  CHECK_THAT(error.hint, Catch::Contains("--cpu"));
  CHECK_THAT(refuse(query("9.2")).message, Catch::Contains("CUDA 9.2"));
}

TEST_CASE("the driver floor of the chosen build's CUDA major") {
  CHECK(choose(query("12.4", "2.5.1", "525.60.13")).min_driver == "525.60.13");
  CHECK(refuse(query("12.4", "2.5.1", "latest")).kind == ErrorKind::usage);
  Error error = refuse(query("12.4", "2.5.1", "525.60.12"));
  CHECK_THAT(error.message, Catch::Contains("NVIDIA driver 525.60.12 (--driver) is too old for torch 2.5.1+cu124"));
  CHECK_THAT(error.message, Catch::Contains("CUDA 12 builds need driver 525.60.13 or newer"));
  CHECK_THAT(error.hint, Catch::Contains("update the NVIDIA driver to 525.60.13"));
  CHECK_THAT(error.hint, Catch::Contains("torch 2.7.1 has cu118 (`cudaenv install 11.8 && cudaenv use 11.8`)"));

  CHECK_THAT(refuse(query("13.0", "2.14.0", "575.57.08")).message, Catch::Contains("need driver 580 or newer"));
  CHECK(choose(query("13.0", "2.14.0", "580.65.06")).match == TorchMatch::exact);
  CHECK(choose(query("13.0", "2.14.0", "580")).match == TorchMatch::exact);
  CHECK_THAT(refuse(query("11.8", "2.7.1", "440.33")).hint, Catch::Contains("torch 1.12.1 has cu102"));

  TorchChoice unknown_driver = choose(query("12.4", "2.5.1"));
  CHECK_THAT(all_text(unknown_driver.notes),
             Catch::Contains("NVIDIA driver not found, so not checked: CUDA 12 builds need driver 525.60.13"));
}

TEST_CASE("cpu: the CPU build needs no CUDA or driver") {
  TorchQuery q;
  q.cpu = true;
  q.driver = "300";
  TorchChoice choice = choose(q);
  CHECK(choice.match == TorchMatch::cpu);
  CHECK_FALSE(choice.variant);
  CHECK(choice.release.torch.str() == "2.15.0");
  q.torch = "1.13";
  CHECK(choose(q).release.torch.str() == "1.13.1");
}

TEST_CASE("an unknown torch version is an error naming the nearest known ones") {
  Error error = refuse(query("12.4", "2.4.3"));
  CHECK_THAT(error.message, Catch::Contains("torch 2.4.3 (--torch) is not a release cudaenv knows"));
  CHECK_THAT(error.message, Catch::Contains("lists 1.12.0 to 2.15.0"));
  CHECK_THAT(error.hint, Catch::StartsWith("nearest known: 2.4.1, 2.5.0"));
  CHECK_THAT(refuse(query("12.4", "2.16")).hint, Catch::StartsWith("nearest known: 2.15.0\n"));
  CHECK_THAT(refuse(query("12.4", "1.11.0")).hint, Catch::StartsWith("nearest known: 1.12.0\n"));
}

TEST_CASE("a malformed torch version is a usage error") {
  for (const char* bad : {"2.x", "latest", "", "v2.5.1", "2.5.1+cu124"}) {
    INFO(bad);
    Error error = refuse(query("12.4", bad));
    CHECK(error.kind == ErrorKind::usage);
    CHECK_THAT(error.message, Catch::Contains("is not a version"));
  }
  CHECK_THAT(refuse(query("12.4", "2.5.1+cu124")).hint, Catch::Contains("+cuXY build tag"));
}

TEST_CASE("arch: never a build without kernels for the GPU (Volta from torch 2.11 on: cu126 only)") {
  TorchQuery q = query("12.8");
  q.archs = {*parse_compute_capability("7.0")};
  q.archs_origin = "--arch";
  TorchChoice choice = choose(q);
  CHECK(choice.release.torch.str() == "2.10.0");  // the newest cu128 that keeps sm_70
  CHECK(choice.variant->str() == "12.8");
  CHECK_THAT(all_text(choice.notes),
             Catch::Contains("torch 2.15.0's cu130, cu132 builds have no kernels for compute capability 7.0 (--arch)"));

  q.torch = "2.11.0";
  choice = choose(q);
  CHECK(choice.variant->str() == "12.6");
  CHECK(choice.match == TorchMatch::nearest_minor);

  q = query("13.0");
  q.archs = {*parse_compute_capability("8.6"), *parse_compute_capability("7.0")};
  q.archs_origin = "--arch";
  Error error = refuse(q);
  CHECK_THAT(error.message, Catch::Contains("has a build for CUDA 13.0 (--cuda) with kernels for compute capability 8.6, 7.0"));
  CHECK_THAT(error.hint, Catch::Contains("`cudaenv install 12.6"));

  q.archs = {*parse_compute_capability("8.6")};
  CHECK(choose(q).release.torch.str() == "2.15.0");
}

TEST_CASE("uv's torch backend: the cuXY `cudaenv torch` chooses, cpu, or nothing") {
  CHECK(uv_torch_backend(matrix(), "auto", query("12.4")) == "cu124");
  CHECK(uv_torch_backend(matrix(), "auto", query("13.0")) == "cu130");
  CHECK(uv_torch_backend(matrix(), "auto", query("12.5")) == "cu126");  // no cu125 build: the nearest minor, as `cudaenv torch`
  CHECK(uv_torch_backend(matrix(), "auto", query("11.8", "2.1.2")) == "cu118");
  CHECK(uv_torch_backend(matrix(), "auto", query("12.4", "2.1.2")) == "cu121");  // [torch] version 2.1.2 has no cu124
  CHECK(uv_torch_backend(matrix(), "cpu", query("12.4")) == "cpu");
  CHECK_FALSE(uv_torch_backend(matrix(), "none", query("12.4")));
  CHECK_FALSE(uv_torch_backend(matrix(), "auto", query("13.0", nullptr, "550.54.14")));  // below CUDA 13's driver floor
  CHECK_FALSE(uv_torch_backend(matrix(), "auto", TorchQuery{}));                         // no toolkit CUDA known
}
