#pragma once
// The shape of NVIDIA's cuDNN manifests (redistrib_9.10.0.json), for the manifest parser's and
// the library chooser's tests: entries per CUDA major ("cuda11", "cuda12"), an uppercase sha256
// and md5 fields as NVIDIA writes them, a platform with fewer majors, and a source-only component.

namespace cudaenv::testing {

inline constexpr const char* kCudnnManifest = R"({
  "release_date": "2025-05-01", "release_label": "9.10.0", "release_product": "cudnn",
  "cudnn": {
    "name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn", "version": "9.10.0.56",
    "cuda_variant": ["11", "12"],
    "linux-x86_64": {
      "cuda11": {"relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.10.0.56_cuda11-archive.tar.xz",
                 "sha256": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "md5": "x", "size": "900"},
      "cuda12": {"relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.10.0.56_cuda12-archive.tar.xz",
                 "sha256": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "md5": "y", "size": "1003184568"}
    },
    "linux-aarch64": {
      "cuda12": {"relative_path": "cudnn/linux-aarch64/cudnn-linux-aarch64-9.10.0.56_cuda12-archive.tar.xz",
                 "sha256": "3333333333333333333333333333333333333333333333333333333333333333", "size": "800"}
    }
  },
  "cudnn_samples": {"name": "samples", "version": "9.10.0.56",
    "source": {"relative_path": "cudnn_samples/source/x.tar.xz",
               "sha256": "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc", "size": "5"}}
})";

}  // namespace cudaenv::testing
