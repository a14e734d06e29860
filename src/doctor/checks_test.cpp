// The doctor's checks are pure: Probes in, findings out. These cover the rules without
// running anything; the integration suites cover the probes.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "doctor/checks.h"
#include "doctor/driver_fit.h"

using namespace cudaenv;

namespace {

std::string manifest(const char* name) {
  std::ifstream in(std::string(CUDAENV_SOURCE_DIR) + "/manifests/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const CudaFacts& facts() {
  static const CudaFacts loaded = [] {
    auto parsed = parse_cuda_facts("cuda-facts.toml", manifest("cuda-facts.toml"));
    REQUIRE(parsed.ok());
    auto matrix = parse_torch_matrix("pytorch.toml", manifest("pytorch.toml"));
    REQUIRE(matrix.ok());
    REQUIRE(adopt_torch_matrix(parsed.value(), matrix.value()).ok());
    return parsed.value();
  }();
  return loaded;
}

Version v(const char* text) { return *parse_version(text); }
ComputeCapability cc(const char* text) { return *parse_compute_capability(text); }

// A machine where everything agrees: driver 12.4 with an RTX 4090, toolkit 12.4, torch cu124, gcc 12.
Probes consistent() {
  Probes p;
  p.driver.loaded = true;
  p.driver.cuda = v("12.4");
  p.driver.version = DriverVersion{v("550.54.14"), "550.54.14"};
  p.driver.gpus = {Gpu{"NVIDIA GeForce RTX 4090", cc("8.9")}};
  p.toolkit.found = true;
  p.toolkit.name = "12.4";
  p.toolkit.version = v("12.4");
  p.toolkit.home = "/r/versions/12.4";
  p.toolkit.installed = {"11.8", "12.4"};
  p.nvcc.path = "/r/shims/nvcc";
  p.nvcc.resolved = "/r/versions/12.4/bin/nvcc";
  p.nvcc.via_shim = true;
  p.nvcc.version = v("12.4");
  p.python.interpreter = "/usr/bin/python3";
  p.python.has_torch = true;
  p.python.torch_version = "2.4.0+cu124";
  p.python.torch_cuda = v("12.4");
  p.python.arch_list = {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"};
  p.compiler.command = "gcc";
  p.compiler.path = "/usr/bin/gcc";
  p.compiler.kind = "gcc";
  p.compiler.version = v("12.2.0");
  return p;
}

std::vector<Finding> with_id(const std::vector<Finding>& findings, const std::string& id) {
  std::vector<Finding> out;
  for (const Finding& f : findings) {
    if (f.id == id) out.push_back(f);
  }
  return out;
}

Finding only(const Probes& probes, const std::string& id) {
  auto found = with_id(run_checks(probes, facts()), id);
  REQUIRE(found.size() == 1);
  return found.front();
}

}  // namespace

TEST_CASE("doctor: a consistent machine has no warning or error") {
  auto findings = run_checks(consistent(), facts());
  CHECK_FALSE(has_error(findings));
  for (const Finding& f : findings) CHECK(f.severity == Severity::ok);
}

TEST_CASE("doctor: toolkit 11.8 with torch cu121 is the classic major mismatch") {
  Probes p = consistent();
  p.toolkit.version = p.nvcc.version = v("11.8");
  p.nvcc.resolved = "/r/versions/11.8/bin/nvcc";
  p.python.torch_version = "2.1.2+cu121";
  p.python.torch_cuda = v("12.1");
  Finding f = only(p, "toolkit-torch");
  CHECK(f.severity == Severity::error);
  // The torch-side fix is `cudaenv torch`'s command, for the probed interpreter.
  CHECK(f.fixes == std::vector<std::string>{"cudaenv install 12.1 && cudaenv use 12.1",
                                            "/usr/bin/python3 -m pip install torch==2.1.2+cu118 torchvision==0.16.2+cu118 "
                                            "torchaudio==2.1.2+cu118 --index-url https://download.pytorch.org/whl/cu118"});
  p.python.interpreter = "/home/a b/venv/bin/python";
  CHECK(only(p, "toolkit-torch").fixes[1].rfind("'/home/a b/venv/bin/python' -m pip install torch==2.1.2+cu118 ", 0) == 0);
  // torch 2.14.0 has no CUDA 11 build: the newest release that has one for exactly 11.8.
  p.python.torch_version = "2.14.0+cu126";
  p.python.torch_cuda = v("12.6");
  CHECK(only(p, "toolkit-torch").fixes[1].find("-m pip install torch==2.7.1+cu118 ") != std::string::npos);
  // No build to offer (no cu13x build has kernels for a Volta GPU): the `cudaenv torch` line that says why.
  p.toolkit.version = p.nvcc.version = v("13.0");
  p.nvcc.resolved = "/r/versions/13.0/bin/nvcc";
  p.driver.gpus = {Gpu{"Tesla V100", cc("7.0")}};
  CHECK(only(p, "toolkit-torch").fixes[1] == "cudaenv torch --torch 2.14.0 --cuda 13.0");
}

TEST_CASE("doctor: DeepSpeed's tolerated minors depend on the DeepSpeed release") {
  const std::optional<Version> newest;  // a version that does not read: the newest list
  CHECK(facts().deepspeed_tolerates(v("12.1"), v("12.4"), newest));
  CHECK(facts().deepspeed_tolerates(v("13.0.1"), v("13.0"), newest));
  CHECK_FALSE(facts().deepspeed_tolerates(v("12.7"), v("12.4"), newest));  // 12.7 is not in its list
  CHECK_FALSE(facts().deepspeed_tolerates(v("13.2"), v("13.0"), newest));  // 13 has no list at all
  CHECK_FALSE(facts().deepspeed_tolerates(v("11.8"), v("12.1"), newest));
  // op_builder/builder.py at each tag: 0.12.1 lists 12.0-12.3, 0.14.3 adds 12.4/12.5,
  // 0.15.3 12.6, 0.16.4 12.8, 0.17.2 12.9; before 0.9.3 there is no CUDA 12 list.
  CHECK(facts().deepspeed_tolerates(v("12.1"), v("12.3"), v("0.12.6")));
  CHECK_FALSE(facts().deepspeed_tolerates(v("12.1"), v("12.4"), v("0.12.6")));
  CHECK(facts().deepspeed_tolerates(v("12.1"), v("12.4"), v("0.14.3")));
  CHECK_FALSE(facts().deepspeed_tolerates(v("12.4"), v("12.6"), v("0.15.2")));
  CHECK(facts().deepspeed_tolerates(v("12.4"), v("12.6"), v("0.15.3")));
  CHECK_FALSE(facts().deepspeed_tolerates(v("12.8"), v("12.9"), v("0.17.1")));
  CHECK(facts().deepspeed_tolerates(v("12.8"), v("12.9"), v("0.17.2")));
  CHECK(facts().deepspeed_tolerates(v("12.8"), v("12.9"), v("0.19.6")));
  CHECK_FALSE(facts().deepspeed_tolerates(v("12.0"), v("12.1"), v("0.9.2")));
  CHECK_FALSE(facts().deepspeed_tolerates(v("11.1"), v("11.3"), v("0.3.16")));  // older than every list
  CHECK(*facts().deepspeed_first_tolerating(v("12.1"), v("12.4")) == v("0.14.3"));
  CHECK_FALSE(facts().deepspeed_first_tolerating(v("13.1"), v("13.0")));
  CHECK(*release_version("0.15.0rc1") == v("0.15.0"));
  CHECK(*release_version("2.11.0+cu128") == v("2.11.0"));
  CHECK_FALSE(release_version("unknown (ImportError())"));
}

TEST_CASE("doctor: facts read upstream: 13.x rows, sm_88, torch's own gcc bounds") {
  CHECK(facts().release(v("13.0"))->builds_for(cc("8.8")));  // nvcc 13.0 --list-gpu-arch
  CHECK(*facts().release(v("13.3"))->gcc_max == 15);
  CHECK(facts().release(v("13.3"))->driver->text == "610.43.02");
  CHECK_FALSE(facts().release(v("13.4"))->driver);
  CHECK(*facts().release(v("13.4"))->gcc_max == 16);
  CHECK(*facts().release(v("13.4"))->clang_max == 22);
  CHECK(facts().release(v("13.4"))->builds_for(cc("10.7")));
  CHECK_FALSE(facts().release(v("13.3"))->builds_for(cc("10.7")));
  // nvidia-cuda-crt 13.5.37's host_config.h; nvidia-cuda-nvcc 13.5.37 --list-gpu-arch.
  CHECK(*facts().release(v("13.5"))->gcc_max == 16);
  CHECK(*facts().release(v("13.5"))->clang_max == 22);
  CHECK(*facts().release(v("13.3"))->clang_max == 21);
  CHECK(facts().release(v("13.5"))->builds_for(cc("10.7")));
  CHECK_FALSE(facts().release(v("13.6")));
  CHECK_FALSE(facts().torch_gcc_max(v("2.10.0"), v("12.8")));  // only warns
  CHECK(*facts().torch_gcc_max(v("2.10.0"), v("11.7")) == 11);
  CHECK(*facts().torch_gcc_max(v("2.11.0"), v("12.8")) == 13);
  CHECK(*facts().torch_gcc_max(v("2.11.0"), v("12.4")) == 13);
  CHECK(*facts().torch_gcc_max(v("2.12.1"), v("12.8")) == 14);
  CHECK(*facts().torch_gcc_max(v("2.15.0"), v("13.0")) == 15);
  CHECK_FALSE(facts().torch_gcc_max(v("2.15.0"), v("13.2")));
}

TEST_CASE("doctor: DeepSpeed's verdict and fixes follow the probed release") {
  Probes p = consistent();
  p.python.interpreter = "/venv/bin/python";
  p.python.torch_version = "2.4.0+cu124";
  p.python.torch_cuda = v("12.4");
  p.toolkit.version = p.nvcc.version = v("12.1");
  p.python.deepspeed_version = "0.14.3";
  CHECK(only(p, "deepspeed-cuda").severity == Severity::ok);
  p.python.deepspeed_version = "0.12.6";
  Finding old = only(p, "deepspeed-cuda");
  CHECK(old.severity == Severity::error);
  CHECK(old.explanation.find("its tolerated CUDA 12 minors are 12.0, 12.1, 12.2, 12.3") != std::string::npos);
  CHECK(old.explanation.find("DeepSpeed 0.14.3 and later tolerate this pair") != std::string::npos);
  CHECK(std::find(old.fixes.begin(), old.fixes.end(), "'/venv/bin/python' -m pip install 'deepspeed>=0.14.3'") !=
        old.fixes.end());
  CHECK(old.fixes.back() == "export DS_SKIP_CUDA_CHECK=1");
  // CUDA 13: no release tolerates a minor mismatch, so no upgrade is offered.
  p.python.torch_cuda = v("13.0");
  p.toolkit.version = p.nvcc.version = v("13.2");
  p.python.deepspeed_version = "0.19.6";
  Finding thirteen = only(p, "deepspeed-cuda");
  CHECK(thirteen.severity == Severity::error);
  CHECK(thirteen.explanation.find("it tolerates no CUDA 13 minor mismatch") != std::string::npos);
  // DS_SKIP_CUDA_CHECK=1 lets it through, and is reported on its own.
  p.deepspeed_skip_check = true;
  CHECK(only(p, "deepspeed-cuda").severity == Severity::warning);
  CHECK(only(p, "deepspeed-skip").severity == Severity::info);
  // ... a major mismatch too, from 0.9.3 on; an older DeepSpeed ignores the variable.
  p.toolkit.version = p.nvcc.version = v("12.4");
  CHECK(only(p, "deepspeed-cuda").title.find("lets nvcc 12.4 with torch's CUDA 13.0 through") != std::string::npos);
  p.python.deepspeed_version = "0.9.2";
  CHECK(with_id(run_checks(p, facts()), "deepspeed-cuda").empty());  // toolkit-torch reports the major mismatch
  CHECK(only(p, "deepspeed-skip").title == "DS_SKIP_CUDA_CHECK=1 is set, and DeepSpeed 0.9.2 ignores it");
}

TEST_CASE("doctor: the toolkit's CUDA against the driver") {
  Probes p = consistent();
  p.toolkit.version = p.nvcc.version = v("12.6");
  CHECK(only(p, "driver-toolkit").severity == Severity::warning);  // 12.6 on a 12.4 driver: minor compatibility
  p.toolkit.version = p.nvcc.version = v("13.0");
  Finding f = only(p, "driver-toolkit");
  CHECK(f.severity == Severity::error);
  CHECK(f.fixes == std::vector<std::string>{"cudaenv use 12.4"});
  CHECK(f.explanation.find("580.65.06") != std::string::npos);
}

TEST_CASE("doctor: without cuDriverGetVersion the driver version is compared with the facts") {
  Probes p = consistent();
  p.driver.cuda.reset();
  p.driver.version = DriverVersion{v("470.82.01"), "470.82.01"};
  CHECK(only(p, "driver-torch").severity == Severity::error);  // below 12.x's floor 525.60.13
  p.driver.version = DriverVersion{v("535.54.03"), "535.54.03"};
  CHECK(only(p, "driver-torch").severity == Severity::warning);  // 12.x, older than 12.4's 550.54.14
}

TEST_CASE("doctor: CUDAENV_DRIVER_VERSION stands in for the probed driver") {
  Probes p = consistent();
  p.toolkit.version = p.nvcc.version = v("13.0");
  stand_in_driver(p.driver, DriverReading{"580.65.06", "CUDAENV_DRIVER_VERSION"});
  CHECK(p.driver.overridden());
  CHECK(p.driver.replaced == "550.54.14, CUDA 12.4");
  CHECK_FALSE(p.driver.cuda);  // the loaded driver's answer is not the stand-in's
  CHECK(p.driver.gpus.size() == 1);
  CHECK(only(p, "driver").severity == Severity::info);
  CHECK(only(p, "driver-toolkit").severity == Severity::ok);
  stand_in_driver(p.driver, DriverReading{"575.51.03", "CUDAENV_DRIVER_VERSION"});
  Finding f = only(p, "driver-toolkit");
  CHECK(f.severity == Severity::error);  // below CUDA 13's floor
  // Known only by its version, the driver still gets the toolkit it runs: 575.51.03 is 12.9's.
  CHECK(f.fixes == std::vector<std::string>{"cudaenv install 12.9 && cudaenv use 12.9"});
}

TEST_CASE("doctor: driver_shortfall from cuDriverGetVersion, else from the facts' driver floors") {
  DriverProbe driver;
  CHECK(driver_shortfall(driver, v("13.0"), facts()) == DriverShortfall::none);  // nothing known: nothing said
  driver.cuda = v("12.4");
  CHECK(driver_shortfall(driver, v("12.4.1"), facts()) == DriverShortfall::none);
  CHECK(driver_shortfall(driver, v("12.6"), facts()) == DriverShortfall::minor);
  CHECK(driver_shortfall(driver, v("13.0"), facts()) == DriverShortfall::major);
  driver.cuda.reset();
  driver.version = DriverVersion{v("560.28.03"), "560.28.03"};
  CHECK(driver_shortfall(driver, v("12.6"), facts()) == DriverShortfall::none);
  CHECK(driver_shortfall(driver, v("12.8"), facts()) == DriverShortfall::minor);
  CHECK(driver_shortfall(driver, v("13.5"), facts()) == DriverShortfall::major);
  // 13.5 has no driver row: its major's floor is what it wants.
  CHECK(driver_needed(v("13.5"), facts()) == "580");
  CHECK(driver_needed(v("13.0"), facts()) == "580.65.06");
}

TEST_CASE("doctor: an nvcc ahead of the shims is an error naming both and who runs which") {
  Probes p = consistent();
  p.toolkit.home = "/r/versions/12.4.1";
  p.toolkit.name = "12.4.1";
  p.nvcc.path = p.nvcc.resolved = "/usr/local/cuda-11.8/bin/nvcc";
  p.nvcc.via_shim = false;
  p.nvcc.version = v("11.8");
  p.nvcc.shims_on_path = true;
  p.nvcc.path_without = "/r/shims:/usr/bin";
  Finding f = only(p, "nvcc-path");
  CHECK(f.severity == Severity::error);
  CHECK(f.title ==
        "nvcc on PATH is /usr/local/cuda-11.8/bin/nvcc (CUDA 11.8), not the selected CUDA 12.4.1's: "
        "/usr/local/cuda-11.8/bin comes before cudaenv's shims on PATH");
  CHECK(f.fixes == std::vector<std::string>{"eval \"$(cudaenv env)\"", "export PATH='/r/shims:/usr/bin'"});
  // The selected toolkit's own bin first on PATH (`eval "$(cudaenv env)"`) is no shadow.
  p.nvcc.path = p.nvcc.resolved = "/r/versions/12.4.1/bin/nvcc";
  CHECK(only(p, "nvcc-path").severity == Severity::ok);
  // "system" selects the nvcc on PATH itself.
  p.toolkit.name = "system";
  p.nvcc.path = p.nvcc.resolved = "/usr/local/cuda-11.8/bin/nvcc";
  CHECK(only(p, "nvcc-path").severity == Severity::ok);
}

TEST_CASE("doctor: CUDA_HOME and CUDA_PATH, NVIDIA's wheels, cuDNN sub-libraries: said only where they apply") {
  Probes p = consistent();
  auto findings = run_checks(p, facts());
  for (const char* id : {"cuda-home-path", "cuda-wheels", "ld-library-path-cudnn", "wsl", "wsl-nvidia-smi"}) {
    CHECK(with_id(findings, id).empty());
  }
  p.cuda_home.variable = "CUDA_HOME";
  p.cuda_home.home = "/r/versions/12.4";
  p.cuda_home.cuda_path = "/usr/local/cuda-11.8";
  CHECK(only(p, "cuda-home-path").severity == Severity::warning);
  p.cuda_wheels.nvcc = "/v/site-packages/nvidia/cu13/bin/nvcc";
  p.cuda_wheels.nvcc_version = v("13.0");
  Finding wheels = only(p, "cuda-wheels");
  CHECK(wheels.severity == Severity::warning);
  // No pip fix for a CUDA 12 build toolkit: its nvcc wheel carries no nvcc.
  CHECK(wheels.fixes == std::vector<std::string>{"cudaenv install 13.0 && cudaenv use 13.0"});
  p.python.cudnn = v("9.10.2");
  p.library_path = {LibraryPathEntry{"/r/versions/12.4/lib64", fs::path("/r/versions/12.4"), v("12.4"), true, v("9.1.0")}};
  CHECK(only(p, "ld-library-path-cudnn").severity == Severity::warning);
  p.library_path[0].cudnn.reset();  // a release that cannot be read is not called another
  CHECK(with_id(run_checks(p, facts()), "ld-library-path-cudnn").empty());
}

TEST_CASE("doctor: WSL2's driver: the Windows one's libcuda, a Linux driver's, or none") {
  Probes p = consistent();
  p.wsl.wsl = true;
  p.wsl.driver_dir = "/usr/lib/wsl/lib";
  p.wsl.has_libcuda = true;
  p.wsl.nvidia_smi = "/usr/lib/wsl/lib/nvidia-smi";
  p.driver.library = "/usr/lib/wsl/lib/libcuda.so.1";
  CHECK(only(p, "wsl").severity == Severity::ok);
  CHECK(with_id(run_checks(p, facts()), "wsl-nvidia-smi").empty());
  p.driver.library = "/usr/lib/wsl/lib/../../x86_64-linux-gnu/libcuda.so.1";  // not fooled by ".."
  CHECK(only(p, "wsl").severity == Severity::error);
  p.driver.library = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
  Finding linux_driver = only(p, "wsl");
  CHECK(linux_driver.severity == Severity::error);
  CHECK(linux_driver.fixes.front().find("dpkg -S '/usr/lib/x86_64-linux-gnu/libcuda.so.1'") != std::string::npos);
  p.driver.loaded = false;
  p.wsl.has_libcuda = false;
  CHECK(only(p, "wsl").title.find("is missing") != std::string::npos);
}

TEST_CASE("doctor: GPUs the toolkit cannot build for: too new and dropped") {
  Probes p = consistent();
  p.driver.gpus = {Gpu{"NVIDIA GeForce RTX 5090", cc("12.0")}, Gpu{"Tesla P100", cc("6.0")}};
  p.toolkit.version = p.nvcc.version = v("13.0");
  p.driver.cuda = v("13.0");
  p.python.has_torch = false;
  p.python.torch_cuda.reset();
  auto found = with_id(run_checks(p, facts()), "gpu-toolkit");
  REQUIRE(found.size() == 2);
  CHECK(found[0].severity == Severity::ok);
  CHECK(found[1].severity == Severity::error);
  CHECK(found[1].explanation.find("CUDA 13.0 dropped sm_60") != std::string::npos);
  CHECK(found[1].fixes == std::vector<std::string>{"cudaenv install 12.9 && cudaenv use 12.9"});
}

TEST_CASE("doctor: torch arch list: same major and lower minor runs, sm_90a only on 9.0, PTX covers newer") {
  Probes p = consistent();
  p.python.arch_list = {"sm_80", "sm_90a"};
  p.driver.gpus = {Gpu{"RTX 4090", cc("8.9")}, Gpu{"H100", cc("9.0")}, Gpu{"B200", cc("10.0")}};
  auto found = with_id(run_checks(p, facts()), "gpu-torch");
  REQUIRE(found.size() == 3);
  CHECK(found[0].severity == Severity::ok);
  CHECK(found[1].severity == Severity::ok);
  CHECK(found[2].severity == Severity::error);
  CHECK(found[2].fixes ==
        std::vector<std::string>{"/usr/bin/python3 -m pip install torch==2.11.0+cu128 torchvision==0.26.0+cu128 "
                                 "torchaudio==2.11.0+cu128 --index-url https://download.pytorch.org/whl/cu128"});
  p.python.arch_list.push_back("compute_90");
  CHECK(with_id(run_checks(p, facts()), "gpu-torch")[2].severity == Severity::ok);
}

TEST_CASE("doctor: arch names from a hostile python are no GPU, never an exception") {
  Probes p = consistent();
  p.python.arch_list = {"sm_99999999999999999999", "sm_", "sm_8", "compute_", "sm_9x0", "sm_\x1b[31m", "sm_80"};
  p.driver.gpus = {Gpu{"A100", cc("8.0")}};
  auto found = with_id(run_checks(p, facts()), "gpu-torch");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::ok);
}

TEST_CASE("doctor: gcc newer than nvcc accepts") {
  Probes p = consistent();
  p.compiler.version = v("14.1.0");
  p.compiler.other_gcc_majors = {11, 12, 14};
  Finding f = only(p, "host-compiler");
  CHECK(f.severity == Severity::error);
  REQUIRE(f.fixes.size() == 2);
  CHECK(f.fixes[0] == "cudaenv use --host-compiler gcc-12");        // the newest one 12.4 accepts (<= 13)
  CHECK(f.fixes[1] == "cudaenv install 12.8 && cudaenv use 12.8");  // the first CUDA taking gcc 14
  p.compiler.kind = "clang";
  p.compiler.version = v("17.0.6");
  CHECK(only(p, "host-compiler").severity == Severity::error);  // 12.4 takes clang <= 16
  p.compiler.version = v("16.0.6");
  CHECK(only(p, "host-compiler").severity == Severity::ok);
}

TEST_CASE("doctor: TORCH_CUDA_ARCH_LIST names, suffixes and +PTX") {
  Probes p = consistent();
  p.arch_list = {"TORCH_CUDA_ARCH_LIST", {"Ampere", "Ada", "9.0a", "9.0+PTX"}};
  CHECK(only(p, "arch-list").severity == Severity::ok);
  p.arch_list.entries = {"Ampere", "Blackwell"};
  Finding f = only(p, "arch-list");
  CHECK(f.severity == Severity::error);
  CHECK(f.fixes == std::vector<std::string>{"export TORCH_CUDA_ARCH_LIST='Ampere'"});
  p.arch_list.entries = {"10.0"};
  CHECK(only(p, "arch-list").fixes == std::vector<std::string>{"unset TORCH_CUDA_ARCH_LIST"});
}

TEST_CASE("doctor: DeepSpeed's default arch list on CUDA 13") {
  Probes p = consistent();
  p.python.deepspeed_version = "0.17.0";
  CHECK(with_id(run_checks(p, facts()), "deepspeed-archs").empty());  // CUDA 12.4 still builds 6.0-7.0
  p.toolkit.version = p.nvcc.version = v("13.0");
  Finding f = only(p, "deepspeed-archs");
  CHECK(f.severity == Severity::warning);
  CHECK(f.fixes == std::vector<std::string>{"export TORCH_CUDA_ARCH_LIST='8.9'"});
  p.arch_list = {"TORCH_CUDA_ARCH_LIST", {"8.9"}};
  CHECK(with_id(run_checks(p, facts()), "deepspeed-archs").empty());
}

TEST_CASE("doctor: the build toolkit is $CUDA_HOME's, then PATH's nvcc, then the selection") {
  Probes p = consistent();
  CHECK(build_toolkit(p).version == v("12.4"));
  p.cuda_home = {"CUDA_HOME", fs::path("/usr/local/cuda-11.8"), true, v("11.8")};
  CHECK(build_toolkit(p).version == v("11.8"));
  CHECK(only(p, "nvcc-path").severity == Severity::warning);
  CHECK(only(p, "cuda-home").severity == Severity::warning);
  CHECK(only(p, "toolkit-torch").severity == Severity::error);
  p.cuda_home = {};
  p.nvcc = {};
  CHECK(build_toolkit(p).label == "CUDA 12.4 (/r/versions/12.4)");
  CHECK(only(p, "nvcc-path").severity == Severity::warning);
}

TEST_CASE("doctor: stray toolkits on LD_LIBRARY_PATH") {
  Probes p = consistent();
  p.library_path = {{"/opt/lib", std::nullopt, std::nullopt},
                    {"/usr/local/cuda-11.8/lib64", fs::path("/usr/local/cuda-11.8"), v("11.8.0")},
                    {"/r/versions/12.4/lib64", fs::path("/r/versions/12.4"), v("12.4.1")}};
  Finding f = only(p, "ld-library-path");
  CHECK(f.severity == Severity::warning);
  CHECK(f.fixes == std::vector<std::string>{"export LD_LIBRARY_PATH='/opt/lib:/r/versions/12.4/lib64'"});
}

TEST_CASE("doctor: a CPU torch on a GPU machine, and a requested toolkit that is missing") {
  Probes p = consistent();
  p.python.torch_version = "2.4.0+cpu";
  p.python.torch_cuda.reset();
  CHECK(only(p, "torch-cpu").fixes == std::vector<std::string>{"/usr/bin/python3 -m pip install torch==2.4.0+cu124 "
                                                               "torchvision==0.19.0+cu124 torchaudio==2.4.0+cu124 "
                                                               "--index-url https://download.pytorch.org/whl/cu124"});
  p.python.interpreter.reset();
  CHECK(only(p, "torch-cpu").fixes == std::vector<std::string>{"cudaenv torch --torch 2.4.0 --cuda 12.4"});
  p.toolkit = {};
  p.toolkit.request = "12.6";
  p.toolkit.error = "CUDA 12.6 is not installed (set by /p/cuda.toml)";
  p.toolkit.installed = {"12.4"};
  Finding f = only(p, "selection");
  CHECK(f.severity == Severity::error);
  CHECK(f.fixes == std::vector<std::string>{"cudaenv install 12.6", "cudaenv use 12.4"});
}

TEST_CASE("doctor: the toolkit's cuDNN and NCCL against the ones torch carries") {
  Probes p = consistent();
  CHECK(with_id(run_checks(p, facts()), "toolkit-cudnn").empty());  // neither side says: nothing to compare
  p.python.cudnn = v("9.19.0");
  p.python.nccl = v("2.28.9");
  CHECK(with_id(run_checks(p, facts()), "toolkit-cudnn").empty());  // the toolkit has no cuDNN
  // Same minor, or an older one: torch's library runs what the older headers build.
  p.toolkit_libraries.cudnn = v("9.19.0");
  p.toolkit_libraries.nccl = v("2.27.7");
  CHECK(only(p, "toolkit-cudnn").severity == Severity::ok);
  CHECK(only(p, "toolkit-nccl").severity == Severity::ok);
  CHECK_FALSE(has_error(run_checks(p, facts())));
  // Newer headers than torch's library: a warning, and the fix installs torch's minor.
  p.toolkit_libraries.cudnn = v("9.26.0");
  Finding newer = only(p, "toolkit-cudnn");
  CHECK(newer.severity == Severity::warning);
  CHECK(newer.title ==
        "the toolkit's cuDNN is newer than torch's: cuDNN 9.26.0 in nvcc 12.4 (/r/versions/12.4/bin/nvcc) vs "
        "torch's cuDNN 9.19.0");
  CHECK(newer.fixes == std::vector<std::string>{"cudaenv install 12.4 --library cudnn@9.19"});
  // Another major: an error.
  p.toolkit_libraries.cudnn = v("8.9.7");
  Finding major = only(p, "toolkit-cudnn");
  CHECK(major.severity == Severity::error);
  CHECK(major.title.rfind("cuDNN major mismatch: ", 0) == 0);
  p.toolkit_libraries.nccl = v("2.29.1");
  CHECK(only(p, "toolkit-nccl").severity == Severity::warning);
  CHECK(only(p, "toolkit-nccl").fixes == std::vector<std::string>{"cudaenv install 12.4 --library nccl@2.28"});
  // Builds use a toolkit cudaenv does not select ($CUDA_HOME): a cudaenv toolkit of its CUDA, then `use`.
  p.cuda_home.variable = "CUDA_HOME";
  p.cuda_home.home = "/usr/local/cuda-12.4";
  p.cuda_home.has_nvcc = true;
  p.cuda_home.version = v("12.4.1");
  CHECK(only(p, "toolkit-nccl").fixes ==
        std::vector<std::string>{"cudaenv install 12.4 --library nccl@2.28", "cudaenv use 12.4"});
}

TEST_CASE("doctor: a selected target's driver and GPUs are what the checks check") {
  Target a100;
  a100.name = "a100";
  a100.path = "/r/targets/a100.toml";
  a100.driver = *parse_driver_version("535.104.05");
  a100.cuda = v("12.2");
  a100.gpus = {TargetGpu{"NVIDIA A100-SXM4-80GB", cc("8.0")}};
  Probes p = consistent();  // toolkit 12.4
  DriverProbe here;
  here.problem = "libcuda.so.1 cannot be loaded";
  p.driver = target_driver(a100, "CUDAENV_TARGET", &here);
  Finding driver = only(p, "driver");
  CHECK(driver.severity == Severity::info);
  CHECK(driver.title == "no GPU here; checking for target a100 (set by CUDAENV_TARGET): driver 535.104.05, CUDA 12.2, 1 GPU(s)");
  CHECK(only(p, "driver-toolkit").severity == Severity::warning);  // 12.4 on a 12.2 driver
  REQUIRE(p.driver.gpus.size() == 1);
  CHECK(p.driver.gpus[0].capability == cc("8.0"));

  DriverProbe node;
  node.version = parse_driver_version("535.104.05");
  node.gpus = {Gpu{"NVIDIA A100-SXM4-80GB", cc("8.0")}};
  p.driver = target_driver(a100, "/p/cuda.toml", &node);
  CHECK(only(p, "driver").title.starts_with("this machine is target a100 (set by /p/cuda.toml)"));
  node.gpus.push_back(Gpu{"NVIDIA GeForce RTX 4090", cc("8.9")});
  p.driver = target_driver(a100, "/p/cuda.toml", &node);
  CHECK(only(p, "driver")
            .title.starts_with("driver 535.104.05, 2 GPUs here (NVIDIA A100-SXM4-80GB, 8.0; NVIDIA GeForce RTX 4090, 8.9); "
                               "checking for target a100"));
}
