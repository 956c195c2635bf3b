#!/bin/sh
# Runs Caddy, then publishes the root certificate of its local CA (the one that signs the demo's
# HTTPS certificate) world-readable at $CA_EXPORT, where the relays find it via NODE_EXTRA_CA_CERTS.
# Caddy keeps its own copy private (0600, root), and the relays run as an unprivileged user.
set -eu
root="${XDG_DATA_HOME:-/data}/caddy/pki/authorities/local/root.crt"
out="${CA_EXPORT:-/ca/root.crt}"

rm -f "$out"
caddy run --config "${CADDYFILE:-/etc/caddy/Caddyfile}" --adapter caddyfile &
pid=$!
trap 'kill -TERM "$pid"' TERM INT

while [ ! -s "$root" ]; do
  kill -0 "$pid" 2>/dev/null || exit 1
  sleep 1
done
cp "$root" "$out.tmp" && chmod 0644 "$out.tmp" && mv "$out.tmp" "$out"
echo "caddy-start: local CA root published at $out"

set +e
wait "$pid"
status=$?
# A signal ends the first wait early: wait again for Caddy's own exit.
if kill -0 "$pid" 2>/dev/null; then
  wait "$pid"
  status=$?
fi
exit "$status"
