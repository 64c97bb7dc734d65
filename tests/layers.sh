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
# A private header (the table under `<!-- private headers: tests/layers.sh
# -->`) may be included only by files under the folders of its row.
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

# private headers: | header | included only under | (folders)
declare -A private
while IFS='|' read -r _ header where _; do
  header=$(echo "$header" | tr -d ' `')
  private[$header]=$(echo "$where" | tr -d ' `' | tr ',' ' ')
done < <(sed -n '/<!-- private headers: tests\/layers.sh -->/,/^$/p' docs/design.md |
         grep -E '^\| *`[^`]+\.h`' || true)
[ ${#private[@]} -gt 0 ] || { echo "layers: no private headers table in docs/design.md" >&2; exit 1; }

# row_of FILE: the most specific folder of the rules that holds FILE
row_of() { # sets $row (no subshell: this runs once per file)
  local cand
  row=""
  for cand in "${!allowed[@]}"; do
    case "$1" in "$cand"/*) [ ${#cand} -gt ${#row} ] && row=$cand ;; esac
  done
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
    row_of "$h"
    [ "$row" = "$folder" ] || continue # a subfolder's own row owns it
    name=${h##*/}
    if [ -n "${owner[$name]:-}" ] && [ "${owner[$name]}" != "$folder" ]; then
      bad "header $name is in both ${owner[$name]} and $folder"
    fi
    owner[$name]=$folder
  done < <(git ls-files -co --exclude-standard "$folder" | grep -E '\.h$' || true)
done
public=$(sed -n 's/^set(RB_PUBLIC_HEADERS \(.*\))$/\1/p' CMakeLists.txt | tr ' ' '\n' | xargs -n1 basename)

# every include of every source of a layer folder (one awk over all the
# files: a fork per file is slow on a loaded machine)
edges=0
mapfile -t sources < <(git ls-files -co --exclude-standard | grep -E '\.(c|h|cc)$')
while IFS=$'\t' read -r f inc; do
  row_of "$f"
  folder=$row
  [ -n "$folder" ] || continue
  edges=$((edges + 1))
  case "$inc" in
    \"*\")
      name=${inc//\"/}
      base=${name##*/}
      target=${owner[$base]:-}
      if [ -n "${private[$base]:-}" ]; then
        ok=0
        for d in ${private[$base]}; do
          case "$f" in "$d"/*) ok=1 ;; esac
        done
        [ $ok -eq 1 ] || bad "$f includes the private \"$name\" (only under ${private[$base]})"
      fi
      if [[ " ${allowed[$folder]} " == *" public "* ]]; then
        [[ $'\n'$public$'\n' == *$'\n'$name$'\n'* ]] ||
          bad "$f ($folder) includes \"$name\": only the installed headers are allowed"
        continue
      fi
      if [ -z "$target" ] && [[ $name == *.c ]]; then # a test compiling a source in
        row_of "$(git ls-files "*/$name" | head -1)"
        target=$row
      fi
      if [ -z "$target" ]; then
        bad "$f includes \"$name\", which is no header of a layer folder"
      elif ! may "$folder" "$target"; then
        bad "$f ($folder) includes \"$name\" of $target: not allowed (docs/design.md, Layers)"
      fi ;;
    \<routebench/*\>)
      name=${inc#<routebench/}; name=${name%>}
      [[ $'\n'$public$'\n' == *$'\n'$name$'\n'* ]] || bad "$f includes <routebench/$name>: not installed"
      [[ " ${allowed[$folder]} " == *" installed "* ]] ||
        bad "$f ($folder) includes the installed <routebench/$name>" ;;
  esac
done < <(awk 'FNR == 1 { f = FILENAME }
              /^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]/ {
                sub(/^[[:space:]]*#[[:space:]]*include[[:space:]]*/, "")
                if (match($0, /^"[^"]*"|^<[^>]*>/)) print f "\t" substr($0, 1, RLENGTH)
              }' "${sources[@]}")
[ $fail -eq 0 ] || exit 1
echo "layers: ok ($edges includes in ${#allowed[@]} folders follow docs/design.md)"
