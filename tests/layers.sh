#!/usr/bin/env bash
# layers.sh SOURCE_DIR — the layer rules of docs/design.md ("Layers"), checked
# against every #include in the tree.  The rules are read from the table
# under the marker `<!-- layers: tests/layers.sh -->` in docs/design.md, so
# the document and this check cannot drift apart:
#   | folder | may include headers of |
# A folder's files (subfolders included, unless a subfolder has its own
# row) may include the headers of the listed folders and the C library /
# system headers (<...>) only.  Two words are not folders: `installed`
# allows <routebench/NAME> for the installed headers, `public` allows
# "NAME" only for them (both for code that must build out of the tree).
# A listed folder stands for its subfolders too (`bench`: every bench/
# row); a header belongs to the most specific row that holds it.
# Fails on an include of a folder not listed (an upward or
# sideways edge), a quoted include that is no header of the tree, and a
# header name that two folders share (includes are by bare name).
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
cd "$src"
fail=0
bad() { echo "layers: $*" >&2; fail=1; }

# the rules, from the design document
declare -A allowed
rules=$(sed -n '/<!-- layers: tests\/layers.sh -->/,/^$/p' docs/design.md |
        grep -E '^\| *`?[a-z/]+`? *\|' | grep -v -- '---' | grep -v 'may include')
[ -n "$rules" ] || { echo "layers: no rules table in docs/design.md" >&2; exit 1; }
while IFS='|' read -r _ folder deps _; do
  folder=$(echo "$folder" | tr -d ' `')
  deps=$(echo "$deps" | tr -d ' `' | tr ',' ' ')
  allowed[$folder]=$deps
done <<< "$rules"

# row_of FILE: the most specific folder of the rules that holds FILE
row_of() {
  local best="" cand
  for cand in "${!allowed[@]}"; do
    case "$1" in "$cand"/*) [ ${#cand} -gt ${#best} ] && best=$cand ;; esac
  done
  echo "$best"
}
# may FOLDER TARGET: does FOLDER's row allow TARGET (listed, or a subfolder
# of a listed folder)?
may() {
  local d
  for d in ${allowed[$1]}; do
    case "$2" in "$d" | "$d"/*) return 0 ;; esac
  done
  return 1
}

# header name -> folder (the layer folders only; a header belongs to the
# most specific row that holds it)
declare -A owner
for folder in "${!allowed[@]}"; do
  [ -d "$folder" ] || { bad "docs/design.md names a folder that does not exist: $folder"; continue; }
  while IFS= read -r h; do
    [ "$(row_of "$h")" = "$folder" ] || continue # a subfolder's own row owns it
    name=$(basename "$h")
    if [ -n "${owner[$name]:-}" ] && [ "${owner[$name]}" != "$folder" ]; then
      bad "header $name is in both ${owner[$name]} and $folder"
    fi
    owner[$name]=$folder
  done < <(git ls-files -co --exclude-standard "$folder" | grep -E '\.h$' || true)
done
public=$(sed -n 's/^set(RB_PUBLIC_HEADERS \(.*\))$/\1/p' CMakeLists.txt | tr ' ' '\n' | xargs -n1 basename)

# every include of every source of a layer folder
edges=0
for folder in "${!allowed[@]}"; do
  while IFS= read -r f; do
    [ "$(row_of "$f")" = "$folder" ] || continue
    while IFS= read -r inc; do
      edges=$((edges + 1))
      case "$inc" in
        \"*\")
          name=${inc//\"/}
          target=${owner[$(basename "$name")]:-}
          if [[ " ${allowed[$folder]} " == *" public "* ]]; then
            echo "$public" | grep -qx "$name" ||
              bad "$f ($folder) includes \"$name\": only the installed headers are allowed"
            continue
          fi
          if [ -z "$target" ] && [[ $name == *.c ]]; then # a test compiling a source in
            target=$(row_of "$(git ls-files "*/$name" | head -1)")
          fi
          if [ -z "$target" ]; then
            bad "$f includes \"$name\", which is no header of a layer folder"
          elif ! may "$folder" "$target"; then
            bad "$f ($folder) includes \"$name\" of $target: not allowed (docs/design.md, Layers)"
          fi ;;
        \<routebench/*\>)
          name=${inc#<routebench/}; name=${name%>}
          echo "$public" | grep -qx "$name" || bad "$f includes <routebench/$name>: not installed"
          [[ " ${allowed[$folder]} " == *" installed "* ]] ||
            bad "$f ($folder) includes the installed <routebench/$name>" ;;
      esac
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\(["<][^">]*[">]\).*/\1/p' "$f")
  done < <(git ls-files -co --exclude-standard "$folder" | grep -E '\.(c|h|cc)$' || true)
done
[ $fail -eq 0 ] || exit 1
echo "layers: ok ($edges includes in ${#allowed[@]} folders follow docs/design.md)"
