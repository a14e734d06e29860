// NVIDIA's CUDA wheels on a package index: the index pip would use, wheel tags, the metapackage's
// pins, version choice, the nvidia/cu13/ layout, planning.
#include <catch2/catch.hpp>

#include <algorithm>

#include "install/catalog.h"
#include "install/pypi_index.h"
#include "support/memory_file_system.h"
#include "torch/index_parser.h"
#include "util/strings.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

namespace {

std::vector<int> release(const char* text) { return *release_numbers(text); }

IndexFile wheel_file(const std::string& filename, const std::string& sha256 = std::string(64, 'a')) {
  IndexFile file;
  file.filename = filename;
  file.url = "http://index/files/" + filename;
  file.sha256 = sha256;
  file.size = 100;
  return file;
}

const char* kX86 = "-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl";
const char* kArm = "-py3-none-manylinux2014_aarch64.manylinux_2_17_aarch64.whl";

// An index held in memory: project -> files, metapackage filename -> METADATA.
class FakeIndex : public WheelIndex {
 public:
  std::string root = "http://index/simple";
  std::map<std::string, std::vector<IndexFile>> projects;
  std::map<std::string, std::string> metadata;
  int size_requests = 0;

  const std::string& url() const override { return root; }
  Result<std::vector<IndexFile>> files(const std::string& project) override {
    auto found = projects.find(project);
    if (found == projects.end()) return make_error("404 " + project);
    return found->second;
  }
  Result<std::string> wheel_metadata(const IndexFile& wheel) override { return metadata.at(wheel.filename); }
  Result<std::uint64_t> size_of(const IndexFile&) override {
    ++size_requests;
    return std::uint64_t{4242};
  }

  void add_release(const std::string& label, const std::string& version, const std::vector<std::string>& skip = {}) {
    std::string meta = "cuda_toolkit-" + label + "-py2.py3-none-any.whl";
    projects["cuda-toolkit"].push_back(wheel_file(meta));
    std::string text = "Metadata-Version: 2.1\nName: cuda-toolkit\nVersion: " + label + "\n";
    for (const char* project :
         {"nvidia-cuda-nvcc", "nvidia-cuda-crt", "nvidia-nvvm", "nvidia-cuda-runtime", "nvidia-cuda-cccl", "nvidia-nvjitlink"}) {
      std::string spec = std::string(project) == "nvidia-nvjitlink" ? "<14,>=" + version : "==" + version + ".*";
      text += "Requires-Dist: " + std::string(project) + spec + "; extra == 'all'\n";
      if (std::find(skip.begin(), skip.end(), project) != skip.end()) continue;
      std::string stem = normalize_project_name(project);
      std::replace(stem.begin(), stem.end(), '-', '_');
      projects[project].push_back(wheel_file(stem + "-" + version + kX86));
      projects[project].push_back(wheel_file(stem + "-" + version + kArm));
    }
    metadata[meta] = text + "\nA description: Requires-Dist: not-a-header==1\n";
  }
};

ProfileCatalog profiles() {
  auto catalog = load_profile_catalog(DataFiles::find({}));
  REQUIRE(catalog.ok());
  return *catalog;
}

}  // namespace

TEST_CASE("pip's configuration: files in pip's order, [install] over [global]") {
  MemoryFileSystem fs;
  EnvMap env{{"HOME", "/h"}, {"VIRTUAL_ENV", "/v"}, {"PIP_CONFIG_FILE", "/p.conf"}};
  auto paths_of = [](const std::vector<std::filesystem::path>& files) {
    std::vector<std::string> out;
    for (const auto& file : files) out.push_back(file.string());
    return out;
  };
  CHECK(paths_of(pip_config_files(env, fs)) == std::vector<std::string>{"/etc/xdg/pip/pip.conf", "/etc/pip.conf",
                                                                        "/h/.pip/pip.conf", "/h/.config/pip/pip.conf",
                                                                        "/v/pip.conf", "/p.conf"});
  fs.file("/p.conf", "[global]\nindex-url = https://env-file\n");  // an existing PIP_CONFIG_FILE: no user files
  CHECK(paths_of(pip_config_files(env, fs)) ==
        std::vector<std::string>{"/etc/xdg/pip/pip.conf", "/etc/pip.conf", "/v/pip.conf", "/p.conf"});
  CHECK(pip_config_files({{"HOME", "/h"}, {"PIP_CONFIG_FILE", "/dev/null"}}, fs).empty());
  CHECK(pip_config_files({{"HOME", "/h"}, {"XDG_CONFIG_HOME", "/x"}, {"XDG_CONFIG_DIRS", "/a:/b"}}, fs).size() == 5);

  fs.file("/etc/pip.conf", "[global]\nindex-url = https://global\n");
  fs.file("/h/.config/pip/pip.conf", "[install]\nindex-url = https://user\n");
  fs.file("/v/pip.conf", "[global]\ntimeout = 3\n");
  EnvMap plain{{"HOME", "/h"}, {"VIRTUAL_ENV", "/v"}};
  CHECK(pip_setting(plain, fs, "index-url")->value == "https://user");
  CHECK(pip_setting(plain, fs, "index-url")->kind == OriginKind::global_file);
  CHECK(pip_setting(plain, fs, "index-url")->origin() == "/h/.config/pip/pip.conf");
  CHECK(pip_setting(env, fs, "index-url")->value == "https://env-file");
  env["PIP_INDEX_URL"] = "https://variable";
  CHECK(pip_setting(env, fs, "index-url")->value == "https://variable");
  CHECK(pip_setting(env, fs, "index-url")->origin() == "PIP_INDEX_URL");
  CHECK(!pip_setting({{"HOME", "/nobody"}}, MemoryFileSystem(), "index-url"));
  fs.file("/v/pip.conf", "[global]\ntimeout = 3\ncert = /v/ca.pem\n");
  CHECK(pip_setting(plain, fs, "cert")->value == "/v/ca.pem");
  CHECK(pip_setting(plain, fs, "cert")->origin() == "/v/pip.conf");
  CHECK(pip_setting({{"HOME", "/h"}, {"PIP_CERT", "/e.pem"}}, fs, "cert")->origin() == "PIP_CERT");

  CHECK(pip_config_value("[global]\nindex-url = https://g/simple\n", "index-url") == "https://g/simple");
  CHECK(pip_config_value("[install]\nindex_url: https://i\n[global]\nindex-url=https://g\n", "index-url") == "https://i");
  CHECK(pip_config_value("# [global]\n[global]\n; index-url = x\ntimeout = 60\n[list]\nindex-url = l\n", "index-url") ==
        std::nullopt);
  CHECK(pip_config_value("index-url = outside a section\n", "index-url") == std::nullopt);
  CHECK(pip_config_value("[GLOBAL]\r\nIndex-URL = https://crlf\r\n", "index-url") == "https://crlf");
  CHECK(pip_config_value("[global]\ncert = /etc/ca.pem\nclient-cert = /c.pem\n", "cert") == "/etc/ca.pem");
}

TEST_CASE("wheel platform tags match the redist platform") {
  auto x86 = parse_wheel_name(std::string("nvidia_cuda_nvcc-13.2.86") + kX86);
  REQUIRE(x86);
  CHECK(x86->platform == "manylinux2014_x86_64.manylinux_2_17_x86_64");
  CHECK(wheel_fits_platform(*x86, "linux-x86_64"));
  CHECK(!wheel_fits_platform(*x86, "linux-sbsa"));
  auto arm = parse_wheel_name(std::string("nvidia_cuda_nvcc-13.2.86") + kArm);
  CHECK(wheel_fits_platform(*arm, "linux-sbsa"));
  CHECK(!wheel_fits_platform(*parse_wheel_name("nvidia_cuda_nvcc-13.2.86-py3-none-win_amd64.whl"), "linux-x86_64"));
  CHECK(wheel_fits_platform(*parse_wheel_name("cuda_toolkit-13.2.2-py2.py3-none-any.whl"), "linux-sbsa"));
  CHECK(!wheel_fits_platform(*x86, "windows-x86_64"));
}

TEST_CASE("PEP 440 releases and specifiers") {
  CHECK(release("13.3.3.3.1") == std::vector<int>{13, 3, 3, 3, 1});
  CHECK(!release_numbers("13.4.0rc1"));
  CHECK(!release_numbers("1..2"));
  CHECK(!release_numbers("1.2.post1"));
  CHECK(satisfies(release("13.2.86"), "==13.2.86.*"));
  CHECK(satisfies(release("13.2.86.1"), "==13.2.86.*"));
  CHECK(!satisfies(release("13.2.87"), "==13.2.86.*"));
  CHECK(!satisfies(release("13.2.860"), "==13.2.86.*"));
  CHECK(satisfies(release("13.2.86"), "==13.2.86"));
  CHECK(satisfies(release("13.2.86.0"), "==13.2.86"));
  CHECK(satisfies(release("13.4.1"), "<14,>=13.2.86"));
  CHECK(!satisfies(release("14.0.0"), "<14,>=13.2.86"));
  CHECK(!satisfies(release("13.2.75"), "<14,>=13.2.86"));
  CHECK(satisfies(release("13.2.5"), "~=13.2.1"));
  CHECK(!satisfies(release("13.3.0"), "~=13.2.1"));
  CHECK(!satisfies(release("13.2.86"), "!=13.2.86"));
  CHECK(!satisfies(release("13.2.86"), ""));
  CHECK(!satisfies(release("13.2.86"), "===junk"));
}

TEST_CASE("the metapackage's labels and pins") {
  std::vector<IndexFile> files;
  for (const char* name :
       {"cuda_toolkit-13.2.2-py2.py3-none-any.whl", "cuda_toolkit-13.4.1.0-py2.py3-none-any.whl",
        "cuda_toolkit-13.4.0rc1-py2.py3-none-any.whl", "cuda_toolkit-0.0.0a0-py3-none-any.whl",
        "cuda_toolkit-12.8.1-py2.py3-none-any.whl", "cuda_toolkit-13.3.3.1-py3-none-any.whl",
        "cuda_toolkit-13.10.0-py3-none-any.whl", "cuda_toolkit-13.2.2.tar.gz", "other-13.9.0-py3-none-any.whl"}) {
    files.push_back(wheel_file(name));
  }
  std::vector<std::string> labels;
  for (const ToolkitRelease& r : toolkit_releases(files)) labels.push_back(r.label);
  CHECK(labels == std::vector<std::string>{"13.10.0", "13.4.1", "13.2.2", "12.8.1"});

  auto pins = required_versions(
      "Name: cuda-toolkit\nRequires-Dist: nvidia-cuda-nvcc==13.2.86.*; (sys_platform == 'linux') and extra == 'all'\n"
      "Requires-Dist: nvidia-nvjitlink<14,>=13.2.86; extra == 'all'\nrequires-dist: Nvidia_CuBLAS (==13.4.1.3.*)\n"
      "Requires-Dist: nvidia-cuda-nvcc==99; extra == 'nvcc'\nRequires-Dist: unpinned\nRequires-Dist: x[extra]>=1\n\n"
      "Requires-Dist: description==1\n");
  CHECK(pins.size() == 3);
  CHECK(pins["nvidia-cuda-nvcc"] == "==13.2.86.*");
  CHECK(pins["nvidia-nvjitlink"] == "<14,>=13.2.86");
  CHECK(pins["nvidia-cublas"] == "==13.4.1.3.*");
}

TEST_CASE("choose_wheel: newest match of a pin, oldest of a range, platform and yanked respected") {
  std::vector<IndexFile> files;
  for (const char* version : {"13.0.88", "13.2.86", "13.2.86.1", "13.4.1"}) {
    files.push_back(wheel_file(std::string("nvidia_nvjitlink-") + version + kX86));
  }
  files.push_back(wheel_file(std::string("nvidia_nvjitlink-13.2.90") + kArm));
  IndexFile yanked = wheel_file(std::string("nvidia_nvjitlink-13.2.87") + kX86);
  yanked.yanked = true;
  files.push_back(yanked);
  CHECK(choose_wheel(files, "nvidia-nvjitlink", "==13.2.86.*", "linux-x86_64")->filename.find("13.2.86.1") != std::string::npos);
  CHECK(choose_wheel(files, "nvidia-nvjitlink", "<14,>=13.2.86", "linux-x86_64")->filename.find("-13.2.86-") !=
        std::string::npos);
  CHECK(choose_wheel(files, "nvidia_NVJITLINK", "==13.2.90", "linux-sbsa"));
  CHECK(!choose_wheel(files, "nvidia-nvjitlink", "==13.2.90", "linux-x86_64"));
  CHECK(!choose_wheel(files, "nvidia-nvjitlink", "==13.2.87", "linux-x86_64"));
  CHECK(!choose_wheel(files, "nvidia-cuda-nvcc", "==13.2.86.*", "linux-x86_64"));
  CHECK(choose_wheel(files, "nvidia-nvjitlink", "", "linux-x86_64")->filename.find("-13.4.1-") != std::string::npos);
  CHECK(wheel_versions(files, "nvidia-nvjitlink", "linux-x86_64") ==
        std::vector<std::string>{"13.0.88", "13.2.86", "13.2.86.1", "13.4.1"});
  CHECK(wheel_versions(files, "nvidia-nvjitlink", "linux-sbsa") == std::vector<std::string>{"13.2.90"});
}

TEST_CASE("wheel members map to the flat toolkit layout") {
  CHECK(wheel_toolkit_path("nvidia/cu13/bin/nvcc") == "bin/nvcc");
  CHECK(wheel_toolkit_path("nvidia/cu13/include/crt/host_config.h") == "include/crt/host_config.h");
  CHECK(wheel_toolkit_path("nvidia/cu13/nvvm/bin/cicc") == "nvvm/bin/cicc");
  CHECK(wheel_toolkit_path("nvidia/cu13/lib/libcudart.so.13") == "lib/libcudart.so.13");
  CHECK(wheel_toolkit_path("nvidia/cu13/cuda_cccl/lib/cmake/cccl/x.cmake") == "lib/cmake/cccl/x.cmake");
  CHECK(!wheel_toolkit_path("nvidia/cu13/cuda_cccl/.metadata/provenance.txt"));
  CHECK(!wheel_toolkit_path("nvidia/cu13/.metadata/sizes.txt"));
  CHECK(!wheel_toolkit_path("nvidia/cu13/__init__.py"));
  CHECK(!wheel_toolkit_path("nvidia/cu13/lib/__pycache__/x.cpython-312.pyc"));
  CHECK(!wheel_toolkit_path("nvidia/__init__.py"));
  CHECK(!wheel_toolkit_path("nvidia/cudnn/lib/libcudnn.so.9"));
  CHECK(!wheel_toolkit_path("nvidia_cuda_nvcc-13.2.86.dist-info/METADATA"));
  CHECK(!wheel_toolkit_path("nvidia/cu13"));
  CHECK(wheel_toolkit_path("./nvidia//cu13/bin/ptxas") == "bin/ptxas");
  // NCCL's wheels: only nvidia/nccl/{include,lib}.
  CHECK(wheel_toolkit_path("nvidia/nccl/include/nccl.h") == "include/nccl.h");
  CHECK(wheel_toolkit_path("nvidia/nccl/include/nccl_device/gin/gin.h") == "include/nccl_device/gin/gin.h");
  CHECK(wheel_toolkit_path("nvidia/nccl/lib/libnccl.so.2") == "lib/libnccl.so.2");
  CHECK(!wheel_toolkit_path("nvidia/nccl/__init__.py"));
  CHECK(!wheel_toolkit_path("nvidia/nccl/lib/__init__.py"));
  CHECK(!wheel_toolkit_path("nvidia/nccl/bin/tool"));
  CHECK(!wheel_toolkit_path("nvidia/nccl/include"));
  CHECK(!wheel_toolkit_path("nvidia/nccl/lib/.hidden"));
}

TEST_CASE("components map to NVIDIA's wheel names and back") {
  CHECK(wheel_distribution("cuda_nvcc") == "nvidia-cuda-nvcc");
  CHECK(wheel_distribution("cuda_cudart") == "nvidia-cuda-runtime");
  CHECK(wheel_distribution("cccl") == "nvidia-cuda-cccl");
  CHECK(wheel_distribution("cuda_cccl") == "nvidia-cuda-cccl");
  CHECK(!wheel_distribution("nsight_compute"));
  CHECK(component_of_distribution("nvidia_cuda_cccl") == "cuda_cccl");
  CHECK(component_of_distribution("nvidia-cufile") == "libcufile");
  CHECK(component_of_distribution("nvidia-cuda-tileiras") == "nvidia-cuda-tileiras");
  // Every CUDA 13 profile entry has a wheel.
  ProfileCatalog catalog = profiles();
  for (const auto& [name, entries] : catalog.by_major.at(13)) {
    for (const std::string& entry : entries) {
      INFO(name << " " << entry);
      std::vector<std::string> keys = catalog.alternatives(entry);
      CHECK(std::any_of(keys.begin(), keys.end(), [](const std::string& key) { return wheel_distribution(key).has_value(); }));
    }
  }
}

TEST_CASE("plan_wheels: one wheel per component at the metapackage's pins") {
  FakeIndex index;
  index.add_release("13.2.2", "13.2.86");
  index.add_release("13.0.2", "13.0.88");
  ProfileCatalog catalog = profiles();
  auto plan = plan_wheels(
      index, catalog,
      WheelRequest{.label = "13.2.2", .profile = "minimal", .components = {"libnvjitlink"}, .platform = "linux-sbsa"});
  REQUIRE(plan.ok());
  CHECK(plan->source == InstallSource::pypi);
  CHECK(plan->origin == "http://index/simple");
  CHECK(plan->pinned_by_url == "http://index/files/cuda_toolkit-13.2.2-py2.py3-none-any.whl");
  std::vector<std::string> components;
  for (const Archive& file : plan->files) {
    components.push_back(file.name);
    CHECK(file.version == "13.2.86");  // nvjitlink's range starts there, though 13.0.88 is older
    CHECK(file.url.find("aarch64") != std::string::npos);
    CHECK(file.size == 100);
  }
  CHECK(components == std::vector<std::string>{"cuda_nvcc", "cuda_cudart", "cuda_cccl", "cuda_crt", "libnvvm", "libnvjitlink"});
  CHECK(index.size_requests == 0);

  auto unknown = plan_wheels(
      index, catalog,
      WheelRequest{.label = "13.2.2", .profile = "minimal", .components = {"libcurandd"}, .platform = "linux-x86_64"});
  REQUIRE(!unknown.ok());
  CHECK(unknown.error().message == "NVIDIA publishes no wheel of the CUDA component libcurandd");
  CHECK(unknown.error().hint.find("did you mean libcurand?") == 0);
  auto unpinned =
      plan_wheels(index, catalog,
                  WheelRequest{.label = "13.2.2", .profile = "minimal", .components = {"libcurand"}, .platform = "linux-x86_64"});
  REQUIRE(!unpinned.ok());
  CHECK(unpinned.error().message.find("pins no nvidia-curand (component libcurand)") != std::string::npos);
  auto absent = plan_wheels(index, catalog, WheelRequest{.label = "13.1.0", .profile = "minimal", .platform = "linux-x86_64"});
  REQUIRE(!absent.ok());
  CHECK(absent.error().hint == "it has: 13.2.2, 13.0.2 (`cudaenv list-remote --source pypi`)");
}

TEST_CASE("plan_wheels refuses a wheel without a hash and asks for missing sizes") {
  FakeIndex index;
  index.add_release("13.2.2", "13.2.86");
  for (IndexFile& file : index.projects["nvidia-nvvm"]) file.sha256.clear();
  for (IndexFile& file : index.projects["nvidia-cuda-nvcc"]) file.size = 0;
  auto plan = plan_wheels(index, profiles(), WheelRequest{.label = "13.2.2", .profile = "minimal", .platform = "linux-x86_64"});
  REQUIRE(!plan.ok());
  CHECK(plan.error().message ==
        "http://index/simple/nvidia-nvvm/ lists nvidia_nvvm-13.2.86" + std::string(kX86) + " without a sha256");
  CHECK(index.size_requests == 1);
}

TEST_CASE("resolve_wheel_label: the newest release whose wheels all exist") {
  FakeIndex index;
  index.add_release("13.2.2", "13.2.86", {"nvidia-cuda-crt"});
  index.add_release("13.2.1", "13.2.75");
  index.add_release("13.0.2", "13.0.88");
  ProfileCatalog catalog = profiles();
  WheelRequest request{{}, "minimal", {}, "linux-x86_64"};
  CHECK(*resolve_wheel_label(index, catalog, "13.2", request) == "13.2.1");
  CHECK(*resolve_wheel_label(index, catalog, "13", request) == "13.2.1");
  CHECK(*resolve_wheel_label(index, catalog, "13.2.2", request) == "13.2.2");  // a full label as given
  auto none = resolve_wheel_label(index, catalog, "13.1", request);
  REQUIRE(!none.ok());
  CHECK(none.error().message == "no CUDA 13.1 on http://index/simple/cuda-toolkit/");
  index.projects["nvidia-cuda-crt"].clear();
  auto missing = resolve_wheel_label(index, catalog, "13.2", request);
  REQUIRE(!missing.ok());
  CHECK(missing.error().message.find("no CUDA 13.2 release on http://index/simple has all its wheels: "
                                     "http://index/simple/nvidia-cuda-crt/ has no linux-x86_64 wheel of "
                                     "nvidia-cuda-crt==13.2.86.*") == 0);
  CHECK(missing.error().hint == "it has no linux-x86_64 wheel of nvidia-cuda-crt");
}

TEST_CASE("CUDA 12 and 11 wheels are refused with the command that works") {
  FakeIndex index;
  auto twelve = resolve_wheel_label(index, profiles(), "12.8", WheelRequest{.profile = "minimal", .platform = "linux-x86_64"});
  REQUIRE(!twelve.ok());
  CHECK(twelve.error().message ==
        "CUDA 12.8 cannot be installed from http://index/simple: NVIDIA's CUDA 12 wheels "
        "(nvidia-cuda-nvcc-cu12) carry ptxas but no nvcc");
  CHECK(twelve.error().hint.find("cudaenv install 12.8 --source redist") != std::string::npos);
  CHECK(!check_wheel_major(*parse_version("11.8.0"), "x").ok());
  CHECK(check_wheel_major(*parse_version("13.0"), "x").ok());
}
