#include "core/settings_table.h"

namespace cudaenv {

Setting env_setting(const EnvSettingRow& row, const EnvMap& env) {
  return pick_setting({nullptr, row.variable}, {}, env, std::nullopt, {}, row.fallback);
}

bool is_on(const Setting& setting) { return !setting.value.empty() && setting.value != "0"; }

}  // namespace cudaenv
