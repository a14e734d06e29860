// An extension module, as a hostile wheel may ship it: ElfFile reads its dynamic section,
// symbols and .nv_fatbin as the scan does, read_fatbin the fat binary (and the input itself as
// one), parse_ld_cache the input as /etc/ld.so.cache. Each must end in a value.
#include <cstdint>

#include "extensions/elf_file.h"
#include "extensions/fatbin.h"
#include "extensions/ld_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const unsigned char> bytes(data, size);
  (void)cudaenv::read_fatbin(bytes);
  (void)cudaenv::parse_ld_cache(bytes, "fuzz");
  auto elf = cudaenv::ElfFile::from_memory(bytes, "fuzz");
  if (!elf) return 0;
  for (const auto& symbol : elf->undefined_symbols()) (void)elf->defines(symbol.name);
  (void)elf->defines("PyInit_fuzz");
  (void)elf->defined_starting_with("_ZN3c10");
  auto fatbin = elf->section(".nv_fatbin");
  if (fatbin && *fatbin) (void)cudaenv::read_fatbin(**fatbin);
  return 0;
}
