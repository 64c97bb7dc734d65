#!/usr/bin/env bash
# doclinks.sh SOURCE_DIR — every relative link of README.md and docs/*.md
# resolves: the file (or directory) exists, and a #anchor names a heading of
# the target Markdown file (GitHub's slugs: lower case, punctuation dropped,
# spaces to hyphens, -1, -2 ... for repeated headings). Links to other sites
# (http:, https:, mailto:) are not followed. Text inside fenced code blocks
# and inline code is not a link.
# Also every path of the source tree the same files name in their text (a
# word starting base/, routers/, stats/, corpus/, bench/, tests/, scripts/,
# examples/, peers/, docs/ or cmake/, code blocks included) exists, or ends
# a path that exists (`peers/r3.c` in the list of routers/), or begins one
# (`corpus/data/semantics.*`); words with `*` or `{` are patterns, not paths.
set -euo pipefail
src=$(cd "$1" && pwd)
cd "$src"
export LC_ALL=C

# slugs FILE: the anchors of FILE's headings, one a line
slugs() {
  awk '
    /^(```|~~~)/ { fence = !fence; next }
    fence { next }
    /^#+ / {
      h = $0; sub(/^#+ +/, "", h); sub(/ +#* *$/, "", h)
      h = tolower(h)
      gsub(/[^a-z0-9 _-]/, "", h)
      gsub(/ /, "-", h)
      n = seen[h]++
      print (n ? h "-" n : h)
    }' "$1"
}

# links FILE: "LINE TARGET" for every inline link outside code
links() {
  awk '
    /^(```|~~~)/ { fence = !fence; next }
    fence { next }
    {
      line = $0
      gsub(/`[^`]*`/, "", line)            # inline code is not a link
      while (match(line, /\]\([^) ]+\)/)) {
        print NR, substr(line, RSTART + 2, RLENGTH - 3)
        line = substr(line, RSTART + RLENGTH)
      }
    }' "$1"
}

bad=0
checked=0
for f in README.md docs/*.md; do
  dir=$(dirname "$f")
  while read -r line target; do
    case "$target" in http:* | https:* | mailto:*) continue ;; esac
    checked=$((checked + 1))
    path=${target%%#*}
    anchor=
    [ "$path" != "$target" ] && anchor=${target#*#}
    if [ -z "$path" ]; then
      file=$f
    else
      file=$dir/$path
    fi
    if [ ! -e "$file" ]; then
      echo "doclinks: $f:$line: $target: no such file ($file)" >&2
      bad=$((bad + 1))
      continue
    fi
    if [ -n "$anchor" ]; then
      case "$file" in
        *.md) ;;
        *) echo "doclinks: $f:$line: $target: an anchor into a file that is not Markdown" >&2
           bad=$((bad + 1)); continue ;;
      esac
      if ! slugs "$file" | grep -qxF -- "$anchor"; then
        echo "doclinks: $f:$line: $target: no heading with the anchor #$anchor in $file" >&2
        bad=$((bad + 1))
      fi
    fi
  done < <(links "$f")
done
named=0
while read -r f path; do
  case "$path" in *'*'* | *'{'*) continue ;; esac
  named=$((named + 1))
  [ -e "$path" ] && continue
  [ -n "$(find base routers stats corpus bench tests scripts examples peers docs cmake \
            -path "*/$path" -print -quit 2>/dev/null)" ] && continue
  compgen -G "$path*" >/dev/null && continue
  echo "doclinks: $f names $path, which is not in the source tree" >&2
  bad=$((bad + 1))
done < <(for f in README.md docs/*.md; do
           grep -oE '(^|[^A-Za-z0-9_./-])(base|routers|stats|corpus|bench|tests|scripts|examples|peers|docs|cmake)/[A-Za-z0-9_./{},*-]*[A-Za-z0-9_*}]' "$f" |
             sed -E 's/^[^a-z]//' | sort -u | sed "s|^|$f |"
         done)
if [ "$bad" -gt 0 ]; then
  echo "doclinks: $bad of $checked links and $named named paths do not resolve" >&2
  exit 1
fi
echo "doclinks: ok ($checked relative links and $named named paths in README.md and docs/*.md resolve)"
