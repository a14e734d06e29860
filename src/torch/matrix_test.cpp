// manifests/pytorch.toml against its sources (docs/sources.md "PyTorch builds"),
// and the parser's errors for a broken file.
#include <catch2/catch.hpp>

#include <map>

#include "support/shipped_torch_matrix.h"
#include "torch/matrix.h"

using namespace cudaenv;

namespace {

const TorchMatrix& shipped_matrix() { return testing::shipped_torch_matrix(); }

std::string tags(const std::vector<Version>& versions) {
  std::string text;
  for (const Version& v : versions) text += (text.empty() ? "" : ",") + cuda_variant_tag(v);
  return text;
}

Error parse_error(const std::string& text) {
  auto matrix = parse_torch_matrix("/m/pytorch.toml", text);
  REQUIRE_FALSE(matrix);
  return matrix.error();
}

const char* kMinimal = "index_url = \"https://x/whl\"\n";

}  // namespace

// Releases after 2.14.0 may be added to the file; these tests pin what the sources (docs/sources.md) say.
TEST_CASE("the shipped matrix lists every torch release from 1.12.0 to 2.14.0") {
  const TorchMatrix& matrix = shipped_matrix();
  std::vector<std::string> expected{"1.12.0", "1.12.1", "1.13.0", "1.13.1", "2.0.0",  "2.0.1", "2.1.0", "2.1.1",
                                    "2.1.2",  "2.2.0",  "2.2.1",  "2.2.2",  "2.3.0",  "2.3.1", "2.4.0", "2.4.1",
                                    "2.5.0",  "2.5.1",  "2.6.0",  "2.7.0",  "2.7.1",  "2.8.0", "2.9.0", "2.9.1",
                                    "2.10.0", "2.11.0", "2.12.0", "2.12.1", "2.13.0", "2.14.0"};
  std::vector<std::string> listed;
  for (const TorchRelease& release : matrix.releases) listed.push_back(release.torch.str());
  REQUIRE(listed.size() >= expected.size());
  listed.resize(expected.size());
  CHECK(listed == expected);
  CHECK(matrix.index_url == "https://download.pytorch.org/whl");
}

TEST_CASE("the shipped CUDA variants and PyPI defaults are the published ones") {
  // torch major.minor -> (variants, PyPI default), as RELEASE.md and pytorch.org list them.
  const std::map<std::string, std::pair<std::string, std::string>> reference{
      {"1.12", {"cu102,cu113,cu116", "cu102"}}, {"1.13", {"cu116,cu117", "cu117"}},
      {"2.0", {"cu117,cu118", "cu117"}},        {"2.1", {"cu118,cu121", "cu121"}},
      {"2.2", {"cu118,cu121", "cu121"}},        {"2.3", {"cu118,cu121", "cu121"}},
      {"2.4", {"cu118,cu121,cu124", "cu121"}},  {"2.5", {"cu118,cu121,cu124", "cu124"}},
      {"2.6", {"cu118,cu124,cu126", "cu124"}},  {"2.7", {"cu118,cu126,cu128", "cu126"}},
      {"2.8", {"cu126,cu128,cu129", "cu128"}},  {"2.9", {"cu126,cu128,cu130", "cu128"}},
      {"2.10", {"cu126,cu128,cu130", "cu128"}}, {"2.11", {"cu126,cu128,cu130", "cu130"}},
      {"2.12", {"cu126,cu130,cu132", "cu130"}}, {"2.13", {"cu126,cu130,cu132", "cu130"}},
      {"2.14", {"cu126,cu130,cu132", "cu130"}}};
  for (const TorchRelease& release : shipped_matrix().releases) {
    std::string minor = std::to_string(release.torch.major()) + "." + std::to_string(release.torch.minor());
    INFO("torch " << release.torch.str());
    if (release.torch > *parse_version("2.14.0")) continue;
    REQUIRE(reference.count(minor));
    CHECK(tags(release.cuda) == reference.at(minor).first);
    CHECK(cuda_variant_tag(release.pypi_default) == reference.at(minor).second);
    // RELEASE.md's Experimental CUDA column (docs/sources.md).
    const std::map<std::string, std::string> experimental{
        {"1.12", "cu116"}, {"1.13", "cu117"}, {"2.0", "cu118"},  {"2.1", "cu121"}, {"2.2", "cu121"},
        {"2.3", "cu121"},  {"2.4", "cu124"},  {"2.6", "cu126"},  {"2.7", "cu128"}, {"2.8", "cu129"},
        {"2.9", "cu130"},  {"2.10", "cu130"}, {"2.12", "cu132"}, {"2.13", "cu132"}};
    CHECK(tags(release.experimental) == (experimental.count(minor) ? experimental.at(minor) : ""));
  }
}

TEST_CASE("kernel floors: Volta loses cu128 from torch 2.11 and every cu13x build") {
  const TorchMatrix& matrix = shipped_matrix();
  auto release = [&](const char* torch) {
    for (const TorchRelease& r : matrix.releases) {
      if (r.torch.str() == torch) return r;
    }
    FAIL("no torch " << torch);
    return TorchRelease{};
  };
  auto oldest = [&](const char* torch, const char* cuda) {
    auto arch = oldest_kernel_arch(matrix, release(torch), *parse_version(cuda));
    return arch ? arch->str() : std::string("-");
  };
  CHECK(oldest("2.10.0", "12.8") == "7.0");
  CHECK(oldest("2.11.0", "12.8") == "7.5");
  CHECK(oldest("2.8.0", "12.9") == "7.0");
  CHECK(oldest("2.11.0", "12.6") == "-");
  CHECK(oldest("2.9.0", "13.0") == "7.5");
  CHECK(oldest("2.14.1", "13.2") == "7.5");
  CHECK(oldest("2.7.1", "12.8") == "-");
}

TEST_CASE("[[kernels]] entries are strict like the rest") {
  CHECK_THAT(
      parse_error(std::string(kMinimal) + "[[kernels]]\ncuda = \"12.8\"\ntorch_from = \"2.11\"\nmin_arch = \"7.5\"\n").message,
      Catch::Contains("'2.11' is not a version of 3 numbers"));
  CHECK_THAT(parse_error(std::string(kMinimal) + "[[kernels]]\ncuda = \"12.8\"\nmin_arch = \"7.5\"\n").message,
             Catch::Contains("missing key 'torch_from'"));
  CHECK_THAT(
      parse_error(std::string(kMinimal) + "[[kernels]]\ncuda = \"12.8\"\ntorch_from = \"2.11.0\"\nmin_arch = \"7.5\"\nmax = 1\n")
          .message,
      Catch::Contains("unknown key 'max'"));
}

TEST_CASE("torchvision and torchaudio follow the pairing rules for every release") {
  for (const TorchRelease& release : shipped_matrix().releases) {
    INFO("torch " << release.torch.str());
    int minor = release.torch.minor(), patch = release.torch.patch();
    std::string vision, audio;
    if (release.torch.major() == 1) {
      vision = "0." + std::to_string(minor + 1) + "." + std::to_string(patch);
      audio = "0." + std::to_string(minor) + "." + std::to_string(patch);
    } else {
      vision = "0." + std::to_string(minor + 15) + "." + std::to_string(patch);
      audio = release.torch.str();
    }
    // torch 2.0.y pairs with torchvision 0.15.(y+1) on pip (conda pairs 2.0.0 with 0.15.0).
    if (release.torch.major() == 2 && minor == 0) vision = "0.15." + std::to_string(patch + 1);
    if (minor == 0 && release.torch.major() == 2) audio = "2.0." + std::to_string(patch + 1);
    // From 2.15 torchvision and torchaudio are built on the stable ABI: 0.29.2 and 2.11.1 serve 2.15.0.
    if (release.torch.str() == "2.15.0") {
      CHECK(release.torchvision == "0.29.2");
      CHECK(release.torchaudio == std::optional<std::string>("2.11.1"));
      continue;
    }
    CHECK(release.torchvision == vision);
    if (release.torch.major() == 2 && minor >= 12) {
      CHECK_FALSE(release.torchaudio);  // no torchaudio release after 2.11
    } else {
      REQUIRE(release.torchaudio);
      CHECK(*release.torchaudio == audio);
    }
  }
}

TEST_CASE("the shipped driver floors and DeepSpeed tolerances are uv's and DeepSpeed's") {
  const TorchMatrix& matrix = shipped_matrix();
  CHECK(matrix.min_driver.at(10) == "440.33");
  CHECK(matrix.min_driver.at(11) == "450.80.02");
  CHECK(matrix.min_driver.at(12) == "525.60.13");
  CHECK(matrix.min_driver.at(13) == "580");
  CHECK(tags(matrix.deepspeed_minor_ok.at(12)) == "cu120,cu121,cu122,cu123,cu124,cu125,cu126,cu128,cu129");
  CHECK(matrix.deepspeed_minor_ok.at(11).size() == 9);
  CHECK_FALSE(matrix.deepspeed_minor_ok.count(13));
}

TEST_CASE("every CUDA variant names its download.pytorch.org index") {
  CHECK(cuda_variant_tag(*parse_version("10.2")) == "cu102");
  CHECK(cuda_variant_tag(*parse_version("12.4")) == "cu124");
  CHECK(cuda_variant_tag(*parse_version("13.0")) == "cu130");
}

TEST_CASE("a broken matrix file is an error naming file:line:column") {
  std::string release = "[[release]]\ntorch = \"2.5.1\"\ncuda = [\"12.4\"]\npypi_default = \"12.4\"\ntorchvision = \"0.20.1\"\n";
  auto ok = parse_torch_matrix("/m/pytorch.toml", kMinimal + release);
  REQUIRE(ok);
  CHECK_FALSE(ok->releases[0].torchaudio);

  CHECK(parse_error(std::string(kMinimal) + "[[release]]\ntorch = \"2.5\"\n")
            .message.find("/m/pytorch.toml:3:9: '2.5' is not a version") == 0);
  CHECK(parse_error(kMinimal + release + "colour = \"red\"\n").message.find("/m/pytorch.toml:7:1: unknown key 'colour'") == 0);
  CHECK(parse_error(std::string(kMinimal) +
                    "[[release]]\ntorch = \"2.5.1\"\ncuda = [\"12.4\"]\npypi_default = \"12.1\"\ntorchvision = \"0.20.1\"\n")
            .message.find("/m/pytorch.toml:5:16: pypi_default 12.1 is not in cuda") == 0);
  CHECK(parse_error(kMinimal + release + release).message.find("is listed twice") != std::string::npos);
  CHECK(parse_error(std::string(kMinimal) + "[[release]]\ntorch = \"2.5.1\"\ncuda = [\"12.4.1\"]\n")
            .message.find("/m/pytorch.toml:4:9:") == 0);
  CHECK(parse_error(std::string(kMinimal) + "[[release]]\ntorch = \"2.5.1\"\n").message.find("missing key 'cuda'") !=
        std::string::npos);
  CHECK(parse_error("index_url = [\n").message.find("/m/pytorch.toml:") == 0);
  CHECK(parse_error(kMinimal).message.find("no [[release]]") != std::string::npos);
  CHECK(parse_error(kMinimal + release + "[[driver]]\ncuda_major = \"12\"\nmin_driver = \"525\"\n")
            .message.find("integer cuda_major") != std::string::npos);
}
