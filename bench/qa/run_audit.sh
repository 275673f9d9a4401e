#!/usr/bin/env bash
# What the extraction produced: links per relationship and nodes per type, written to
# OUT/audit_<model>.tsv, and the difference against an earlier snapshot (SNAPSHOT=path, default the
# previous audit of this model, kept as .prev).
# shellcheck source=bench/qa/lib.sh disable=SC2016 # jq programs are single-quoted on purpose
source "$(dirname "$0")/lib.sh"

audit="$OUT/audit_${MODEL//\//_}.tsv"
snapshot=${SNAPSHOT:-$audit.prev}
[[ -f "$audit" && -z "${SNAPSHOT:-}" ]] && cp "$audit" "$audit.prev"
bun -e '
const { Database } = require("bun:sqlite");
const db = new Database(process.argv[1], { readonly: true });
const rows = [
  ...db.query("SELECT relationship AS k, count(*) AS n FROM semantic_links WHERE expired_at IS NULL GROUP BY 1 ORDER BY 2 DESC, 1").all().map((r) => `relationship\t${r.k}\t${r.n}`),
  ...db.query("SELECT type AS k, count(*) AS n FROM semantic_nodes GROUP BY 1 ORDER BY 2 DESC, 1").all().map((r) => `entity_type\t${r.k}\t${r.n}`),
];
console.log(rows.join("\n"));
' "$DB" >"$audit"
cat "$audit"
if [[ -f "$snapshot" ]]; then
  echo "--- against $snapshot (kind, name, before, after)"
  join -t $'\t' -a1 -a2 -e 0 -o 0,1.2,2.2 <(awk -F'\t' '{print $1":"$2"\t"$3}' "$snapshot" | sort) <(awk -F'\t' '{print $1":"$2"\t"$3}' "$audit" | sort) |
    awk -F'\t' '$2 != $3 {print $1"\t"$2"\t"$3}'
fi
