#!/usr/bin/env bash
# Checks that the C++ and CUDA sources under native/ and test/gpu/capture/programs/ are formatted
# as .clang-format says (clang-format --dry-run --Werror); exits non-zero on any difference.
# Fix them with: scripts/lint-native.sh --fix
set -u
cd "$(dirname "$0")/.."
if ! command -v "${CLANG_FORMAT:-clang-format}" > /dev/null 2>&1; then
  # CI installs it (scripts/setup-lint.sh), so there a missing one is an error; elsewhere it is a warning,
  # so that npm test works on a fresh machine without it.
  echo "lint-native: clang-format is not installed (bash scripts/setup-lint.sh, or set CLANG_FORMAT); native sources not checked" >&2
  [ "${CI:-}" = true ] && exit 2
  exit 0
fi
files=$(git ls-files 'native/*.cc' 'native/*.h' 'native/*.cu' 'native/*.cuh' 'test/gpu/capture/programs/*.cu' 'test/gpu/capture/programs/*.cc' 'test/gpu/capture/programs/*.h')
if [ "${1:-}" = --fix ]; then
  exec "${CLANG_FORMAT:-clang-format}" -i $files
fi
if ! "${CLANG_FORMAT:-clang-format}" --dry-run --Werror $files; then
  echo "lint-native: the files above differ from .clang-format's style: run scripts/lint-native.sh --fix" >&2
  exit 1
fi
echo "lint-native: $(echo $files | wc -w) files formatted"
