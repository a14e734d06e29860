#pragma once
// Doctor's two outputs: a report for people and a JSON document with every probe and finding.

#include <string>
#include <vector>

#include "doctor/checks.h"
#include "doctor/probes.h"

namespace cudaenv {

std::string render_report(const Probes& probes, const std::vector<Finding>& findings, bool colour);
std::string render_json(const Probes& probes, const std::vector<Finding>& findings);
// "1 error, 2 warnings, 7 checks passed (2 notes)": info findings are not passed checks.
std::string summary_line(const std::vector<Finding>& findings);

}  // namespace cudaenv
