#!/usr/bin/env bash
# A fresh clone of the repository in a temporary folder with nothing beside it (no corpus, no
# node_modules): `npm ci`, then `npm start` must reach a ready /readyz, and the test files that
# need the HITL Protocol corpus must pass by skipping those tests and saying why in one line.
# Usage: bash .ci/fresh-clone.sh <repository>; leaves the clone in $TMPDIR/hitl-relay-ci-clone.
set -euo pipefail
repo="$1"
root="${TMPDIR:-/tmp}/hitl-relay-ci-clone"
rm -rf "$root" && mkdir -p "$root"
git clone -q "$repo" "$root/hitl-relay"
cd "$root/hitl-relay"
unset HITL_PROTOCOL_DIR HITL_PROTOCOL_REQUIRED
start=$SECONDS

npm ci --no-audit --no-fund
echo "fresh clone: npm ci took $((SECONDS - start)) s"

# npm start on a free loopback port, until /readyz answers 200 (60 s at most).
port=$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
# Its own process group (setsid), so stopping it stops npm, tsx and the relay together.
PORT=$port setsid npm start >"$root/start.log" 2>&1 &
server=$!
ready=0
for _ in $(seq 1 120); do
  if node -e "fetch('http://127.0.0.1:$port/readyz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"; then
    ready=1
    break
  fi
  kill -0 "$server" 2>/dev/null || break
  sleep 0.5
done
kill -- "-$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
if [ "$ready" != 1 ]; then
  echo "fresh clone: npm start did not reach a ready /readyz; its output:" >&2
  cat "$root/start.log" >&2
  exit 1
fi
echo "fresh clone: npm start answered /readyz 200"

# The corpus test files, corpus hidden: they pass, their corpus tests skipped with one line.
mapfile -t files < <(grep -rlE "tags: \[('corpus'|CORPUS)" test --include='*.test.ts' | sort)
npx vitest run "${files[@]}" 2>&1 | tee "$root/corpus-hidden.log"
grep -q 'the HITL Protocol corpus (schemas/, examples/) is not at' "$root/corpus-hidden.log" || {
  echo "fresh clone: the run without the corpus did not say what is missing" >&2
  exit 1
}
grep -Eq 'Tests .*[0-9]+ skipped' "$root/corpus-hidden.log" || {
  echo "fresh clone: no corpus test was skipped without the corpus" >&2
  exit 1
}
echo "fresh clone: ${#files[@]} corpus test files pass without the corpus ($((SECONDS - start)) s in all)"
