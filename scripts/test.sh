#!/usr/bin/env bash
# The test command from the README: installs what is missing, builds, runs
# the Catch2/CTest suite and the conda-check conformance checker.
# Everything runs by default (the `slow` end-to-end demo builds take well
# under a minute here); SF_TEST_LABELS=fast leaves them out.
#
# A test that cannot run here reports SKIPPED (tests/testskip.hpp), never a
# pass. After ctest this lists the skipped tests by name, and fails when one
# of them is an end-to-end megabuild test (CTest name `e2e:...`) or a golden
# test (a name containing `golden`): those are the tests CI exists to run.
# ctest's own output is kept in $build/ctest.log.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/configure.sh
build=${SF_BUILD_DIR:-build}
bash scripts/conda-check.sh --install-only
exclude=()
[[ ${SF_TEST_LABELS:-} == fast ]] && exclude=(-LE slow)
log=$build/ctest.log
rc=0
# A hung test fails after 10 minutes instead of eating the CI budget.
ctest --test-dir "$build" --output-on-failure --timeout 600 -j "${CPU_COUNT:-$(nproc)}" "${exclude[@]}" 2>&1 | tee "$log" || rc=$?

# ctest ends with "The following tests did not run:" and one line per test,
# e.g. "	242 - e2e:e2e: cpu demo ... (Skipped)".
skipped=()
while IFS= read -r name; do
  skipped+=("$name")
done < <(awk '
  /^The following tests did not run:/ { in_list = 1; next }
  in_list && /^[[:space:]]+[0-9]+ - .* \(Skipped\)$/ {
    sub(/^[[:space:]]+[0-9]+ - /, ""); sub(/ \(Skipped\)$/, ""); print; next
  }
  in_list && !/^[[:space:]]+[0-9]+ - / { in_list = 0 }
' "$log")

if ((${#skipped[@]})); then
  # Each skip printed "SKIPPED: <reason>"; CTest keeps that output in LastTest.log.
  reasons=$build/Testing/Temporary/LastTest.log
  echo
  echo "test.sh: ${#skipped[@]} test(s) skipped:"
  for name in "${skipped[@]}"; do
    reason=
    if [[ -f $reasons ]]; then
      reason=$(awk -v name="$name" '
        /^[0-9]+\/[0-9]+ Test: / { cur = $0; sub(/^[0-9]+\/[0-9]+ Test: /, "", cur); next }
        cur == name && /^SKIPPED: / { sub(/^SKIPPED: /, ""); print; exit }
      ' "$reasons")
    fi
    echo "  ${name}${reason:+ -- $reason}"
  done
  required=()
  for name in "${skipped[@]}"; do
    # catch_discover_tests(TEST_PREFIX "e2e: ") names them "e2e:<test case>".
    if [[ $name == e2e:* || $name == *golden* ]]; then
      required+=("$name")
    fi
  done
  if ((${#required[@]})); then
    echo "test.sh: FAILED: these tests must run in CI but were skipped:" >&2
    printf '  %s\n' "${required[@]}" >&2
    ((rc != 0)) || rc=1
  fi
else
  echo "test.sh: no test skipped"
fi
exit "$rc"
