# The CLI's entry point: help, version, unknown commands and exit codes.
. "$(dirname "$0")/lib.sh"

t_run "$STEPSCOPE" --help
t_ok "help exits 0 and lists commands" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep -w analyze)"
t_run "$STEPSCOPE"
t_ok "no command is a usage error" test "$T_RC" = 2
t_run "$STEPSCOPE" frobnicate
t_ok "unknown command is a usage error" test "$T_RC" = 2 -a -n "$(printf '%s' "$T_ERR" | grep "unknown command 'frobnicate'")"
t_run "$STEPSCOPE" version
t_ok "version prints the version" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep -E '^stepscope [0-9]+\.[0-9]+\.[0-9]+$')"
t_run "$STEPSCOPE" version --bogus
t_ok "unknown option is a usage error" test "$T_RC" = 2
t_done
