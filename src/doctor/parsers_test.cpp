#include <catch2/catch.hpp>

#include "doctor/facts.h"
#include "doctor/parsers.h"

using namespace cudaenv;

TEST_CASE("doctor: driver versions from NVML") {
  CHECK(parse_driver_version("580.65.06")->text == "580.65.06");  // printed as NVIDIA prints it
  CHECK(parse_driver_version("580.65.06")->number > parse_driver_version("580.9")->number);
}

TEST_CASE("doctor: host compiler banners") {
  auto gcc = parse_compiler_banner("gcc (Ubuntu 13.2.0-23ubuntu4) 13.2.0\nCopyright (C) 2023 Free Software Foundation, Inc.\n");
  CHECK(gcc.kind == "gcc");
  CHECK(gcc.version->str() == "13.2.0");
  auto cc = parse_compiler_banner("cc (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc.\n");
  CHECK(cc.kind == "gcc");
  CHECK(cc.version->major() == 12);
  auto clang = parse_compiler_banner("Ubuntu clang version 18.1.3 (1ubuntu1)\nTarget: x86_64-pc-linux-gnu\n");
  CHECK(clang.kind == "clang");
  CHECK(clang.version->str() == "18.1.3");
  CHECK(parse_compiler_banner("icx (ICX) 2024.0.0\n").kind == "unknown");
}

TEST_CASE("doctor: the Python probe's answer") {
  PythonProbe python;
  REQUIRE(
      read_python_answer("noise from an import\nCUDAENV_PROBE {\"torch\": {\"version\": \"2.1.2+cu121\", \"cuda\": \"12.1\", "
                         "\"available\": true, \"arch_list\": [\"sm_80\", \"sm_90\"]}, \"deepspeed\": \"0.12.6\"}\n",
                         python));
  CHECK(python.has_torch);
  CHECK(python.torch_version == "2.1.2+cu121");
  CHECK(python.torch_cuda->str() == "12.1");
  CHECK(python.cuda_available);
  CHECK(python.arch_list == std::vector<std::string>{"sm_80", "sm_90"});
  CHECK(*python.deepspeed_version == "0.12.6");
  PythonProbe cpu;
  REQUIRE(read_python_answer("CUDAENV_PROBE {\"torch\": {\"version\": \"2.4.0+cpu\", \"cuda\": null}}", cpu));
  CHECK_FALSE(cpu.torch_cuda);
  CHECK_FALSE(cpu.deepspeed_version);
  PythonProbe none;
  CHECK_FALSE(read_python_answer("Traceback (most recent call last):\n", none));
  CHECK(read_python_answer("CUDAENV_PROBE {}", none));
  CHECK_FALSE(none.has_torch);
}

TEST_CASE("doctor: what torch carries, from the Python probe's answer") {
  CHECK(version_from_cudnn(92600)->str() == "9.26.0");  // cuDNN 9: MAJOR * 10000
  CHECK(version_from_cudnn(90100)->str() == "9.1.0");
  CHECK(version_from_cudnn(8907)->str() == "8.9.7");  // cuDNN 8 and before: MAJOR * 1000
  CHECK(version_from_cudnn(7605)->str() == "7.6.5");
  CHECK_FALSE(version_from_cudnn(0));
  CHECK_FALSE(version_from_cudnn(std::uint64_t{1} << 40));
  PythonProbe python;
  REQUIRE(read_python_answer(
      "CUDAENV_PROBE {\"torch\": {\"version\": \"2.15.0\", \"cuda\": \"13.2\", \"cudnn\": 92600, \"nccl\": \"2.30.7\", "
      "\"nvidia_wheels\": [{\"name\": \"nvidia-cuda-runtime\", \"version\": \"13.2.86\"}, "
      "{\"name\": \"nvidia-nccl-cu13\", \"version\": \"2.30.7\"}]}}\n",
      python));
  CHECK(python.problem.empty());
  CHECK(python.cudnn->str() == "9.26.0");
  CHECK(python.nccl->str() == "2.30.7");
  CHECK(python.cuda_runtime->str() == "13.2.86");
  REQUIRE(python.nvidia_wheels.size() == 2);
  CHECK(python.nvidia_wheels[1].name == "nvidia-nccl-cu13");
  CHECK(python.nvidia_wheels[1].version == "2.30.7");
  PythonProbe cu12;  // before CUDA 13 the runtime wheel's name ends in -cu12
  REQUIRE(
      read_python_answer("CUDAENV_PROBE {\"torch\": {\"version\": \"2.8.0\", \"cuda\": \"12.8\", "
                         "\"nvidia_wheels\": [{\"name\": \"nvidia-cuda-runtime-cu12\", \"version\": \"12.8.90\"}]}}",
                         cu12));
  CHECK(cu12.cuda_runtime->str() == "12.8.90");
  CHECK_FALSE(cu12.cudnn);
  CHECK_FALSE(cu12.nccl);
  PythonProbe wrong;
  REQUIRE(read_python_answer("CUDAENV_PROBE {\"torch\": {\"version\": \"2.15.0\", \"cudnn\": \"9.26\"}}", wrong));
  CHECK(wrong.problem == "its answer: torch.cudnn must be a whole number (it is string)");
  CHECK_FALSE(wrong.has_torch);
  PythonProbe wheel;
  REQUIRE(read_python_answer("CUDAENV_PROBE {\"torch\": {\"version\": \"2.15.0\", \"nvidia_wheels\": [{\"name\": 1}]}}", wheel));
  CHECK(wheel.problem == "its answer: torch.nvidia_wheels[0].name must be a string (it is number)");
  CHECK(wheel.nvidia_wheels.empty());
}

TEST_CASE("doctor: a Python answer of the wrong types is a problem, and none of it is kept") {
  PythonProbe python;
  REQUIRE(read_python_answer("CUDAENV_PROBE {\"torch\": {\"version\": 2, \"cuda\": \"12.4\"}}", python));
  CHECK(python.problem == "its answer: torch.version must be a string (it is number)");
  CHECK_FALSE(python.has_torch);
  CHECK_FALSE(python.torch_cuda);
  PythonProbe deepspeed;
  REQUIRE(read_python_answer("CUDAENV_PROBE {\"deepspeed\": {\"v\": 1}}", deepspeed));
  CHECK(deepspeed.problem == "its answer: deepspeed must be a string (it is object)");
  PythonProbe list;
  REQUIRE(read_python_answer("CUDAENV_PROBE [\"torch\"]", list));
  CHECK(list.problem == "its answer: the top level must be an object (it is array)");
}

TEST_CASE("doctor: the folders of NVIDIA's wheels from the Python probe's answer") {
  PythonProbe python;
  REQUIRE(read_python_answer("CUDAENV_PROBE {\"nvidia_dirs\": [\"/v/lib/python3.12/site-packages/nvidia\"]}", python));
  CHECK(python.problem.empty());
  CHECK(python.nvidia_dirs == std::vector<fs::path>{"/v/lib/python3.12/site-packages/nvidia"});
  PythonProbe wrong;
  REQUIRE(read_python_answer("CUDAENV_PROBE {\"nvidia_dirs\": [1]}", wrong));
  CHECK(wrong.problem.find("nvidia_dirs") != std::string::npos);
  CHECK(wrong.nvidia_dirs.empty());
}

TEST_CASE("doctor: the driver probe's answer survives the trip from the child") {
  DriverProbe driver;
  driver.loaded = true;
  driver.cuda = parse_version("12.4");
  driver.version = parse_driver_version("550.54.14");
  driver.version_source = "NVML";
  driver.library = "/usr/lib/wsl/lib/libcuda.so.1";
  driver.gpus = {Gpu{"NVIDIA H100", *parse_compute_capability("9.0")},
                 Gpu{std::string("bad \xff name"), *parse_compute_capability("8.9")}};
  auto read = read_driver_answer(driver_answer_json(driver));
  REQUIRE(read.ok());
  CHECK(read->loaded);
  CHECK(read->cuda->str() == "12.4");
  CHECK(read->version->text == "550.54.14");
  CHECK(read->library == "/usr/lib/wsl/lib/libcuda.so.1");
  REQUIRE(read->gpus.size() == 2);
  CHECK(read->gpus[0].name == "NVIDIA H100");
  CHECK(read->gpus[0].capability.str() == "9.0");
  CHECK(read->gpus[1].name == "bad \xEF\xBF\xBD name");  // not UTF-8: replaced, not fatal
  auto wrong = read_driver_answer("{\"gpus\": [{\"name\": \"A\", \"major\": \"9\", \"minor\": 0}]}");
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message == "its answer: gpus[0].major must be a whole number (it is string)");
  CHECK_FALSE(read_driver_answer("{\"gpus\": [{\"name\": \"A\", \"major\": -1, \"minor\": 0}]}").ok());
  CHECK_FALSE(read_driver_answer("not json").ok());
}

TEST_CASE("doctor: cuda-facts.toml errors name the file and the key") {
  auto broken = parse_cuda_facts("/m/cuda-facts.toml", "[cuda.\"12.4\"]\narchs = [\"8.9\", \"x\"]\n");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().message.find("/m/cuda-facts.toml: cuda.12.4.archs: 'x' is not a compute capability (major.minor)") !=
        std::string::npos);
  auto syntax = parse_cuda_facts("/m/cuda-facts.toml", "[cuda\n");
  REQUIRE_FALSE(syntax.ok());
  CHECK(syntax.error().message.find("/m/cuda-facts.toml:1:") == 0);
}

TEST_CASE("doctor: cuDNN's and NCCL's versions from the toolkit's headers") {
  // As cudnn_version.h and nccl.h write them (cuDNN 9.19.0 and NCCL 2.28.9 in /usr/local/cuda-13.0).
  CHECK(cudnn_header_version("#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n#define CUDNN_MAJOR 9\n"
                             "#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n\n"
                             "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n")
            ->str() == "9.19.0");
  CHECK(nccl_header_version("#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 9\n#define NCCL_SUFFIX \"\"\n")
            ->str() == "2.28.9");
  // Spacing and tabs as preprocessors allow; the first definition wins; no patch is 0.
  CHECK(nccl_header_version("#  define\tNCCL_MAJOR\t2\r\n# define NCCL_MINOR  30 // x\n#define NCCL_MINOR 1\n")->str() ==
        "2.30.0");
  CHECK(cudnn_header_version("#define CUDNN_MAJOR_X 7\n#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n")->str() == "8.9.0");
  // Hostile or foreign text: nothing, never a throw.
  CHECK_FALSE(cudnn_header_version(""));
  CHECK_FALSE(cudnn_header_version("#define CUDNN_MAJOR 9\n"));  // no minor
  CHECK_FALSE(cudnn_header_version("#define CUDNN_MAJOR (9)\n#define CUDNN_MINOR 1\n"));
  CHECK_FALSE(cudnn_header_version("#define CUDNN_MAJOR 99999999999999999999999\n#define CUDNN_MINOR 1\n"));
  CHECK_FALSE(cudnn_header_version("#define CUDNN_MAJOR -1\n#define CUDNN_MINOR 1\n"));
  CHECK_FALSE(nccl_header_version("#define NCCL_MAJOR\n#define NCCL_MINOR\n"));
  CHECK_FALSE(nccl_header_version(std::string(200000, '#')));
  CHECK_FALSE(nccl_header_version(std::string("#define NCCL_MAJOR 2\0\n#define NCCL_MINOR 1", 40).substr(0, 22)));
}
