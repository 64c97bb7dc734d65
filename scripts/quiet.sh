# shellcheck shell=bash
# quiet.sh: publish only what a quiet machine measured (sourced by
# scripts/results.sh and scripts/field.sh).  A results page is refused when
# the load average at the start or the end of its run exceeds 1.5 per 2
# cores (0.75 a core), or when more than 5% of its trials were disturbed;
# --force writes it anyway, stamped "measured on a busy machine" at its top.
# ROUTEBENCH_LOADAVG names the file the load is read from (/proc/loadavg;
# the tests plant one).

# The load allowed on this machine: 1.5 per 2 cores.
quiet_limit() {
  local cores
  cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
  awk -v c="$cores" 'BEGIN { printf "%g\n", 0.75 * (c > 0 ? c : 1) }'
}

# The 1-minute load average now.
quiet_load() {
  awk '{ print $1; exit }' "${ROUTEBENCH_LOADAVG:-/proc/loadavg}"
}

# Before a run: refuse (exit 1) when the machine is busy, unless forced.
#   quiet_before SCRIPT FORCE
quiet_before() {
  local load limit
  load=$(quiet_load) limit=$(quiet_limit)
  if awk -v l="$load" -v m="$limit" 'BEGIN { exit !(l > m) }'; then
    if [ "$2" = 1 ]; then
      echo "$1: load average $load is over $limit: measuring anyway (--force)," \
           "the page will say \"measured on a busy machine\"" >&2
    else
      echo "$1: load average $load is over $limit (1.5 per 2 cores, $(getconf _NPROCESSORS_ONLN) here):" \
           "a results page is measured on a quiet machine (--force writes it anyway, stamped" \
           "\"measured on a busy machine\")" >&2
      exit 1
    fi
  fi
}

# After a run: the reasons its summary.json may not be published, one a
# line; refuse (exit 1) unless forced.  Prints the stamp for the page's
# top on stdout when forced over a reason (nothing when quiet).
#   quiet_after SCRIPT FORCE SUMMARY.json
quiet_after() {
  local why
  why=$(jq -r --argjson limit "$(quiet_limit)" -f "$(dirname "${BASH_SOURCE[0]}")/field_quiet.jq" "$3")
  [ -z "$why" ] && return 0
  if [ "$2" != 1 ]; then
    {
      echo "$1: not written: the run was measured on a busy machine:"
      printf '%s\n' "$why" | sed 's/^/  /'
      echo "  (measure again on a quiet machine, or --force to write it stamped as such)"
    } >&2
    exit 1
  fi
  echo "> **Measured on a busy machine** (written with --force): $(echo "$why" | paste -sd';' - | sed 's/;/; /g'). Its figures are not comparable with a quiet run's."
}
