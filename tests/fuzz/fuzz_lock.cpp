// A cuda.lock from a cloned repository: parsing never crashes, what parses renders back to the
// same lock, and every archive's place, when the lock has one, holds the archive's URL.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lock/lock_file.h"
#include "lock/lock_places.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto lock = cudaenv::parse_lock("/clone/cuda.lock", text);
  if (!lock) return 0;
  auto again = cudaenv::parse_lock("/clone/cuda.lock", cudaenv::render_lock(*lock));
  if (!again || !(*again == *lock)) std::abort();
  for (const auto* archives : {&lock->components, &lock->libraries}) {
    for (const auto& locked : *archives) {
      const cudaenv::Archive& archive = locked.archive;
      auto place = cudaenv::archive_place(*lock, locked, "/clone/cuda.lock");
      if (!place) continue;
      // A folder's archive is the folder and its path there; nothing climbs out of it.
      bool folder = place->kind != cudaenv::PlaceKind::package_index;
      std::string parts = "/" + place->relative + "/";
      if (folder && (archive.url != place->root + place->relative || parts.find("/../") != std::string::npos)) {
        std::abort();
      }
      (void)cudaenv::url_origin(archive.url);
    }
  }
  return 0;
}
