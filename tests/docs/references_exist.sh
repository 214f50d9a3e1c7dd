#!/usr/bin/env bash
# Every file the project's text points at exists: relative Markdown links in README.md and
# docs/, and paths written in any tracked file (docs/..., tools/..., include/..., tl/....hpp,
# examples/..., tests/..., cmake/...). A renamed or removed file leaves no stale pointer behind.
#   tests/docs/references_exist.sh SOURCE_DIR
set -uo pipefail
cd "${1:-$(dirname "$0")/../..}" || exit 2
if ! git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  echo "skipped: $(pwd) is not a git checkout (the tracked files are the ones checked)"
  exit 77
fi
mapfile -t files < <(git ls-files -- . ':!tests/runtime/golden' ':!*.png' ':!*.svg' ':!*.jpg')
missing=0
checked=0
report() { echo "$1: points at $2, which does not exist"; missing=$((missing + 1)); }

# Paths from the project root: a token that starts one of the project's top-level folders
# (not part of a longer path such as /usr/include/...) and ends in a source or text extension.
root_path='(?<![A-Za-z0-9_./-])(?:docs|tools|include|examples|tests|cmake|\.ci)/[A-Za-z0-9_./-]*\.(?:md|hpp|cpp|cu|h|sh|py|cmake|txt)(?![A-Za-z0-9_.-])'
while IFS= read -r hit; do
  where=${hit%:*} path=${hit##*:}
  [[ $path == *...* ]] && continue  # an elided path in prose
  checked=$((checked + 1))
  [ -e "$path" ] || report "$where" "$path"
done < <(grep -noP "$root_path" "${files[@]}" | sed -E 's/^([^:]*:[0-9]+):/\1:/')

# Headers named as in an #include: tl/....hpp lives under include/.
header='(?<![A-Za-z0-9_./-])tl/[A-Za-z0-9_./-]*\.hpp(?![A-Za-z0-9_.-])'
while IFS= read -r hit; do
  where=${hit%:*} path=${hit##*:}
  [[ $path == *...* ]] && continue
  checked=$((checked + 1))
  [ -e "include/$path" ] || report "$where" "include/$path"
done < <(grep -noP "$header" "${files[@]}")

# Relative Markdown links, from the page's own folder (web addresses and anchors aside).
mapfile -t pages < <(printf '%s\n' "${files[@]}" | grep -E '\.md$')
while IFS= read -r hit; do
  page=${hit%%:*} rest=${hit#*:} line=${rest%%:*} target=${rest#*:}
  target=${target#](} target=${target%)} target=${target%%#*}
  [[ -n $target && $target != *...* ]] || continue
  checked=$((checked + 1))
  [ -e "$(dirname "$page")/$target" ] || report "$page:$line" "$target"
done < <(grep -noP '\]\((?![a-z]+:)[A-Za-z0-9_./#-]+\)' "${pages[@]}")

if [ "$missing" -gt 0 ]; then
  echo "$missing of $checked references point at nothing"
  exit 1
fi
echo "all $checked references to files exist"
