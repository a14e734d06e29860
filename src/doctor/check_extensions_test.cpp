// doctor's findings for compiled extensions, from ExtensionScan values built here: one finding
// per broken package with its why and the fix `cudaenv torch --with` would give, one ✓ line for
// the healthy ones.
#include <catch2/catch.hpp>

#include "doctor/check_versions.h"
#include "support/shipped_extension_catalog.h"
#include "torch/matrix.h"

using namespace cudaenv;

namespace {

constexpr std::uint64_t kGiB = 1024ull * 1024 * 1024;

const CudaFacts& facts() {
  static const CudaFacts loaded = [] {
    CudaFacts facts;
    facts.torch_matrix.index_url = "https://download.pytorch.org/whl";
    facts.extensions = testing::shipped_extension_catalog();
    return facts;
  }();
  return loaded;
}

// torch 2.15.0+cu130 (new ABI) in /v, an H100, CUDA 13.0 installed, 40 GiB free, 16 cores.
Probes machine() {
  Probes p;
  p.python.interpreter = "/v/bin/python";
  p.python.has_torch = true;
  p.python.torch_version = "2.15.0+cu130";
  p.python.torch_cuda = *parse_version("13.0");
  p.toolkit.installed = {"13.0.2"};
  ExtensionScan& scan = p.extensions;
  scan.ran = true;
  scan.archs = {*parse_compute_capability("9.0")};
  scan.archs_source = "GPUs here";
  scan.torch_cxx11_abi = true;
  scan.python_tag = "cp312";
  scan.platform = "linux_x86_64";
  scan.memory_available = 40 * kGiB;
  p.extension_fixes.cores = 16;
  return p;
}

ExtensionModule module(const char* file) { return ExtensionModule{file, std::nullopt, {}, std::nullopt}; }

ExtensionPackage package(const char* name, const char* version, std::vector<ExtensionModule> modules) {
  ExtensionPackage p;
  p.name = name;
  p.version = version;
  p.modules = std::move(modules);
  return p;
}

Finding only(const std::vector<Finding>& findings, const std::string& id) {
  const Finding* found = nullptr;
  for (const Finding& finding : findings) {
    if (finding.id == id) {
      REQUIRE(found == nullptr);
      found = &finding;
    }
  }
  REQUIRE(found != nullptr);
  return *found;
}

const char* kFlashWheel =
    "https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/"
    "flash_attn-2.8.3+cu13torch2.15cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";
const char* kFlashSo = "/v/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so";

}  // namespace

TEST_CASE("healthy extensions make one ✓ line") {
  Probes p = machine();
  p.extensions.module_count = 3;
  p.extensions.packages = {
      package("deepspeed", "0.19.8", {module("/s/deepspeed/ops/adam/fused_adam_op.so")}),
      package("xformers", "0.0.35", {module("/s/xformers/_C.so"), module("/s/xformers/_C_flashattention.so")})};
  std::vector<Finding> findings = doctor_detail::check_extensions(p, facts());
  Finding line = only(findings, "extensions");
  CHECK(line.severity == Severity::ok);
  CHECK(line.title == "3 extensions load with torch 2.15.0 and have kernels for sm_90");
  CHECK(extension_wheels_wanted(p, facts()).empty());
}

TEST_CASE("the other C++ ABI: the symbol, torch's ABI, and the wheel that fits when the server has it") {
  Probes p = machine();
  ExtensionModule so = module(kFlashSo);
  so.missing_symbols = MissingSymbols{"c10::Error::Error(c10::SourceLocation, std::string)", 42, true};
  p.extensions.packages = {package("flash_attn", "2.8.3+cu13torch2.15cxx11abiFALSE", {so})};
  p.extensions.module_count = 1;
  CHECK(extension_wheels_wanted(p, facts()) == std::vector<std::string>{kFlashWheel});
  p.extension_fixes.wheels = {{kFlashWheel, {WheelPresence::present, ""}}};
  std::vector<Finding> findings = doctor_detail::check_extensions(p, facts());
  Finding f = only(findings, "extension-flash-attn");
  CHECK(f.severity == Severity::error);
  CHECK(f.title == "flash_attn 2.8.3+cu13torch2.15cxx11abiFALSE will not load: built with the other C++ ABI");
  CHECK(f.explanation ==
        "flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol c10::Error::Error(c10::SourceLocation, "
        "std::string) (and 41 more): built with the other C++ ABI; torch uses the new ABI (_GLIBCXX_USE_CXX11_ABI=1)\n"
        "Why this fix: the prebuilt flash-attn 2.8.3 wheel for torch 2.15 with CUDA 13 (cxx11abiTRUE, cp312, linux_x86_64).");
  CHECK(f.fixes ==
        std::vector<std::string>{std::string("/v/bin/python -m pip install --force-reinstall --no-deps ") + kFlashWheel});
  CHECK_FALSE(std::any_of(findings.begin(), findings.end(), [](const Finding& x) { return x.id == "extensions"; }));
}

TEST_CASE("built for another torch: names that torch, no wheel, so the rebuild of issue 36 1e") {
  Probes p = machine();
  ExtensionModule so = module(kFlashSo);
  so.missing_symbols = MissingSymbols{"at::_ops::empty_memory_format::call(c10::ArrayRef<c10::SymInt>)", 1, false};
  ExtensionPackage flash = package("flash_attn", "2.8.3+cu12torch2.4cxx11abiTRUE", {so});
  flash.built_for_torch = "2.4";
  p.extensions.packages = {flash};
  p.extension_fixes.wheels = {{kFlashWheel, {WheelPresence::absent, ""}}};
  Finding f = only(doctor_detail::check_extensions(p, facts()), "extension-flash-attn");
  CHECK(f.title == "flash_attn 2.8.3+cu12torch2.4cxx11abiTRUE will not load: built for another torch (torch 2.4)");
  CHECK(f.explanation ==
        "flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol "
        "at::_ops::empty_memory_format::call(c10::ArrayRef<c10::SymInt>): built for another torch (torch 2.4); this one is "
        "torch 2.15.0\n"
        "Why this fix: no flash-attn 2.8.3 wheel for torch 2.15 with CUDA 13 (cxx11abiTRUE, cp312, linux_x86_64).");
  CHECK(f.fixes == std::vector<std::string>{
                       "cudaenv exec --cuda 13.0 -- env MAX_JOBS=4 TORCH_CUDA_ARCH_LIST=9.0 FLASH_ATTENTION_FORCE_BUILD=TRUE "
                       "/v/bin/python -m pip install --no-build-isolation --force-reinstall --no-deps --no-cache-dir "
                       "flash-attn==2.8.3"});
}

TEST_CASE("a CUDA library of another major: built for CUDA 12, torch uses CUDA 13") {
  Probes p = machine();
  ExtensionModule so = module("/s/vllm/_C.abi3.so");
  so.missing_libraries = {{"libcudart.so.12"}};
  p.extensions.packages = {package("vllm", "0.34.0", {so}), package("xformers", "0.0.35", {module("/s/xformers/_C.so")})};
  p.extensions.module_count = 2;
  std::vector<Finding> findings = doctor_detail::check_extensions(p, facts());
  Finding f = only(findings, "extension-vllm");
  CHECK(f.title == "vllm 0.34.0 will not load: built for CUDA 12, torch uses CUDA 13.0");
  CHECK(f.explanation ==
        "_C.abi3.so needs libcudart.so.12: built for CUDA 12, torch uses CUDA 13.0\n"
        "Why this fix: vllm 0.34.0's wheels require torch 2.13.0; this torch is 2.15.0.");
  CHECK(f.fixes ==
        std::vector<std::string>{"cudaenv exec --cuda 13.0 -- env MAX_JOBS=2 TORCH_CUDA_ARCH_LIST=9.0 /v/bin/python -m pip "
                                 "install --no-build-isolation --force-reinstall --no-deps --no-cache-dir vllm==0.34.0"});
  CHECK(only(findings, "extensions").title == "1 extension loads with torch 2.15.0 and has kernels for sm_90");
}

TEST_CASE("a library the loader does not find at all") {
  Probes p = machine();
  ExtensionModule so = module("/s/foo/_ext.so");
  so.missing_libraries = {{"libfoo.so.3"}};
  p.extensions.packages = {package("foo-ops", "1.2.0", {so})};
  Finding f = only(doctor_detail::check_extensions(p, facts()), "extension-foo-ops");
  CHECK(f.title == "foo-ops 1.2.0 will not load: libfoo.so.3 is not found");
  CHECK(f.explanation ==
        "_ext.so needs libfoo.so.3, which the loader finds neither among torch's libraries nor in RUNPATH, LD_LIBRARY_PATH or "
        "ld.so.cache\nWhy this fix: foo-ops publishes no wheels: a source build.");
  CHECK(f.fixes ==
        std::vector<std::string>{"cudaenv exec --cuda 13.0 -- env MAX_JOBS=5 TORCH_CUDA_ARCH_LIST=9.0 /v/bin/python -m pip "
                                 "install --no-build-isolation --force-reinstall --no-deps --no-cache-dir foo-ops==1.2.0"});
}

TEST_CASE("no kernel for a GPU here: what the module has, and a build for that GPU") {
  Probes p = machine();
  p.extensions.archs = {*parse_compute_capability("8.6")};
  p.toolkit.installed.clear();
  ExtensionModule so = module("/s/causal_conv1d_cuda.cpython-312-x86_64-linux-gnu.so");
  KernelCoverage kernels;
  kernels.sass = {ArchEntry{*parse_compute_capability("8.0"), 0, false}, ArchEntry{*parse_compute_capability("9.0"), 0, false}};
  kernels.ptx = {ArchEntry{*parse_compute_capability("9.0"), 0, true}};
  kernels.uncovered = {*parse_compute_capability("8.6")};
  so.kernels = kernels;
  p.extensions.packages = {package("causal-conv1d", "1.6.1.post4", {so})};
  std::string wheel = extension_wheels_wanted(p, facts()).at(0);
  p.extension_fixes.wheels = {
      {wheel, {WheelPresence::unknown, "cannot check " + wheel + ": Could not resolve host: github.com"}}};
  Finding f = only(doctor_detail::check_extensions(p, facts()), "extension-causal-conv1d");
  CHECK(f.title == "causal-conv1d 1.6.1.post4 has no kernel for sm_86 (GPUs here)");
  CHECK(
      f.explanation ==
      "causal_conv1d_cuda.cpython-312-x86_64-linux-gnu.so: no kernel for sm_86: has sm_80, sm_90, PTX compute_90; it fails "
      "with \"no kernel image is available for execution on the device\"\n"
      "Why this fix: cannot tell whether https://github.com has the causal-conv1d 1.6.1.post4 wheel for torch 2.15 with CUDA 13 "
      "(cxx11abiTRUE, cp312, linux_x86_64).\n"
      "Could not reach " +
          wheel + ": cannot check " + wheel + ": Could not resolve host: github.com.");
  CHECK(f.fixes == std::vector<std::string>{
                       "cudaenv install 13.0 && cudaenv exec --cuda 13.0 -- env MAX_JOBS=10 TORCH_CUDA_ARCH_LIST=8.6 "
                       "CAUSAL_CONV1D_FORCE_BUILD=TRUE /v/bin/python -m pip install --no-build-isolation --force-reinstall "
                       "--no-deps --no-cache-dir causal-conv1d==1.6.1.post4"});
}

TEST_CASE("doctor's fix and torch --with give the same answer for the same package") {
  Probes p = machine();
  ExtensionModule so = module(kFlashSo);
  so.missing_symbols = MissingSymbols{"c10::Error::Error(c10::SourceLocation, std::string)", 1, true};
  p.extensions.packages = {package("flash-attn", "2.8.3", {so})};
  p.extension_fixes.wheels = {{kFlashWheel, {WheelPresence::present, ""}}};
  Finding f = only(doctor_detail::check_extensions(p, facts()), "extension-flash-attn");
  ExtensionTarget target;
  target.torch = *parse_version("2.15.0");
  target.cuda = *parse_version("13.0");
  target.index_url = "https://download.pytorch.org/whl/cu130";
  target.python_tag = "cp312";
  target.platform = "linux_x86_64";
  ExtensionAdvice with =
      advise(*facts().extensions.find("flash-attn"), {"flash-attn", std::nullopt}, target, p.extension_fixes.wheels);
  REQUIRE(with.kind == AdviceKind::wheel);
  CHECK(f.fixes.at(0).find(with.requirement) != std::string::npos);
}

TEST_CASE("a scan that did not run says why only where torch is there, unreadable files are a warning") {
  Probes p = machine();
  p.extensions = ExtensionScan{};
  p.extensions.skipped = "the Python probe timed out";
  CHECK(only(doctor_detail::check_extensions(p, facts()), "extensions").title ==
        "compiled extensions not checked: the Python probe timed out");
  p.python.has_torch = false;
  for (const Finding& finding : doctor_detail::check_extensions(p, facts())) CHECK(finding.id.rfind("extension", 0) != 0);
  Probes q = machine();
  q.extensions.unreadable = {"/s/x/_C.so: truncated ELF section headers"};
  Finding f = only(doctor_detail::check_extensions(q, facts()), "extension-unreadable");
  CHECK(f.severity == Severity::warning);
  CHECK(f.explanation == "/s/x/_C.so: truncated ELF section headers");
}
