#include "install/free_space.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "install/progress.h"

namespace cudaenv {

Status check_free_space(const std::vector<SpaceNeed>& needs, const std::string& what) {
  struct Device {
    std::filesystem::path dir;
    std::uint64_t bytes = 0;
  };
  std::map<dev_t, Device> by_device;
  for (const SpaceNeed& need : needs) {
    struct stat st {};
    if (::stat(need.dir.c_str(), &st) != 0) {
      return make_error("cannot check the free space in " + need.dir.string() + ": " + std::strerror(errno));
    }
    Device& device = by_device[st.st_dev];
    if (device.dir.empty()) device.dir = need.dir;
    device.bytes += need.bytes;
  }
  for (const auto& [id, device] : by_device) {
    struct statvfs fs {};
    if (::statvfs(device.dir.c_str(), &fs) != 0) {
      return make_error("cannot check the free space in " + device.dir.string() + ": " + std::strerror(errno));
    }
    std::uint64_t available = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
    if (available < device.bytes) {
      return make_error(what + " need about " + human_bytes(device.bytes) + " in " + device.dir.string() +
                            ", but its file system has only " + human_bytes(available) + " free",
                        "free space there, or point CUDAENV_ROOT (or --to) at a larger disk, and run the same "
                        "command again");
    }
  }
  return ok_status();
}

}  // namespace cudaenv
