#pragma once
// What every transfer of one command keeps to, found once at the command's start and passed down
// to the downloads: the deadlines (CUDAENV_TEXT_TIMEOUT, CUDAENV_DOWNLOAD_TIMEOUT) and the CA
// certificates https is checked against. Nothing below the command reads them from elsewhere.

#include "core/settings_table.h"
#include "install/ca_certificates.h"

namespace cudaenv {

struct FetchSettings {
  FetchTimeouts timeouts;
  CaCertificates certificates;
};

}  // namespace cudaenv
