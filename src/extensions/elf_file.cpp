#include "extensions/elf_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "util/strings.h"

namespace cudaenv {

namespace {

Error elf_error(const std::string& label, const std::string& what) {
  const char* why = elf_errmsg(-1);
  return make_error(label + ": " + what + (why && *why ? " (" + std::string(why) + ")" : ""));
}

// The NUL-terminated string at `offset` of string table `index`; none when out of bounds.
std::optional<std::string_view> string_at(Elf* elf, std::size_t index, std::size_t offset) {
  const char* text = elf_strptr(elf, index, offset);
  if (!text) return std::nullopt;
  return std::string_view(text);
}

std::uint32_t u32_at(std::span<const unsigned char> bytes, std::size_t offset) {
  std::uint32_t value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

// The hash of the GNU hash table (glibc's dl_new_hash).
std::uint32_t gnu_hash(std::string_view name) {
  std::uint32_t hash = 5381;
  for (unsigned char c : name) hash = hash * 33 + c;
  return hash;
}

bool is_defined(const GElf_Sym& symbol) {
  unsigned bind = GELF_ST_BIND(symbol.st_info);
  return symbol.st_shndx != SHN_UNDEF && (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE);
}

}  // namespace

// The file's bytes (a private read-only mapping, or a copy) and libelf's handle on them.
struct ElfFile::Mapping {
  void* address = nullptr;
  std::size_t size = 0;
  std::vector<unsigned char> copy;
  Elf* elf = nullptr;

  ~Mapping() {
    if (elf) elf_end(elf);
    if (address) munmap(address, size);
  }
};

ElfFile::ElfFile(ElfFile&&) noexcept = default;
ElfFile& ElfFile::operator=(ElfFile&&) noexcept = default;
ElfFile::~ElfFile() = default;

Result<ElfFile> ElfFile::open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(path.string() + ": cannot open: " + std::strerror(errno));
  struct stat status {};
  auto mapping = std::make_unique<Mapping>();
  if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    return make_error(path.string() + ": not a regular file");
  }
  mapping->size = static_cast<std::size_t>(status.st_size);
  if (mapping->size > 0) {
    // Writable and private: libelf may convert data in place; nothing reaches the file.
    void* address = mmap(nullptr, mapping->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (address == MAP_FAILED) {
      int error = errno;
      ::close(fd);
      return make_error(path.string() + ": cannot map: " + std::strerror(error));
    }
    mapping->address = address;
  }
  ::close(fd);
  return read(std::move(mapping), path.string());
}

Result<ElfFile> ElfFile::from_memory(std::span<const unsigned char> bytes, const std::string& label) {
  auto mapping = std::make_unique<Mapping>();
  mapping->copy.assign(bytes.begin(), bytes.end());
  mapping->size = mapping->copy.size();
  mapping->address = nullptr;
  return read(std::move(mapping), label);
}

Result<ElfFile> ElfFile::read(std::unique_ptr<Mapping> mapping, const std::string& label) {
  elf_version(EV_CURRENT);
  char* bytes = mapping->address ? static_cast<char*>(mapping->address) : reinterpret_cast<char*>(mapping->copy.data());
  if (mapping->size < EI_NIDENT || std::memcmp(bytes, ELFMAG, SELFMAG) != 0) return make_error(label + ": not an ELF file");
  if (bytes[EI_CLASS] != ELFCLASS64 || bytes[EI_DATA] != ELFDATA2LSB) {
    return make_error(label + ": not a 64-bit little-endian ELF file");
  }
  mapping->elf = elf_memory(bytes, mapping->size);
  if (!mapping->elf || elf_kind(mapping->elf) != ELF_K_ELF) return elf_error(label, "not a readable ELF file");
  GElf_Ehdr header;
  if (!gelf_getehdr(mapping->elf, &header)) return elf_error(label, "unreadable ELF header");
  ElfFile file;
  file.mapping_ = std::move(mapping);
  file.label_ = label;
  file.machine_ = header.e_machine;
  CUDAENV_TRY(file.read_dynamic());
  CUDAENV_TRY(file.locate_symbols());
  return file;
}

Status ElfFile::read_dynamic() {
  Elf* elf = mapping_->elf;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNAMIC) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) return elf_error(label_, "unreadable dynamic section");
    std::size_t count = data->d_size / sizeof(Elf64_Dyn);
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Dyn entry;
      if (!gelf_getdyn(data, static_cast<int>(i), &entry) || entry.d_tag == DT_NULL) break;
      bool wanted = entry.d_tag == DT_NEEDED || entry.d_tag == DT_SONAME || entry.d_tag == DT_RPATH || entry.d_tag == DT_RUNPATH;
      if (!wanted) continue;
      auto text = string_at(elf, shdr.sh_link, entry.d_un.d_val);
      if (!text) return make_error(label_ + ": a dynamic entry names a string outside its string table");
      switch (entry.d_tag) {
        case DT_NEEDED: needed_.emplace_back(*text); break;
        case DT_SONAME: soname_ = std::string(*text); break;
        case DT_RPATH: rpath_ = split(*text, ':'); break;
        case DT_RUNPATH: runpath_ = split(*text, ':'); break;
      }
    }
    return ok_status();  // the loader reads one dynamic section
  }
  return ok_status();  // a static object: nothing to load
}

Status ElfFile::locate_symbols() {
  Elf* elf = mapping_->elf;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    if (shdr.sh_type != SHT_DYNSYM && shdr.sh_type != SHT_GNU_HASH) continue;
    Elf_Data* data = elf_rawdata(scn, nullptr);
    if (!data || (!data->d_buf && data->d_size)) return elf_error(label_, "unreadable symbol section");
    std::span<const unsigned char> bytes(static_cast<const unsigned char*>(data->d_buf), data->d_size);
    if (shdr.sh_type == SHT_DYNSYM) {
      dynsym_ = bytes.first(bytes.size() - bytes.size() % sizeof(Elf64_Sym));
      dynstr_index_ = shdr.sh_link;
    } else {
      gnu_hash_ = bytes;
    }
  }
  return ok_status();
}

namespace {

// The symbol at `index` of .dynsym, read from its raw bytes.
Elf64_Sym symbol_at(std::span<const unsigned char> dynsym, std::size_t index) {
  Elf64_Sym symbol;
  std::memcpy(&symbol, dynsym.data() + index * sizeof symbol, sizeof symbol);
  return symbol;
}

GElf_Sym widened(const Elf64_Sym& symbol) {
  GElf_Sym out;
  std::memcpy(&out, &symbol, sizeof out);
  return out;
}

}  // namespace

std::vector<ElfSymbol> ElfFile::undefined_symbols() const {
  std::vector<ElfSymbol> symbols;
  std::size_t count = dynsym_.size() / sizeof(Elf64_Sym);
  for (std::size_t i = 1; i < count; ++i) {
    GElf_Sym symbol = widened(symbol_at(dynsym_, i));
    unsigned bind = GELF_ST_BIND(symbol.st_info);
    if (symbol.st_shndx != SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK)) continue;
    auto name = string_at(mapping_->elf, dynstr_index_, symbol.st_name);
    if (!name || name->empty()) continue;
    symbols.push_back({std::string(*name), bind == STB_WEAK});
  }
  return symbols;
}

bool ElfFile::defines(std::string_view name) const {
  std::size_t count = dynsym_.size() / sizeof(Elf64_Sym);
  auto matches = [&](std::size_t index) {
    if (index == 0 || index >= count) return false;
    GElf_Sym symbol = widened(symbol_at(dynsym_, index));
    return is_defined(symbol) && string_at(mapping_->elf, dynstr_index_, symbol.st_name) == name;
  };
  // .gnu.hash: nbuckets, symoffset, bloom_size, bloom_shift, the bloom words, the buckets, the chains.
  if (gnu_hash_.size() >= 16) {
    std::uint64_t buckets = u32_at(gnu_hash_, 0), offset = u32_at(gnu_hash_, 4), bloom = u32_at(gnu_hash_, 8);
    std::uint64_t buckets_at = 16 + bloom * 8, chains_at = buckets_at + buckets * 4;
    if (buckets > 0 && chains_at <= gnu_hash_.size()) {
      std::uint32_t hash = gnu_hash(name);
      std::uint64_t index = u32_at(gnu_hash_, buckets_at + (hash % buckets) * 4);
      if (index < offset) return false;
      for (; index < count; ++index) {
        std::uint64_t at = chains_at + (index - offset) * 4;
        if (at + 4 > gnu_hash_.size()) return false;
        std::uint32_t chained = u32_at(gnu_hash_, at);
        if ((chained | 1) == (hash | 1) && matches(index)) return true;
        if (chained & 1) return false;
      }
      return false;
    }
  }
  for (std::size_t i = 1; i < count; ++i) {
    if (matches(i)) return true;
  }
  return false;
}

std::vector<std::string> ElfFile::defined_starting_with(std::string_view prefix) const {
  std::vector<std::string> names;
  std::size_t count = dynsym_.size() / sizeof(Elf64_Sym);
  for (std::size_t i = 1; i < count; ++i) {
    GElf_Sym symbol = widened(symbol_at(dynsym_, i));
    if (!is_defined(symbol)) continue;
    auto name = string_at(mapping_->elf, dynstr_index_, symbol.st_name);
    if (name && starts_with(*name, prefix)) names.emplace_back(*name);
  }
  return names;
}

Result<std::optional<std::span<const unsigned char>>> ElfFile::section(std::string_view name) const {
  Elf* elf = mapping_->elf;
  std::size_t names_index = 0;
  if (elf_getshdrstrndx(elf, &names_index) != 0) return elf_error(label_, "no section names");
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || string_at(elf, names_index, shdr.sh_name) != name) continue;
    if (shdr.sh_type == SHT_NOBITS) return std::optional<std::span<const unsigned char>>(std::span<const unsigned char>());
    Elf_Data* data = elf_rawdata(scn, nullptr);
    if (!data || (!data->d_buf && data->d_size))
      return elf_error(label_, "section " + std::string(name) + " lies outside the file");
    return std::optional(std::span<const unsigned char>(static_cast<const unsigned char*>(data->d_buf), data->d_size));
  }
  return std::optional<std::span<const unsigned char>>();
}

}  // namespace cudaenv
