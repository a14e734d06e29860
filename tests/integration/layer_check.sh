# scripts/layer-check fails on a module that includes a header of one listed after it in
# docs/architecture.md, and on a folder of src/ the document does not list; it passes the tree
# it is given when neither holds.
. "$(dirname "$0")/lib.sh"
mkdir -p tree/docs
cp "$SRC/docs/architecture.md" tree/docs/
for module in $(sed -n '/^```$/,/^```$/p' "$SRC/docs/architecture.md" | sed -n 's|^  \([a-z_]*\)/.*|\1|p'); do
  mkdir -p "tree/src/$module"
done
printf '#include "util/strings.h"\n' >tree/src/core/fine.cpp
printf '#include "core/version.h"\n' >tree/src/doctor/fine_test.cpp
run_capture python3 "$SRC/scripts/layer-check" tree
assert_eq 0 "$STATUS" "a tree whose modules include only those listed before them passes: $ERR"

printf '// why\n#include <string>\n#include "core/version.h"\n' >tree/src/util/strings.h
run_capture python3 "$SRC/scripts/layer-check" tree
assert_eq 1 "$STATUS" "util including core fails"
assert_contains "$ERR" "src/util/strings.h:3 includes core/...: core/ is listed after util/" "the failure names the file, line and layers"
rm tree/src/util/strings.h

mkdir tree/src/newmodule
run_capture python3 "$SRC/scripts/layer-check" tree
assert_eq 1 "$STATUS" "a folder the document does not list fails"
assert_contains "$ERR" "src/newmodule/ is not listed in docs/architecture.md" "the failure names the folder"

run_capture python3 "$SRC/scripts/layer-check" "$SRC"
assert_eq 0 "$STATUS" "the repository's own tree passes: $ERR"
finish
