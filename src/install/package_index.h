#pragma once
// A Python package index over the network (PyPI, or a proxy of it): project pages read once per
// command, metapackage wheels (a few kB) fetched into memory and checked against the index's
// sha256 before their METADATA is read. The pypi source's part of an install (plan_wheel_files) plans with it.

#include <map>
#include <string>

#include "install/downloader.h"
#include "install/installer.h"
#include "install/pypi_index.h"

namespace cudaenv {

class PackageIndex : public WheelIndex {
 public:
  // `url` the index root (a trailing '/' is dropped).
  explicit PackageIndex(std::string url);

  const std::string& url() const override { return url_; }
  Result<std::vector<IndexFile>> files(const std::string& project) override;
  Result<std::string> wheel_metadata(const IndexFile& wheel) override;
  Result<std::uint64_t> size_of(const IndexFile& wheel) override;
  void set_should_stop(std::function<bool()> should_stop) { options_.should_stop = std::move(should_stop); }

 private:
  std::string url_;
  DownloadOptions options_;
  std::map<std::string, std::vector<IndexFile>> pages_;
};

PlanFiles plan_wheel_files(PackageIndex& index, const ProfileCatalog& profiles);

}  // namespace cudaenv
