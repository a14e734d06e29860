#pragma once
// The install receipt, versions/<label>/cudaenv-install.json: what an install put into the
// toolkit (the request, where it came from, every archive as planned, the files each library
// added), so that a later install sees what is there and `install --locked` compares it with
// cuda.lock. Pure: text in, text out.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "install/archive.h"
#include "install/plan.h"

namespace cudaenv {

inline constexpr const char* kInstallReceiptName = "cudaenv-install.json";

// What each library added, below the toolkit root: its files and links, sorted.
using LibraryContents = std::map<std::string, std::vector<std::string>>;

// The receipt of `plan` installed for `request`: "origin" is where the archives came from (the
// redist folder or the package index) and "source" its kind ("redist" or "pypi"); earlier
// receipts call the origin "source" and the kind "source_kind" (or have none, before wheels). No time or host:
// two installs of one plan (one cuda.lock) write the same bytes.
std::string render_receipt(const InstallRequest& request, const InstallPlan& plan, const LibraryContents& libraries);

// What an install reads back of a receipt.
struct InstallReceipt {
  std::string profile;
  std::vector<Archive> archives;  // libraries included; receipts before wheels have no distribution
};

// nullopt for a receipt that is damaged (wrong JSON types included): it counts as none. Reads
// every earlier version's receipt (only the fields above are read; their names never changed).
std::optional<InstallReceipt> parse_receipt(std::string_view text, const std::string& path);

}  // namespace cudaenv
