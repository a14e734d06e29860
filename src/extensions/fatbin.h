#pragma once
// The CUDA fat binary in an object's .nv_fatbin section: which SASS (cubin) archs and which PTX
// it carries, read from the entry headers alone (payloads, compressed or not, are skipped), and
// which GPUs that code runs on. The layout is NVIDIA's and undocumented beyond the container's
// magic (docs/extensions.md gives what is relied on and how it was checked against cuobjdump).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/version.h"
#include "util/result.h"

namespace cudaenv {

struct FatbinEntry {
  ArchEntry arch;           // ptx = true for a PTX entry; suffix 'a' / 'f' from the entry's flags
  bool compressed = false;  // the payload is compressed (-Xfatbin -compress-all, PTX by default)
};

// Every cubin and PTX entry of every container in `section`, in order, duplicates kept. An error
// names the offset of the first header that does not fit or does not start with the magic.
Result<std::vector<FatbinEntry>> read_fatbin(std::span<const unsigned char> section);

// Whether code for `code` runs on a GPU of capability `gpu`: a cubin on the same major with a
// minor no higher (sm_90a: that GPU only); PTX on any GPU at or above it (compute_90a: that GPU
// only; compute_100f: its family, the same major).
bool code_runs_on(const ArchEntry& code, const ComputeCapability& gpu);

// "sm_90a", "compute_80"
std::string nvcc_arch_name(const ArchEntry& entry);

}  // namespace cudaenv
