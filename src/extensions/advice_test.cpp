// The advice `cudaenv torch --with` and doctor share: which answer for which target, the wheel
// URL only once the lookup said the server has it, and the build command of issue 36 1e.
#include <catch2/catch.hpp>

#include "extensions/advice.h"
#include "support/shipped_extension_catalog.h"

using namespace cudaenv;

namespace {

const ExtensionCatalog& catalog() { return testing::shipped_extension_catalog(); }

constexpr std::uint64_t kGiB = 1024ull * 1024 * 1024;

// torch 2.15.0+cu130 on an H100, Python 3.12, 40 GiB free, 16 cores, CUDA 13.0 installed.
ExtensionTarget h100() {
  ExtensionTarget target;
  target.torch = *parse_version("2.15.0");
  target.cuda = *parse_version("13.0");
  target.index_url = "https://download.pytorch.org/whl/cu130";
  target.cxx11_abi = true;
  target.python_tag = "cp312";
  target.platform = "linux_x86_64";
  target.archs = {*parse_compute_capability("9.0")};
  target.memory_available = 40 * kGiB;
  target.cores = 16;
  target.toolkit_installed = true;
  return target;
}

ExtensionRequest request(const char* name, std::optional<std::string> version = std::nullopt) { return {name, version}; }

ExtensionAdvice advise_named(const ExtensionRequest& request, const ExtensionTarget& target, const WheelAnswers& answers) {
  return advise(entry_for(catalog(), request.name), request, target, answers);
}

const char* kFlashWheel =
    "https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/"
    "flash_attn-2.8.3+cu13torch2.15cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";

}  // namespace

TEST_CASE("the flash-attn wheel URL follows its setup.py's scheme") {
  CHECK(wanted_wheels(catalog(), {request("flash-attn")}, h100()) == std::vector<std::string>{kFlashWheel});
  ExtensionTarget old = h100();
  old.torch = *parse_version("2.4.1");
  old.cuda = *parse_version("12.4");
  old.cxx11_abi = false;
  old.python_tag = "cp310";
  CHECK(*fitting_wheel_url(*catalog().find("mamba-ssm"), "2.3.2.post1", old) ==
        "https://github.com/state-spaces/mamba/releases/download/v2.3.2.post1/"
        "mamba_ssm-2.3.2.post1+cu12torch2.4cxx11abiFALSE-cp310-cp310-linux_x86_64.whl");
  ExtensionTarget mirrored = h100();
  mirrored.mirror = "http://127.0.0.1:9/wheels/";
  CHECK(*fitting_wheel_url(*catalog().find("flash-attn"), "2.8.3", mirrored) ==
        "http://127.0.0.1:9/wheels/flash_attn-2.8.3+cu13torch2.15cxx11abiTRUE-cp312-cp312-linux_x86_64.whl");
  ExtensionTarget no_python = h100();
  no_python.python_tag.clear();
  CHECK(wanted_wheels(catalog(), {request("flash-attn")}, no_python).empty());
  CHECK(wanted_wheels(catalog(), {request("xformers"), request("apex")}, h100()).empty());
}

TEST_CASE("a wheel the server has is the answer, its URL the requirement") {
  WheelAnswers answers{{kFlashWheel, {WheelPresence::present, ""}}};
  ExtensionAdvice advice = advise_named(request("flash-attn"), h100(), answers);
  CHECK(advice.kind == AdviceKind::wheel);
  CHECK(advice.requirement == kFlashWheel);
  CHECK(advice.why == "the prebuilt flash-attn 2.8.3 wheel for torch 2.15 with CUDA 13 (cxx11abiTRUE, cp312, linux_x86_64)");
  CHECK(render_with("pip", {"torch==2.15.0+cu130"}, h100().index_url, {advice}) ==
        std::string("pip install torch==2.15.0+cu130 ") + kFlashWheel +
            " --extra-index-url https://download.pytorch.org/whl/cu130");
}

TEST_CASE("no wheel: the build under torch's CUDA, for the GPUs here, MAX_JOBS from memory") {
  WheelAnswers answers{{kFlashWheel, {WheelPresence::absent, ""}}};
  ExtensionAdvice advice = advise_named(request("flash-attn"), h100(), answers);
  CHECK(advice.kind == AdviceKind::build);
  CHECK(advice.why == "no flash-attn 2.8.3 wheel for torch 2.15 with CUDA 13 (cxx11abiTRUE, cp312, linux_x86_64)");
  REQUIRE(advice.build);
  CHECK(render_build("pip", *advice.build) ==
        "cudaenv exec --cuda 13.0 -- env MAX_JOBS=4 TORCH_CUDA_ARCH_LIST=9.0 FLASH_ATTENTION_FORCE_BUILD=TRUE pip install "
        "--no-build-isolation flash-attn==2.8.3");
  CHECK(render_with("uv pip", {"torch==2.15.0+cu130", "torchvision==0.30.0+cu130"}, h100().index_url, {advice}) ==
        "uv pip install torch==2.15.0+cu130 torchvision==0.30.0+cu130 --index-url https://download.pytorch.org/whl/cu130 && "
        "cudaenv exec --cuda 13.0 -- env MAX_JOBS=4 TORCH_CUDA_ARCH_LIST=9.0 FLASH_ATTENTION_FORCE_BUILD=TRUE uv pip install "
        "--no-build-isolation flash-attn==2.8.3");
}

TEST_CASE("unreachable: says what, and still gives the build") {
  WheelAnswers answers{{kFlashWheel, {WheelPresence::unknown, "Could not resolve host: github.com"}}};
  ExtensionTarget target = h100();
  target.toolkit_installed = false;
  target.archs = {*parse_compute_capability("9.0"), *parse_compute_capability("8.0")};
  ExtensionAdvice advice = advise_named(request("flash-attn", "2.8.3"), target, answers);
  CHECK(advice.kind == AdviceKind::build);
  CHECK(advice.why ==
        "cannot tell whether https://github.com has the flash-attn 2.8.3 wheel for torch 2.15 with CUDA 13 (cxx11abiTRUE, cp312, "
        "linux_x86_64)");
  CHECK(advice.unreachable == std::vector<std::string>{std::string(kFlashWheel) + ": Could not resolve host: github.com"});
  CHECK(render_build("/v/bin/python -m pip", *advice.build) ==
        "cudaenv install 13.0 && cudaenv exec --cuda 13.0 -- env MAX_JOBS=4 TORCH_CUDA_ARCH_LIST='8.0;9.0' "
        "FLASH_ATTENTION_FORCE_BUILD=TRUE /v/bin/python -m pip install --no-build-isolation flash-attn==2.8.3");
}

TEST_CASE("MAX_JOBS: available memory over the package's per-job figure, at least 1, at most the cores") {
  CHECK(max_jobs(9, 40 * kGiB, 16) == 4);
  CHECK(max_jobs(9, 4 * kGiB, 16) == 1);
  CHECK(max_jobs(4, 512 * kGiB, 8) == 8);
  CHECK(max_jobs(4, std::nullopt, 8) == 1);
  CHECK(max_jobs(4, 64 * kGiB, 0) == 1);
}

TEST_CASE("packages on the PyTorch index join torch's pins and index") {
  ExtensionAdvice xformers = advise_named(request("xformers"), h100(), {});
  CHECK(xformers.kind == AdviceKind::pytorch_index);
  CHECK(xformers.requirement == "xformers");
  ExtensionAdvice vision = advise_named(request("torchvision", "0.30.0"), h100(), {});
  CHECK(vision.requirement == "torchvision==0.30.0+cu130");
  CHECK(render_with("pip", {"torch==2.15.0+cu130"}, h100().index_url, {xformers}) ==
        "pip install torch==2.15.0+cu130 xformers --index-url https://download.pytorch.org/whl/cu130");
}

TEST_CASE("a PyPI release that requires another torch is built, and says which torch it wants") {
  ExtensionAdvice vllm = advise_named(request("vllm"), h100(), {});
  CHECK(vllm.kind == AdviceKind::build);
  CHECK(vllm.why == "vllm 0.34.0's wheels require torch 2.13.0; this torch is 2.15.0");
  CHECK(vllm.torch_required == *parse_version("2.13.0"));
  CHECK(required_torch(catalog(), request("vllm")) == *parse_version("2.13.0"));
  ExtensionTarget fits = h100();
  fits.torch = *parse_version("2.13.0");
  CHECK(advise_named(request("vllm"), fits, {}).requirement == "vllm==0.34.0");
  fits.cuda = *parse_version("12.6");
  CHECK(advise_named(request("vllm"), fits, {}).why == "vllm 0.34.0's wheels are built for CUDA 13; torch uses CUDA 12.6");
  ExtensionAdvice bnb = advise_named(request("bitsandbytes"), h100(), {});
  CHECK(bnb.kind == AdviceKind::pypi);
  CHECK(bnb.requirement == "bitsandbytes");
}

TEST_CASE("a source-only package is built, a CPU torch cannot build a CUDA extension") {
  ExtensionAdvice apex = advise_named(request("apex"), h100(), {});
  CHECK(apex.why == "apex publishes no wheels: a source build");
  CHECK(render_build("pip", *apex.build) ==
        "cudaenv exec --cuda 13.0 -- env MAX_JOBS=5 TORCH_CUDA_ARCH_LIST=9.0 pip install --no-build-isolation --config-settings "
        "--build-option=--cpp_ext --config-settings --build-option=--cuda_ext git+https://github.com/NVIDIA/apex");
  ExtensionTarget cpu = h100();
  cpu.cuda.reset();
  cpu.index_url = "https://download.pytorch.org/whl/cpu";
  ExtensionAdvice flash = advise_named(request("flash-attn"), cpu, {});
  CHECK(flash.kind == AdviceKind::none);
  CHECK(flash.why ==
        "no flash-attn 2.8.3 wheel for a CPU build of torch; and a source build needs a CUDA build of torch, this one "
        "is for the CPU");
}

TEST_CASE("the extensions torch --with names: known ones, optionally pinned") {
  auto parsed = parse_extension_requests(catalog(), "flash_attn==2.7.4.post1, xformers");
  REQUIRE(parsed);
  REQUIRE(parsed->size() == 2);
  CHECK((*parsed)[0].name == "flash-attn");
  CHECK((*parsed)[0].version == "2.7.4.post1");
  CHECK((*parsed)[1].name == "xformers");
  CHECK_FALSE((*parsed)[1].version);
  auto unknown = parse_extension_requests(catalog(), "flash-atn");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message == "--with: 'flash-atn' is not an extension cudaenv knows");
  CHECK(unknown.error().hint.rfind("did you mean flash-attn?", 0) == 0);
  CHECK(unknown.error().kind == ErrorKind::usage);
  auto bad = parse_extension_requests(catalog(), "flash-attn==; rm -rf /");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "--with: 'flash-attn==; rm -rf /' does not name a release");
  CHECK_FALSE(parse_extension_requests(catalog(), "xformers,xformers"));
}
