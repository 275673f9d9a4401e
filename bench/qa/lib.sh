# shellcheck shell=bash disable=SC2016 # jq programs and inline scripts are single-quoted on purpose
# Shared by the QA pipeline scripts: settings, the gllam command, the question list, progress.
#
# Settings (environment):
#   DATASET   locomo | longmemeval | beam (required)
#   DATA      the benchmark's JSON file; for BEAM its folder of chats (100K/ holding 1/chat.json, 1/probing_questions/...) (required)
#   MODEL     the model tag: STRONG_LLM_MODEL for answers and grading, and the results' file names (required)
#   OUT       results folder (default bench/results/qa/<dataset>)
#   LIMIT     only the first N questions (default all)
#   BUDGET    context budget in tokens for `gllam ask` (default 1500)
#   GLLAM     the gllam command (default: `bun src/cli/main.ts` from this checkout)
#   STRONG_TEXT_SERVER  the OpenAI-compatible server (with OPENROUTER_API_KEY where it needs a key)
set -euo pipefail

: "${DATASET:?set DATASET=locomo|longmemeval|beam}"
: "${DATA:?set DATA to the benchmark JSON file}"
: "${MODEL:?set MODEL to the model tag (STRONG_LLM_MODEL)}"
case "$DATASET" in locomo | longmemeval | beam) ;; *) echo "DATASET must be locomo, longmemeval or beam, got $DATASET" >&2 && exit 2 ;; esac
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$ROOT/bench/results/qa/$DATASET}
BUDGET=${BUDGET:-1500}
LIMIT=${LIMIT:-0}
export DB="$OUT/memory.db"
export STRONG_LLM_MODEL="$MODEL"
mkdir -p "$OUT"

gllam() {
  if [[ -n "${GLLAM:-}" ]]; then
    # shellcheck disable=SC2086 # GLLAM may be a command with arguments
    $GLLAM "$@"
  else
    bun "$ROOT/src/cli/main.ts" "$@"
  fi
}

# One JSON line per question: id, scope (the conversation or haystack it is asked on), question,
# gold answer, category. LoCoMo category 5 (adversarial) has no answer field: its gold is that the
# conversation does not say; LongMemEval's *_abs questions are abstentions; BEAM's category is the
# ability a probing question tests, its gold the answer (or ideal response or summary) and rubric.
list_questions() {
  local filter
  if [[ "$DATASET" == beam ]]; then
    local chat
    for chat in $(find "$DATA" -mindepth 2 -maxdepth 2 -name chat.json | sort -V); do
      jq -c --arg s "beam-$(basename "$(dirname "$chat")")" 'to_entries[] | .key as $ability | .value | to_entries[] |
        {id: "\($s):\($ability):\(.key)", scope: $s, question: .value.question, category: $ability,
         gold: ([(.value.answer // .value.ideal_response // .value.ideal_summary // "" | tostring)] + (.value.rubric // [] | map("rubric: " + tostring)) | map(select(. != "")) | join("; "))}' \
        "$(dirname "$chat")/probing_questions/probing_questions.json"
    done | if [[ "$LIMIT" -gt 0 ]]; then head -n "$LIMIT"; else cat; fi
    return
  fi
  if [[ "$DATASET" == locomo ]]; then
    filter='.[] | .sample_id as $s | .qa | to_entries[] | {id: "\($s):\(.key)", scope: $s, question: .value.question,
      gold: (if .value.category == 5 then "not mentioned in the conversation (adversarial)" else (.value.answer | tostring) end),
      category: ({"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial"}[.value.category | tostring] // "other")}'
  else
    filter='.[] | {id: .question_id, scope: .question_id, question: .question, gold: (.answer | tostring),
      category: (if (.question_id | endswith("_abs")) then "abstention" else .question_type end)}'
  fi
  if [[ "$LIMIT" -gt 0 ]]; then jq -c "[$filter] | .[:$LIMIT][]" "$DATA"; else jq -c "$filter" "$DATA"; fi
}

# The units to ingest, one per scope: LoCoMo samples, LongMemEval question haystacks.
list_scopes() {
  list_questions | jq -r '.scope' | awk '!seen[$0]++'
}

# A one-line progress bar on stderr when it is a terminal: progress DONE TOTAL LABEL.
progress() {
  [[ -t 2 ]] || return 0
  local width=30 filled
  filled=$(($1 * width / ($2 > 0 ? $2 : 1)))
  printf '\r[%s%s] %d/%d %s\033[K' "$(printf '%*s' "$filled" '' | tr ' ' '#')" "$(printf '%*s' $((width - filled)) '' | tr ' ' '.')" "$1" "$2" "$3" >&2
}
progress_done() {
  if [[ -t 2 ]]; then printf '\n' >&2; fi
}
