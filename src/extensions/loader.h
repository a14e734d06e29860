#pragma once
// Which file the dynamic loader would map for each library a shared object needs, in one process:
// glibc's order (DT_RPATH of the object and of the objects that loaded it when it has no
// DT_RUNPATH, LD_LIBRARY_PATH, its own DT_RUNPATH, ld.so.cache, the system folders), $ORIGIN
// expanded, and a soname already loaded in the process taken as it is. Nothing is loaded: the
// files are read (extensions/elf_file.h).

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "extensions/elf_file.h"
#include "extensions/ld_cache.h"

namespace cudaenv {

struct LoaderSettings {
  std::vector<std::string> library_path;           // LD_LIBRARY_PATH's entries, in order
  LdCache cache;                                   // /etc/ld.so.cache
  std::vector<std::filesystem::path> system_dirs;  // where the loader looks last
};

// e_machine of the objects this machine runs (EM_X86_64, EM_AARCH64).
std::uint16_t this_machine();

// The loader's built-in folders on Debian-style multiarch glibc for this machine, under `root`.
std::vector<std::filesystem::path> system_library_dirs(const std::filesystem::path& root);

struct LoadedObject {
  std::filesystem::path path;  // as the loader opened it (its folder is $ORIGIN)
  ElfFile elf;
};

struct LoadOutcome {
  std::vector<const LoadedObject*> scope;  // the object and its dependencies, breadth first
  std::vector<std::string> missing;        // sonames found nowhere
  std::optional<std::string> unreadable;   // why the object itself could not be read
};

class LoaderModel {
 public:
  explicit LoaderModel(LoaderSettings settings) : settings_(std::move(settings)) {}

  // dlopen(path): the object and everything it needs, found as the loader would; what is found
  // stays loaded for later calls. `global` (RTLD_GLOBAL) adds the scope to global_scope().
  LoadOutcome load(const std::filesystem::path& path, bool global = false);
  // The same for an object dlopen'ed on its own (an extension module as a test imports it): the
  // process is left as it was, though the files read stay cached.
  LoadOutcome load_alone(const std::filesystem::path& path);
  // The object at `path`, read (and cached) without loading it; an error when it is no ELF object.
  Result<const LoadedObject*> read(const std::filesystem::path& path);
  // Where the loader would find `soname` for an object without RPATH or RUNPATH (dlopen by name
  // from a program, as cuda.pathfinder's system search does): none when nowhere.
  std::optional<std::filesystem::path> find(const std::string& soname, std::uint16_t machine);
  // The objects whose symbols every later object sees: RTLD_GLOBAL loads.
  const std::vector<const LoadedObject*>& global_scope() const { return global_; }
  // The loaded object with this soname, if any.
  const LoadedObject* loaded(const std::string& soname) const;

 private:
  const LoadedObject* resolve(const std::string& name, const std::vector<const LoadedObject*>& loaders);
  const LoadedObject* search(const std::string& name, std::uint16_t machine, const std::vector<std::filesystem::path>& rpath,
                             const std::vector<std::filesystem::path>& runpath);
  const LoadedObject* candidate(const std::filesystem::path& path, std::uint16_t machine);

  LoaderSettings settings_;
  std::vector<std::unique_ptr<LoadedObject>> objects_;
  std::map<std::string, const LoadedObject*> by_soname_;
  std::map<std::filesystem::path, const LoadedObject*> by_path_;
  std::vector<const LoadedObject*> global_;
};

}  // namespace cudaenv
