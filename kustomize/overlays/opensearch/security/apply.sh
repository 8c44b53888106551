#!/usr/bin/env bash
# Applies roles.json (beside this script) through the security plugin's REST API: the four roles, their role
# mappings and, for each mapped user that has a password file, the internal user. Idempotent (PUT); one line per
# object. The least-privilege suite (server/opensearch/test/least-privilege.test.ts) runs this very script.
#   OPENSEARCH_URL                      https://opensearch.example.com:9200 (required)
#   OPENSEARCH_SECURITY_ADMIN           a user allowed to use the security REST API (required)
#   OPENSEARCH_SECURITY_ADMIN_PASSWORD  its password (required; never on a command line)
#   OPENSEARCH_CA_FILE                  CA bundle that signed the cluster's certificate (optional)
#   PASSWORD_DIR                        folder with <u>.password for user workflow-index-<u> (optional: without it,
#                                       or without a user's file, the user is left as it is, e.g. from your LDAP)
# Needs bash, curl and jq.
set -euo pipefail
: "${OPENSEARCH_URL:?set OPENSEARCH_URL}" "${OPENSEARCH_SECURITY_ADMIN:?set OPENSEARCH_SECURITY_ADMIN}" "${OPENSEARCH_SECURITY_ADMIN_PASSWORD:?set OPENSEARCH_SECURITY_ADMIN_PASSWORD}"
ROLES_FILE=${1:-"$(dirname "$0")/roles.json"}
body=$(mktemp)
trap 'rm -f "$body"' EXIT
ca=()
if [ -n "${OPENSEARCH_CA_FILE:-}" ]; then ca=(--cacert "$OPENSEARCH_CA_FILE"); fi

put() { # <kind> <name>: PUT the JSON in $body, print "<kind> <name>: <status>"
  local answer
  # The credentials travel on stdin (curl -K -), so they never show in the process list.
  answer=$(printf 'user = "%s:%s"\n' "$OPENSEARCH_SECURITY_ADMIN" "$OPENSEARCH_SECURITY_ADMIN_PASSWORD" |
    curl -sS --fail-with-body -K - "${ca[@]}" -X PUT -H 'content-type: application/json' --data-binary @"$body" \
      "$OPENSEARCH_URL/_plugins/_security/api/$1/$2") || { echo "$1 $2: failed: $answer" >&2; return 1; }
  echo "$1 $2: $(jq -r '.status // .' <<<"$answer")"
}

for name in $(jq -r '.roles | keys[]' "$ROLES_FILE"); do
  jq ".roles[\"$name\"]" "$ROLES_FILE" >"$body"
  put roles "$name"
done
for name in $(jq -r '.rolesmapping | keys[]' "$ROLES_FILE"); do
  if [ -n "${PASSWORD_DIR:-}" ]; then
    for user in $(jq -r ".rolesmapping[\"$name\"].users[]?" "$ROLES_FILE"); do
      file="$PASSWORD_DIR/${user#workflow-index-}.password"
      [ -f "$file" ] || continue
      jq -n --rawfile p "$file" '{password: ($p | rtrimstr("\n"))}' >"$body"
      put internalusers "$user"
    done
  fi
  jq ".rolesmapping[\"$name\"]" "$ROLES_FILE" >"$body"
  put rolesmapping "$name"
done
