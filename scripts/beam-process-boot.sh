#!/bin/sh
# beam-process-boot.sh: the command for Prism's PROCESS environment
# (--environment_type=PROCESS '--environment_config={"command":"THIS"}').
# Prism 2.77.0 starts it as `THIS --id='ID' --provision_endpoint=...`
# without a shell, so the quotes would reach Beam's boot, which then fails
# ("not registered in worker pool"). This removes them and runs boot
# ($BEAM_BOOT; build it with `cd beam && go build -o BOOT
# github.com/apache/beam/sdks/v2/go/container`).
id=$(printf '%s' "$1" | sed "s/^--id='\(.*\)'\$/--id=\1/")
shift
exec "${BEAM_BOOT:?set BEAM_BOOT to Beam's Go boot binary}" "$id" "$@"
