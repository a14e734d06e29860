#include "extensions/loader.h"

#include <elf.h>

#include <algorithm>
#include <set>

namespace cudaenv {

namespace fs = std::filesystem;

namespace {

// $ORIGIN and ${ORIGIN} -> the object's folder; none for an entry with another token ($LIB,
// $PLATFORM), which this model does not expand.
std::optional<fs::path> expanded(const std::string& entry, const LoadedObject& object) {
  std::string origin = object.path.parent_path().string();
  std::string out;
  for (std::size_t i = 0; i < entry.size();) {
    if (entry[i] != '$') {
      out += entry[i++];
      continue;
    }
    if (entry.compare(i, 7, "$ORIGIN") == 0) {
      out += origin;
      i += 7;
    } else if (entry.compare(i, 9, "${ORIGIN}") == 0) {
      out += origin;
      i += 9;
    } else {
      return std::nullopt;
    }
  }
  if (out.empty()) return std::nullopt;  // an empty entry is the working directory: not modelled
  return fs::path(out);
}

std::string soname_of(const LoadedObject& object) {
  return object.elf.soname() ? *object.elf.soname() : object.path.filename().string();
}

}  // namespace

std::uint16_t this_machine() {
#if defined(__aarch64__)
  return EM_AARCH64;
#else
  return EM_X86_64;
#endif
}

std::vector<fs::path> system_library_dirs(const fs::path& root) {
#if defined(__aarch64__)
  std::string triple = "aarch64-linux-gnu";
#else
  std::string triple = "x86_64-linux-gnu";
#endif
  return {root / "lib" / triple, root / "usr/lib" / triple, root / "lib64", root / "usr/lib64", root / "lib", root / "usr/lib"};
}

const LoadedObject* LoaderModel::loaded(const std::string& soname) const {
  auto found = by_soname_.find(soname);
  return found == by_soname_.end() ? nullptr : found->second;
}

Result<const LoadedObject*> LoaderModel::read(const fs::path& path) {
  fs::path key = path.lexically_normal();
  if (auto found = by_path_.find(key); found != by_path_.end()) return found->second;
  CUDAENV_TRY_ASSIGN(auto elf, ElfFile::open(path));
  objects_.push_back(std::make_unique<LoadedObject>(LoadedObject{key, std::move(elf)}));
  const LoadedObject* object = objects_.back().get();
  by_path_[key] = object;
  return object;
}

// A file the loader would accept for a request from an object of `machine`: it exists and is an
// ELF object for the same machine (the loader skips the others, linker scripts among them, and
// searches on, as this model does).
const LoadedObject* LoaderModel::candidate(const fs::path& path, std::uint16_t machine) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return nullptr;
  auto object = read(path);
  if (!object || (*object)->elf.machine() != machine) return nullptr;
  by_soname_.emplace(soname_of(**object), *object);
  return *object;
}

const LoadedObject* LoaderModel::resolve(const std::string& name, const std::vector<const LoadedObject*>& loaders) {
  if (const LoadedObject* object = loaded(name)) return object;
  const LoadedObject& requester = *loaders.back();
  std::uint16_t machine = requester.elf.machine();
  if (name.find('/') != std::string::npos) return candidate(name, machine);
  auto folders = [](const std::vector<std::string>& entries, const LoadedObject& owner, std::vector<fs::path>& out) {
    for (const std::string& entry : entries) {
      if (auto dir = expanded(entry, owner)) out.push_back(*dir);
    }
  };
  // DT_RPATH of the requester, then of each object that loaded it, unless it has DT_RUNPATH.
  std::vector<fs::path> rpath, runpath;
  if (requester.elf.runpath().empty()) {
    for (auto loader = loaders.rbegin(); loader != loaders.rend(); ++loader) folders((*loader)->elf.rpath(), **loader, rpath);
  }
  folders(requester.elf.runpath(), requester, runpath);
  return search(name, machine, rpath, runpath);
}

const LoadedObject* LoaderModel::search(const std::string& name, std::uint16_t machine, const std::vector<fs::path>& rpath,
                                        const std::vector<fs::path>& runpath) {
  auto in_dirs = [&](const std::vector<fs::path>& dirs) -> const LoadedObject* {
    for (const fs::path& dir : dirs) {
      if (const LoadedObject* object = candidate(dir / name, machine)) return object;
    }
    return nullptr;
  };
  if (const LoadedObject* object = in_dirs(rpath)) return object;
  for (const std::string& entry : settings_.library_path) {
    if (entry.empty()) continue;
    if (const LoadedObject* object = candidate(fs::path(entry) / name, machine)) return object;
  }
  if (const LoadedObject* object = in_dirs(runpath)) return object;
  for (const auto& [soname, path] : settings_.cache) {
    if (soname != name) continue;
    if (const LoadedObject* object = candidate(path, machine)) return object;
  }
  return in_dirs(settings_.system_dirs);
}

LoadOutcome LoaderModel::load(const fs::path& path, bool global) {
  LoadOutcome outcome;
  auto opened = read(path);
  if (!opened) {
    outcome.unreadable = opened.error().message;
    return outcome;
  }
  const LoadedObject* root = *opened;
  by_soname_.emplace(soname_of(*root), root);
  // Breadth first, as the loader orders a local scope; each object remembers who loaded it, for
  // the RPATH chain.
  std::vector<std::pair<const LoadedObject*, std::vector<const LoadedObject*>>> queue = {{root, {root}}};
  std::set<const LoadedObject*> seen = {root};
  std::set<std::string> missing;
  for (std::size_t next = 0; next < queue.size(); ++next) {
    auto [object, loaders] = queue[next];
    outcome.scope.push_back(object);
    for (const std::string& name : object->elf.needed()) {
      const LoadedObject* dependency = resolve(name, loaders);
      if (!dependency) {
        if (missing.insert(name).second) outcome.missing.push_back(name);
        continue;
      }
      by_soname_.emplace(name, dependency);  // loaded under the name it was asked for, too
      if (!seen.insert(dependency).second) continue;
      std::vector<const LoadedObject*> chain = loaders;
      chain.push_back(dependency);
      queue.emplace_back(dependency, std::move(chain));
    }
  }
  if (global) {
    for (const LoadedObject* object : outcome.scope) {
      if (std::find(global_.begin(), global_.end(), object) == global_.end()) global_.push_back(object);
    }
  }
  return outcome;
}

LoadOutcome LoaderModel::load_alone(const fs::path& path) {
  auto process = by_soname_;
  LoadOutcome outcome = load(path);
  by_soname_ = std::move(process);
  return outcome;
}

std::optional<fs::path> LoaderModel::find(const std::string& soname, std::uint16_t machine) {
  if (const LoadedObject* object = loaded(soname)) return object->path;
  const LoadedObject* object = search(soname, machine, {}, {});
  return object ? std::optional(object->path) : std::nullopt;
}

}  // namespace cudaenv
