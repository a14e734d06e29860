#pragma once
// A shared object as the dynamic loader sees it: its dynamic section (NEEDED, SONAME, RPATH,
// RUNPATH), its dynamic symbols, and any section asked for by name (.nv_fatbin). Read with
// elfutils' libelf from a read-only mapping, so a 1 GB libtorch_cuda.so costs only the pages of
// the sections looked at. The file is untrusted: every offset is checked, by libelf or here.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace cudaenv {

struct ElfSymbol {
  std::string name;  // as mangled: _ZN3c105ErrorC1ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE
  bool weak = false;
};

class ElfFile {
 public:
  // Reads the file's headers and dynamic section; symbols and sections are read when asked.
  static Result<ElfFile> open(const std::filesystem::path& path);
  // The same from bytes that outlive the ElfFile (the fuzz target, tests); `label` names it in errors.
  static Result<ElfFile> from_memory(std::span<const unsigned char> bytes, const std::string& label);

  ElfFile(ElfFile&&) noexcept;
  ElfFile& operator=(ElfFile&&) noexcept;
  ~ElfFile();

  const std::string& label() const { return label_; }
  std::uint16_t machine() const { return machine_; }  // e_machine: EM_X86_64, EM_AARCH64
  const std::vector<std::string>& needed() const { return needed_; }
  const std::optional<std::string>& soname() const { return soname_; }
  // DT_RPATH and DT_RUNPATH, split on ':'; $ORIGIN is left for the loader model to expand.
  const std::vector<std::string>& rpath() const { return rpath_; }
  const std::vector<std::string>& runpath() const { return runpath_; }

  // The dynamic symbols this object needs from others (undefined, global or weak).
  std::vector<ElfSymbol> undefined_symbols() const;
  // Whether it defines `name` for others (global, weak or unique, not undefined): the loader's
  // own lookup through .gnu.hash (else a scan of .dynsym), so a lookup reads a few pages.
  bool defines(std::string_view name) const;
  // Every defined dynamic symbol starting with `prefix` (a scan of .dynsym, for the rare question).
  std::vector<std::string> defined_starting_with(std::string_view prefix) const;
  // The bytes of the section named `name`, pointing into the mapping; none when there is none.
  // An error when the section lies outside the file.
  Result<std::optional<std::span<const unsigned char>>> section(std::string_view name) const;

 private:
  struct Mapping;
  ElfFile() = default;
  static Result<ElfFile> read(std::unique_ptr<Mapping> mapping, const std::string& label);
  Status read_dynamic();
  Status locate_symbols();

  std::unique_ptr<Mapping> mapping_;
  std::string label_;
  std::uint16_t machine_ = 0;
  std::vector<std::string> needed_;
  std::optional<std::string> soname_;
  std::vector<std::string> rpath_;
  std::vector<std::string> runpath_;
  // .dynsym, its string table and .gnu.hash as raw bytes of the mapping (libelf checked their bounds).
  std::span<const unsigned char> dynsym_;
  std::size_t dynstr_index_ = 0;
  std::span<const unsigned char> gnu_hash_;
};

}  // namespace cudaenv
